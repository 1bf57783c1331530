package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"admit/internal/sysfile"
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
// Resolve keeps no cache: each call costs one lstat per component below
// the folder that holds the path's root (and a readlink per symlink). That
// folder was canonical when the root was added, and changing it takes a
// write outside every root, which the gate does not admit. A cache keyed by
// folder would have to be invalidated by watcher events that arrive after
// the change, so a decision made in that window could use a stale answer;
// it is left out on purpose. Listings are kept (sysfile.Listings), but each
// is used again only after a stat of the folder shows it unchanged, so
// that answer too comes from the file system as it is at the call.
type Resolver struct {
	roots *Roots
	// walkBound caps the entries LinksOutside visits when it walks.
	walkBound int
	// home is the person's home folder, whose git configuration
	// GitCredentials reads for URL rewrites; "" reads none.
	home string
	// noOpenat2 is set once openat2 proved unavailable here (an old
	// kernel, a seccomp filter): SearchPath then declines at once.
	noOpenat2 atomic.Bool
	// listings keeps folders' listings for ReadDir and ListResolved.
	listings sysfile.Listings
}

// SetHome names the person's home folder (GitCredentials reads the URL
// rewrites of its git configuration). It returns r.
func (r *Resolver) SetHome(home string) *Resolver {
	r.home = home
	return r
}

// DefaultWalkBound is how many entries LinksOutside visits when it walks a
// folder. A typical repository with its
// dependencies has tens of thousands; past the bound the answer is
// incomplete and LinksOutside says so with a sentinel entry.
const DefaultWalkBound = 100_000

// NewResolver returns a Resolver over roots. It does not use the watcher:
// every answer comes from the file system as it is at the call.
func NewResolver(roots *Roots) *Resolver {
	return &Resolver{roots: roots, walkBound: DefaultWalkBound}
}

var _ command.FS = (*Resolver)(nil)

// ErrOutsideRoots is returned by ReadDir for a folder outside the roots.
var ErrOutsideRoots = errors.New("workspace: the folder is outside the workspace roots")

// ReadDir lists the folder dir (resolved first) for pattern expansion,
// sorted by name; a folder outside the roots is ErrOutsideRoots.
func (r *Resolver) ReadDir(dir string) ([]fs.DirEntry, error) {
	res, err := r.Resolve(dir)
	if err != nil {
		return nil, err
	}
	if !r.roots.Contains(res.Path) {
		return nil, fmt.Errorf("%w: %s", ErrOutsideRoots, dir)
	}
	return r.listings.ReadDir(res.Path)
}

// ListResolved is ReadDir of dir, a path Resolve returned: it is not
// resolved again (command.ResolvedLister), only held to the roots.
func (r *Resolver) ListResolved(dir string) ([]fs.DirEntry, error) {
	if !r.roots.Contains(dir) {
		return nil, fmt.Errorf("%w: %s", ErrOutsideRoots, dir)
	}
	return r.listings.ReadDir(dir)
}

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
	from := "/"
	if root := r.roots.Which(p); root != "" {
		// The root itself is walked: it may have become a link since.
		// p starts with dir+"/", tested without building that string.
		if dir := filepath.Dir(root); len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir) {
			from = dir
		}
	}
	res, _, err := resolveClimb(p, from)
	return res, err
}

// ResolveIn is Resolve of dir/name where dir is a folder Resolve has
// just returned (it holds no symlink) and name holds no "/": the walk
// starts at dir.
func (r *Resolver) ResolveIn(dir, name string) (command.Resolved, error) {
	if !filepath.IsAbs(dir) || strings.ContainsRune(name, '/') {
		return command.Resolved{}, fmt.Errorf("workspace: resolve %q in %q: want an absolute folder and a name", name, dir)
	}
	res, _, err := resolveClimb(dir+"/"+name, dir)
	return res, err
}

func resolve(p string) (command.Resolved, error) {
	r, _, err := resolveClimb(p, "/")
	return r, err
}

