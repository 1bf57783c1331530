package run

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// A program that runs code may write the workspace minus its protected
// paths, and a protected path that exists is kept read-only (a link is
// kept itself, not followed). At a root, the protected folders that do not
// exist yet are read-only empties in the run, and so are those of each
// nested checkout (a folder holding a .git) (placeholders_linux.go; on
// macOS the profile denies every protected name at a root). The rest
// cannot be kept from being made: Landlock grants a folder with
// everything beneath it, so the right to make entries in a folder (go
// build -o app) is the right to make .envrc there, or sub/.admit/ in any
// folder, and a read-only mount needs a place on the person's disk to
// mount on. So the run's end undoes it: the workspace is walked again,
// and every protected path that was not there when the run started is
// taken out of the workspace (with all beneath it) before the result is
// returned, and named in Result.Undone (docs/confinement.md, "Protected
// paths a run cannot make").
//
// Who made such a path cannot be told: the kernel records no writer, the
// run writes with the person's uid, and the person (or their editor, or
// their git checkout) may make the same name in the real folder while
// the run goes on. So what is undone is moved, not deleted, into admit's
// state folder (Result.UndoneTo), where the person finds what was theirs.

// undoKeptBytes bounds what is copied into the state folder when it is on
// another file system than the workspace (a rename there is free): past
// it, the rest is removed and not kept.
const undoKeptBytes = 64 << 20

// undoKeptFor is how long moved-aside paths are kept in the state folder.
const undoKeptFor = 7 * 24 * time.Hour

// undo is what a run's end takes out of the workspace.
type undo struct {
	roots     []string
	protected func(string) bool
	keep      func(string) bool // the gate's own files made meanwhile (its tape rotated)
	before    []string          // the protected paths when the run started
	// links are the protected links in before that named nothing when the
	// run started: what one names afterwards, in a root, was made during
	// the run, through the link.
	links []string
	// aside is the folder under which undone paths are kept ("" removes
	// them).
	aside string
	// index are the roots' git index files when the run started: a path
	// the person's git checked out meanwhile is left (undo_git.go).
	index map[string]indexState
}

// danglingLinks are the links among paths that point to nothing.
func danglingLinks(paths []string) []string {
	var out []string
	for _, p := range paths {
		if info, err := os.Lstat(p); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			if _, err := os.Stat(p); err != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// run undoes the protected paths made since the run started; it returns
// what it took out, what it could not, and where it keeps them.
func (u undo) run() (undone, left []string, to string, err error) {
	sv, err := surveyWorkspace(u.roots, u.protected)
	if err != nil {
		return nil, nil, "", fmt.Errorf("survey of the workspace after the run: %w", err)
	}
	var made []string
	for _, p := range sv.protected {
		if slices.Contains(u.before, p) || u.keep != nil && u.keep(p) {
			continue
		}
		made = append(made, p)
	}
	for _, l := range u.links {
		if target, ok := linkTarget(l, u.roots); ok && !slices.Contains(made, target) {
			made = append(made, target)
		}
	}
	if len(made) == 0 {
		return nil, nil, "", nil
	}
	dir := ""
	if u.aside != "" {
		pruneAside(u.aside)
		if d, err := newAsideDir(u.aside); err == nil {
			dir = d
		}
	}
	for i, p := range made {
		if u.personsCheckout(p) {
			continue
		}
		if err := u.takeOut(p, dir, i); err != nil {
			left = append(left, p)
			continue
		}
		undone = append(undone, p)
	}
	if dir != "" {
		if kept, _ := os.ReadDir(dir); len(kept) == 0 {
			os.Remove(dir) // nothing kept: removed, or left
			dir = ""
		}
	}
	return undone, left, dir, nil
}

// linkTarget is what the link l names now, where it names a file in a
// root: a link of the workspace's, not the file it points to, is all
// that is followed.
func linkTarget(l string, roots []string) (string, bool) {
	if info, err := os.Lstat(l); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return "", false // replaced: the survey judges what stands there
	}
	target, err := filepath.EvalSymlinks(l)
	if err != nil || !within(target, roots) || slices.Contains(roots, target) {
		return "", false
	}
	return target, true
}

// personsCheckout: p is what the person's git checked out during the run.
func (u undo) personsCheckout(p string) bool {
	for _, r := range u.roots {
		if within(p, []string{r}) && p != r && personsCheckout(r, p, u.index) {
			return true
		}
	}
	return false
}

// newAsideDir makes the folder one run's undone paths are kept in.
func newAsideDir(base string) (string, error) {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	dir := filepath.Join(base, time.Now().UTC().Format("20060102T150405Z")+"-"+hex.EncodeToString(b[:]))
	return dir, os.Mkdir(dir, 0o700)
}

// pruneAside removes what earlier runs moved aside past undoKeptFor.
func pruneAside(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() && time.Since(info.ModTime()) > undoKeptFor {
			os.RemoveAll(filepath.Join(base, e.Name()))
		}
	}
}

// takeOut moves p into dir as its i-th path (a rename: nothing is
// followed, nothing copied), copies it there where dir is on another file
// system (within undoKeptBytes, links kept as links), and removes it from
// the workspace in any case. With dir "" it is removed. The folder p is
// in is reached from its root without following a link (undoParent).
func (u undo) takeOut(p, dir string, i int) error {
	root := ""
	for _, r := range u.roots {
		if within(p, []string{r}) && p != r && len(r) > len(root) {
			root = r
		}
	}
	if root == "" {
		return fmt.Errorf("%s is not in a root", p)
	}
	parent, done, err := undoParent(root, p)
	if err != nil {
		return err
	}
	defer done()
	at := filepath.Join(parent, filepath.Base(p))
	if dir != "" {
		dest := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(p)))
		if os.Rename(at, dest) == nil {
			return nil
		}
		budget := int64(undoKeptBytes)
		if err := copyTree(at, dest, &budget); err != nil {
			os.RemoveAll(dest)
		}
	}
	// RemoveAll removes a symlink, never what it points to, and descends
	// without following links.
	return os.RemoveAll(at)
}

var errTooLarge = errors.New("larger than what is kept")

// copyTree copies src to dest without following links: folders, regular
// files and links; anything else (a FIFO, a socket) is left out.
func copyTree(src, dest string, budget *int64) error {
	info, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dest)
	case info.IsDir():
		if err := os.Mkdir(dest, 0o700); err != nil {
			return err
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := copyTree(filepath.Join(src, e.Name()), filepath.Join(dest, e.Name()), budget); err != nil {
				return err
			}
		}
		return nil
	case info.Mode().IsRegular():
		if *budget -= info.Size(); *budget < 0 {
			return errTooLarge
		}
		in, err := openRegular(src)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, io.LimitReader(in, info.Size())); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	return nil
}
