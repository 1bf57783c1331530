package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// ErrRelativeRoot is returned for a root that is not an absolute path.
var ErrRelativeRoot = errors.New("workspace: root is not an absolute path")

// Roots is the set of workspace roots (the write roots). Each root is stored
// cleaned and symlink-resolved, so it compares directly with paths that
// Resolver.Resolve returns. Roots is safe for concurrent use.
//
// When a Watcher runs over these roots, change them through Watcher.AddRoot
// and Watcher.RemoveRoot so that the watches follow.
type Roots struct {
	// mu guards list.
	mu sync.RWMutex
	// list is sorted, without duplicates; every entry is absolute, clean
	// and free of symlinks.
	list []string
}

// NewRoots returns the roots for dirs (see Set).
func NewRoots(dirs ...string) (*Roots, error) {
	r := &Roots{}
	if err := r.Set(dirs); err != nil {
		return nil, err
	}
	return r, nil
}

// canonicalRoot checks that dir is absolute and returns it with every
// symlink resolved. The folder must exist.
func canonicalRoot(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%w: %q", ErrRelativeRoot, dir)
	}
	resolved, err := filepath.EvalSymlinks(filepath.Clean(dir))
	if err != nil {
		return "", fmt.Errorf("workspace: resolve root %q: %w", dir, err)
	}
	return resolved, nil
}

// Set replaces every root by dirs. On error nothing changes.
func (r *Roots) Set(dirs []string) error {
	list := make([]string, 0, len(dirs))
	for _, d := range dirs {
		c, err := canonicalRoot(d)
		if err != nil {
			return err
		}
		list = append(list, c)
	}
	slices.Sort(list)
	list = slices.Compact(list)
	r.mu.Lock()
	r.list = list
	r.mu.Unlock()
	return nil
}

// Add adds dir and returns it as stored (symlink-resolved).
func (r *Roots) Add(dir string) (string, error) {
	c, err := canonicalRoot(dir)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, found := slices.BinarySearch(r.list, c); !found {
		r.list = slices.Insert(slices.Clone(r.list), i, c) // a new list: Shared's callers keep theirs
	}
	return c, nil
}

// Remove removes the root dir, given as added or as stored, and returns the
// stored form, or "" when dir was not a root.
func (r *Roots) Remove(dir string) string {
	cands := []string{filepath.Clean(dir)}
	if c, err := canonicalRoot(dir); err == nil {
		cands = append(cands, c)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cands {
		if i, found := slices.BinarySearch(r.list, c); found {
			r.list = slices.Delete(slices.Clone(r.list), i, i+1) // a new list: Shared's callers keep theirs
			return c
		}
	}
	return ""
}

// List returns a copy of the roots, sorted.
func (r *Roots) List() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.list)
}

// Shared returns the roots, sorted, without copying them: the caller
// must not change the slice. A change of the roots makes a new list, so
// what Shared returned stays as it was; every decision reads the roots,
// and a copy each time was an allocation of its own.
func (r *Roots) Shared() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clip(r.list)
}

// Contains reports whether the resolved, absolute path p is a root or lies
// inside one. "<root>-evil" is not inside "<root>".
func (r *Roots) Contains(p string) bool {
	return r.Which(p) != ""
}

// Which returns the innermost root that contains the resolved, absolute
// path p, or "".
func (r *Roots) Which(p string) string {
	p = filepath.Clean(p)
	r.mu.RLock()
	defer r.mu.RUnlock()
	best := ""
	for _, root := range r.list {
		if within(p, root) && len(root) > len(best) {
			best = root
		}
	}
	return best
}

// within reports whether the clean path p is root or lies under it.
func within(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || (strings.HasPrefix(p, root) && p[len(root)] == '/')
}