// resolveClimb is resolve that also reports whether ".." climbed out of a
// missing folder back into existing ones (where the kernel would say
// ENOENT and Resolve answers as mkdir -p would see it). from is a
// canonical folder that p starts with ("/" for none); the walk starts
// there.
func resolveClimb(p, from string) (_ command.Resolved, climbed bool, _ error) {
	if !filepath.IsAbs(p) {
		return command.Resolved{}, false, fmt.Errorf("%w: %q", ErrRelativePath, p)
	}
	// buf starts on the stack, and while it spells the start of p (no
	// link followed, no "." or "//" dropped: most paths) the component
	// lstat'ed and the answer are slices of p, not copies: each copy was
	// an allocation of every check.
	var stack [256]byte
	var (
		buf    = append(stack[:0], from...) // resolved so far
		inP    = true                       // buf == p[:len(buf)]
		rest   = p[len(from):]              // still to walk
		links  = 0
		exists = true // buf exists
		isDir  = true // buf is an existing folder
		st     statT
		// While !exists: the length of the existing prefix of buf where
		// the walk left the file system, and whether it is a folder.
		existLen   int
		existIsDir bool
		// The mode and link count of the last component lstat'ed, and
		// the length of buf it names: the final path's when the walk
		// ends there.
		lastMode  uint32
		lastLinks uint64
		lastOther bool // owned by another user
		lastSeen  command.Stamp
		lastLen   = -1
	)
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
		// A shorter buf (".." or a link) is a prefix of the longer one,
		// so only what was appended is compared.
		inP = inP && len(buf) <= len(p) && string(buf[parentLen:]) == p[parentLen:len(buf)]
		if !exists {
			continue
		}
		if !isDir {
			// A component under a file: the kernel says ENOTDIR; nothing
			// there exists.
			exists, existLen, existIsDir = false, parentLen, false
			continue
		}
		var next string
		if inP {
			next = p[:len(buf)]
		} else {
			next = string(buf)
		}
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
		if st.Mode&syscall.S_IFMT != syscall.S_IFLNK {
			lastMode, lastLinks, lastOther, lastSeen, lastLen = uint32(st.Mode), uint64(st.Nlink), foreign(&st), stampOf(&st), len(buf)
		}
	}
	res := command.Resolved{Exists: exists, Dir: exists && isDir}
	if inP {
		res.Path = p[:len(buf)]
	} else {
		res.Path = string(buf)
	}
	if exists {
		if lastLen == len(buf) {
			res.Mode, res.Links, res.Foreign, res.Seen = sysfile.ModeOf(lastMode), lastLinks, lastOther, lastSeen
		} else if err := lstat(res.Path, &st); err == nil {
			// The walk ended on ".." or on a root it did not lstat.
			res.Mode, res.Links, res.Foreign, res.Seen = sysfile.ModeOf(uint32(st.Mode)), uint64(st.Nlink), foreign(&st), stampOf(&st)
		} else {
			return command.Resolved{}, false, fmt.Errorf("workspace: resolve %q: lstat %s: %w", p, res.Path, err)
		}
	}
	return res, climbed, nil
}

// maxFollowedDirs bounds how many folders LinksOutside walks in one call
// besides dir: one for each symlink under them that leads to a folder
// inside the roots that is not already walked. A program that follows
// links walks them all; a workspace needing more than this many is
// answered with a sentinel entry (fail closed), not walked further.
const maxFollowedDirs = 256

// LinksOutside lists the symlinks that a program following links while
// it walks dir (grep -R, find -L) would reach and whose targets resolve
// outside the roots, or cannot be resolved. It looks under dir (dir
// included, recursively, not following links) and, transitively, under
// every folder inside the roots that a symlink found so far leads to:
// "docs/to-vendor -> ../vendor" with "vendor/out -> /etc" reports
// vendor/out. Each folder is walked once (a folder under one already
// walked is not walked again), so link cycles end.
//
// It walks every time, visiting at most DefaultWalkBound entries in all:
// the watcher's index may lag the kernel by an event, and correctness must
// not depend on the watcher. Past a bound it
// returns what it found plus a sentinel entry naming the bound, so that a
// caller that refuses on any entry fails closed.
func (r *Resolver) LinksOutside(dir string) []string {
	out, _, _, blocked := r.walkTree(dir)
	if blocked != "" {
		out = append(out, blocked)
	}
	return out
}

