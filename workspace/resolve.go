package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"admit/policy/command"
)

// maxLinks is how many symlinks one resolution may follow. Linux gives up
// with ELOOP after 40 (MAXSYMLINKS); so do we, so that a loop is an error
// here exactly when it would be one for the program.
const maxLinks = 40

// ErrLoop is returned when a path needs more than 40 symlinks to resolve.
var ErrLoop = errors.New("workspace: too many levels of symbolic links")

// ErrRelativePath is returned by Resolve for a path that is not absolute.
var ErrRelativePath = errors.New("workspace: path is not absolute")

// Resolver answers the policy's questions about the file system; it
// implements command.FS. Build it with NewResolver. It is safe for
// concurrent use.
//
// Resolve keeps no cache: each call costs one lstat per component (and a
// readlink per symlink). A cache keyed by folder would have to be
// invalidated by watcher events that arrive after the change, so a decision
// made in that window could use a stale answer; it is left out on purpose.
type Resolver struct {
	roots   *Roots
	watcher *Watcher // may be nil: LinksOutside then walks
	// walkBound caps the entries LinksOutside visits when it walks.
	walkBound int
}

// DefaultWalkBound is how many entries LinksOutside visits when it walks a
// folder without the watcher's index. A typical repository with its
// dependencies has tens of thousands; past the bound the answer is
// incomplete and LinksOutside says so with a sentinel entry.
const DefaultWalkBound = 100_000

// NewResolver returns a Resolver over roots. w may be nil; when it is set,
// running and complete, LinksOutside uses its symlink index.
func NewResolver(roots *Roots, w *Watcher) *Resolver {
	return &Resolver{roots: roots, watcher: w, walkBound: DefaultWalkBound}
}

var _ command.FS = (*Resolver)(nil)

// Resolve resolves the absolute path p as the kernel would when a program
// opens it: component by component from "/", following every symlink
// (relative targets against the link's folder, absolute ones from "/"),
// including a final one and one before a trailing slash, and applying ".."
// to the folder a link leads to (so "link/.." is the parent of the link's
// target). A dangling link resolves to its target. From the first
// component that does not exist, the rest is applied lexically; if ".."
// climbs back into the existing part, resolution with lstat resumes there,
// as "mkdir -p" would see it. More than 40 links is ErrLoop; an lstat or
// readlink error other than "does not exist" (EACCES) is returned too, so
// callers fail closed.
//
// Resolved.Exists and Resolved.Dir describe the final path; Dir is true
// only for an existing folder.
func (r *Resolver) Resolve(p string) (command.Resolved, error) {
	return resolve(p)
}

func resolve(p string) (command.Resolved, error) {
	r, _, err := resolveClimb(p)
	return r, err
}

// resolveClimb is resolve that also reports whether ".." climbed out of a
// missing folder back into existing ones (where the kernel would say
// ENOENT and Resolve answers as mkdir -p would see it).
func resolveClimb(p string) (_ command.Resolved, climbed bool, _ error) {
	if !filepath.IsAbs(p) {
		return command.Resolved{}, false, fmt.Errorf("%w: %q", ErrRelativePath, p)
	}
	var (
		buf    = make([]byte, 1, len(p)+16) // resolved so far; "/" when empty
		rest   = p                          // still to walk
		links  = 0
		exists = true // buf exists
		isDir  = true // buf is an existing folder
		st     syscall.Stat_t
		// While !exists: the length of the existing prefix of buf where
		// the walk left the file system, and whether it is a folder.
		existLen   int
		existIsDir bool
	)
	buf[0] = '/'
	for {
		// Next component of rest.
		for len(rest) > 0 && rest[0] == '/' {
			rest = rest[1:]
		}
		if rest == "" {
			break
		}
		comp := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		switch comp {
		case ".":
			continue
		case "..":
			// buf holds no symlinks, so its parent is lexical.
			if len(buf) > 1 {
				i := bytes.LastIndexByte(buf, '/')
				if i == 0 {
					i = 1
				}
				buf = buf[:i]
			}
			if exists {
				isDir = true
			} else if len(buf) <= existLen {
				exists, isDir = true, existIsDir || len(buf) < existLen
				climbed = true
			}
			continue
		}
		parentLen := len(buf)
		if len(buf) > 1 {
			buf = append(buf, '/')
		}
		buf = append(buf, comp...)
		if !exists {
			continue
		}
		if !isDir {
			// A component under a file: the kernel says ENOTDIR; nothing
			// there exists.
			exists, existLen, existIsDir = false, parentLen, false
			continue
		}
		next := string(buf)
		err := lstat(next, &st)
		if err != nil {
			if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
				exists, isDir, existLen, existIsDir = false, false, parentLen, true
				continue
			}
			return command.Resolved{}, false, fmt.Errorf("workspace: resolve %q: lstat %s: %w", p, next, err)
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFLNK:
			links++
			if links > maxLinks {
				return command.Resolved{}, false, fmt.Errorf("%w: %q", ErrLoop, p)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return command.Resolved{}, false, fmt.Errorf("workspace: resolve %q: %w", p, err)
			}
			// The link is replaced by its target, walked from the link's
			// folder (or from "/"); rest starts with "/" when not empty.
			buf = buf[:parentLen]
			if strings.HasPrefix(target, "/") {
				buf = buf[:1]
			}
			rest = target + rest
		case syscall.S_IFDIR:
			isDir = true
		default:
			isDir = false
		}
	}
	return command.Resolved{Path: string(buf), Exists: exists, Dir: exists && isDir}, climbed, nil
}

// lstat is syscall.Lstat retried on EINTR.
func lstat(p string, st *syscall.Stat_t) error {
	for {
		err := syscall.Lstat(p, st)
		if err != syscall.EINTR {
			return err
		}
	}
}

// LinksOutside lists the symlinks under dir (dir included, recursively,
// not following links) whose targets resolve outside the roots, or that
// cannot be resolved. It uses the watcher's index when a watcher is
// running, complete (not at the watch limit) and has no unprocessed
// events; otherwise it walks, visiting at most DefaultWalkBound entries.
// Past the bound it returns what it found plus a sentinel entry naming the
// bound, so that a caller that refuses on any entry fails closed.
func (r *Resolver) LinksOutside(dir string) []string {
	dir = filepath.Clean(dir)
	if links, ok := r.watcher.linksUnder(dir); ok {
		return r.outside(links)
	}
	links, complete := walkLinks(dir, r.walkBound)
	out := r.outside(links)
	if !complete {
		out = append(out, fmt.Sprintf("%s/... (more than %d entries: not every symlink was checked)", dir, r.walkBound))
	}
	return out
}

// outside keeps the links whose targets resolve outside the roots.
func (r *Resolver) outside(links []string) []string {
	var out []string
	for _, l := range links {
		res, err := resolve(l)
		if err != nil || !r.roots.Contains(res.Path) {
			out = append(out, l)
		}
	}
	return out
}

// walkLinks lists the symlinks under dir (dir included) without following
// any, visiting at most bound entries; complete is false past the bound.
func walkLinks(dir string, bound int) (links []string, complete bool) {
	seen := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable folder cannot be recursed by the program
			// either; a vanished one holds nothing.
			return nil
		}
		seen++
		if seen > bound {
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 {
			links = append(links, p)
		}
		return nil
	})
	_ = err
	return links, seen <= bound
}
