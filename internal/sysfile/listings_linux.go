package sysfile

import (
	"io/fs"
	"sync"
	"syscall"
	"time"
)

// Listings keeps folders' listings (ReadDir) so that the gate, which
// lists the folders a decision's globs and walks name, lists a folder the
// person's agent greps all day once rather than at every decision. A kept
// listing is used again only while a stat of the folder shows the same
// folder (device, inode) with the same change and modification times: the
// kernel moves a folder's ctime whenever an entry is added, removed or
// renamed in it, and nothing in user space can set it. The zero value is
// ready to use; it is safe for concurrent use.
type Listings struct {
	mu   sync.Mutex
	kept map[string]listing
}

type listing struct {
	dev, ino     uint64
	ctime, mtime syscall.Timespec
	ents         []fs.DirEntry
}

// A folder's times are stamped from a clock that advances by ticks (1 to
// 10 ms), so a change made in the tick a listing was read in may leave
// them as they were. A listing is kept only when its folder last changed
// more than settleTime before the stat that preceded it: any later
// change then stamps a different time.
const settleTime = 100 * time.Millisecond

// Listings are kept for at most maxListings folders of at most
// maxListed entries each; past that the map starts again. A walk's look
// for secrets lists up to 2,048 folders (policy/command, treeSecrets):
// such a tree stays kept.
const (
	maxListings = 4096
	maxListed   = 4096
)

// ReadDir is ReadDir of dir, from the kept listing when the folder has not
// changed since it was read. The entries are shared: callers only read
// them. A nil l lists every time.
func (l *Listings) ReadDir(dir string) ([]fs.DirEntry, error) {
	if l == nil {
		return ReadDir(dir)
	}
	now := time.Now() // before the stat: see settleTime
	var st syscall.Stat_t
	if err := StatPath(dir, &st, true); err != nil {
		return ReadDir(dir) // its error, as the listing would give it
	}
	l.mu.Lock()
	k, ok := l.kept[dir]
	l.mu.Unlock()
	if ok && k.dev == uint64(st.Dev) && k.ino == uint64(st.Ino) && k.ctime == st.Ctim && k.mtime == st.Mtim {
		return k.ents, nil
	}
	ents, err := ReadDir(dir)
	if err != nil || len(ents) > maxListed || !settled(st, now) {
		return ents, err
	}
	l.mu.Lock()
	if l.kept == nil || len(l.kept) >= maxListings {
		l.kept = make(map[string]listing)
	}
	l.kept[dir] = listing{dev: uint64(st.Dev), ino: uint64(st.Ino), ctime: st.Ctim, mtime: st.Mtim, ents: ents}
	l.mu.Unlock()
	return ents, nil
}

// settled reports whether the folder stat describes last changed more
// than settleTime before now (a time taken before the stat).
func settled(st syscall.Stat_t, now time.Time) bool {
	return st.Ctim.Nano() < now.Add(-settleTime).UnixNano()
}