// SplitNames lists the names that the walk of LinksOutside reaches under
// dir (dir's own name aside) that a reader splitting its input at blanks
// would not take whole, as xargs without -0 does: a name holding a blank,
// a newline, a quote or a backslash. Past the walk's bounds it ends with
// a sentinel entry, as LinksOutside does.
func (r *Resolver) SplitNames(dir string) []string {
	_, split, _, blocked := r.walkTree(dir)
	if blocked != "" {
		split = append(split, blocked)
	}
	return split
}

// OptionNames lists the names that the walk of LinksOutside reaches under
// dir (dir's own name aside) that start with "-": a program handed such
// a name whole (git ls-files -z | xargs -0 sort) reads it as an option
// (--compress-program=sh). Past the walk's bounds it ends with a
// sentinel entry, as LinksOutside does.
func (r *Resolver) OptionNames(dir string) []string {
	_, _, dashed, blocked := r.walkTree(dir)
	if blocked != "" {
		dashed = append(dashed, blocked)
	}
	return dashed
}

// walkTree walks dir as LinksOutside says: the links that lead outside,
// the names SplitNames reports, and why the walk is incomplete ("" when
// it is not).
func (r *Resolver) walkTree(dir string) (outside, split, dashed []string, blocked string) {
	var (
		walked []string // folders walked so far (resolved)
		queue  = []string{filepath.Clean(dir)}
		budget = r.walkBound
	)
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if coveredBy(d, walked) {
			continue
		}
		if len(walked) > maxFollowedDirs {
			blocked = fmt.Sprintf("%s (more than %d folders reached through symlinks: not every symlink was checked)", d, maxFollowedDirs)
			break
		}
		walked = append(walked, d)
		links, odd, dash, seen := walkLinks(d, budget)
		split = append(split, odd...)
		dashed = append(dashed, dash...)
		budget -= seen
		if budget < 0 {
			blocked = fmt.Sprintf("%s/... (more than %d entries: not every symlink was checked)", d, r.walkBound)
		}
		for _, l := range links {
			res, err := resolve(l)
			if err != nil || !r.roots.Contains(res.Path) {
				outside = append(outside, l)
				continue
			}
			if res.Dir && !coveredBy(res.Path, walked) {
				queue = append(queue, res.Path)
			}
		}
		if blocked != "" {
			break
		}
	}
	return outside, split, dashed, blocked
}

// coveredBy reports whether d is one of dirs or under one of them.
func coveredBy(d string, dirs []string) bool {
	for _, w := range dirs {
		if within(d, w) {
			return true
		}
	}
	return false
}

// walkLinks lists the symlinks under dir (dir included) without following
// any, and the names under it that SplitNames reports, visiting at most
// bound entries, and those OptionNames reports; seen is how many it
// visited, more than bound when it stopped at the bound.
func walkLinks(dir string, bound int) (links, split, dashed []string, seen int) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
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
		if p != dir && oddName(d.Name()) {
			split = append(split, p)
		}
		if p != dir && strings.HasPrefix(d.Name(), "-") {
			dashed = append(dashed, p)
		}
		return nil
	})
	return links, split, dashed, seen
}

// splitChars are what a reader splitting at blanks (xargs without -0)
// splits a name at or reads as quoting.
const splitChars = " \t\n\v\f\r'\"\\"

// patternChars are what a shell reads as a pattern in the words an
// unquoted $(...) gives: bash with extglob, zsh with GLOB_SUBST and
// EXTENDED_GLOB (where a leading "=" or "~" is expanded too).
const patternChars = "*?[]()<>|^#~"

// oddName reports a name that SplitNames lists: one a reader splitting
// at blanks would not take whole, or a shell would expand.
func oddName(name string) bool {
	return strings.ContainsAny(name, splitChars+patternChars) || strings.HasPrefix(name, "=")
}
