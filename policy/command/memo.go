package command

import (
	"io/fs"
	"strings"
)

// resolveMemo keeps what FS.Resolve answered during one decision, so that
// a path named by several checks of a line (cd src && ls, cp a b and its
// readback's folder, every path again in a line judged twice) is walked
// once.
//
// It never outlives the decision: Evaluate (with its parser) and
// EvaluateArgv take one from the Policy's pool empty and empty it before
// they put it back. That is
// what makes it safe in a hostile workspace. The policy writes nothing,
// so within one decision a path can only change under another process;
// the memo then gives every check of the decision the same answer for it
// (two checks of one path can no longer see two file systems), and the
// window between the decision and the command's run, which the gate
// answers for (Protect, the readback, confinement), is exactly as wide as
// without it. A memo kept across decisions would instead answer a later
// line from a file system that may since have changed: a link swapped in
// after the first decision would be followed unseen.
type resolveMemo struct {
	seen []memoEntry
	dirs []dirEntry // folders a walk read whole, listed (walksecrets.go)
}

type dirEntry struct {
	path string
	ents []fs.DirEntry
	err  error
}

// maxDirs bounds the folders listed once per decision; past it each is
// listed again.
const maxDirs = 8

// ResolvedLister is an FS that lists a folder already resolved without
// resolving it again (workspace.Resolver: no lstat per component).
type ResolvedLister interface {
	// ListResolved is ReadDir of dir, which Resolve returned.
	ListResolved(dir string) ([]fs.DirEntry, error)
}

// listResolved is fsys's ListResolved of the resolved folder p, or its
// ReadDir.
func listResolved(fsys FS, p string) ([]fs.DirEntry, error) {
	if rl, ok := fsys.(ResolvedLister); ok {
		return rl.ListResolved(p)
	}
	return fsys.ReadDir(p)
}

// readDir is the listing of p (resolved), listed once per decision.
func (m *resolveMemo) readDir(fsys FS, p string) ([]fs.DirEntry, error) {
	if m == nil {
		return listResolved(fsys, p)
	}
	for i := range m.dirs {
		if m.dirs[i].path == p {
			return m.dirs[i].ents, m.dirs[i].err
		}
	}
	ents, err := listResolved(fsys, p)
	if len(m.dirs) < maxDirs {
		m.dirs = append(m.dirs, dirEntry{p, ents, err})
	}
	return ents, err
}

type memoEntry struct {
	path string
	r    Resolved
	err  error
}

// maxMemo bounds the memo: a line naming more paths than this resolves
// the rest each time, rather than scanning a long list for each.
const maxMemo = 32

// resolve is fs.Resolve(p), answered from the memo when this decision
// resolved p before. A nil memo resolves every time.
func (m *resolveMemo) resolve(fs FS, p string) (Resolved, error) {
	if m == nil {
		return fs.Resolve(p)
	}
	for i := range m.seen {
		if m.seen[i].path == p {
			return m.seen[i].r, m.seen[i].err
		}
	}
	// D/. is D when D is a folder (cd src && ls resolves both): the walk
	// to D, links followed, ends on the same folder, and "." stays there.
	// For anything else ("file/." names nothing) it is resolved.
	if dir, ok := strings.CutSuffix(p, "/."); ok && dir != "" {
		for i := range m.seen {
			if e := &m.seen[i]; e.path == dir && e.err == nil && e.r.Exists && e.r.Dir {
				return e.r, nil
			}
		}
	}
	r, err := fs.Resolve(p)
	if len(m.seen) < maxMemo {
		m.seen = append(m.seen, memoEntry{path: p, r: r, err: err})
	}
	return r, err
}

// newMemo takes an empty memo from the pool for one decision.
func (p *Policy) newMemo() *resolveMemo {
	m, _ := p.memos.Get().(*resolveMemo)
	if m == nil {
		m = &resolveMemo{seen: make([]memoEntry, 0, maxMemo)}
	}
	return m
}

// doneMemo empties m, ending what it knows with its decision, and
// returns it to the pool.
func (p *Policy) doneMemo(m *resolveMemo) {
	m.empty()
	p.memos.Put(m)
}

// empty forgets every answer m holds.
func (m *resolveMemo) empty() {
	clear(m.seen)
	m.seen = m.seen[:0]
	clear(m.dirs)
	m.dirs = m.dirs[:0]
}

// resolvePath is FS.Resolve through the decision's memo.
func (j *judge) resolvePath(p string) (Resolved, error) {
	return j.acc.memo.resolve(j.c.FS, p)
}
