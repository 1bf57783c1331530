package workspace

import (
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"admit/policy/command"
)

// DefaultMaxObservations bounds one session's observations (files and
// folders together). An agent session reads hundreds of files, rarely
// thousands; 100k entries cost about 20 MB at worst and keep a runaway
// session from growing without end. Past the bound the oldest entry is
// dropped, so its path becomes Unobserved again (a write to it is refused
// until it is read again: the bound fails closed).
const DefaultMaxObservations = 100_000

// racyWindow: file times come from a coarse clock (one kernel tick, up to
// 10 ms; more on some file systems), so a same-size write within a tick of
// the recorded state can leave size, times and inode all equal. An entry
// whose file times are this close to the moment it was recorded is
// "racily clean", as git calls it, and is also compared by content hash.
const racyWindow = 100 * time.Millisecond

// maxRacyHashBytes bounds the content hashed for a racily clean entry;
// larger files are compared by state only.
const maxRacyHashBytes = 4 << 20

// fileState is what a file looked like when it was observed. A file that
// did not exist is recorded too (absent), so that "it is still not there"
// can be told from "someone created it".
type fileState struct {
	absent bool
	size   int64
	mode   fs.FileMode
	mtime  time.Time
	ctime  time.Time // inode change time: any write or rename-over moves it
	dev    uint64
	ino    uint64
}

// racy reports whether the file times are too close to now to tell a
// later same-size write apart.
func (s fileState) racy(now time.Time) bool {
	return !s.absent && (now.Sub(s.mtime) < racyWindow || now.Sub(s.ctime) < racyWindow)
}

// unchanged reports whether path still has the recorded state and, for a
// racily clean entry with a hash, the recorded content.
func unchanged(path string, rec fileState, racy bool, hash string) bool {
	now, err := statNow(path)
	if err != nil || !now.equal(rec) {
		return false
	}
	if racy && hash != "" && rec.mode.IsRegular() && rec.size <= maxRacyHashBytes {
		_, h, err := ReadFile(path, maxRacyHashBytes)
		return err == nil && h == hash
	}
	return true
}

func (s fileState) equal(o fileState) bool {
	return s.absent == o.absent && s.size == o.size && s.mode == o.mode &&
		s.mtime.Equal(o.mtime) && s.ctime.Equal(o.ctime) && s.dev == o.dev && s.ino == o.ino
}

// observation is one recorded path.
type observation struct {
	seq   uint64 // insertion order, for dropping the oldest
	dir   bool   // a listed folder (RecordDir), not a read file
	state fileState
	hash  string // sha256 hex of the content read, "" when unknown
	stale bool   // MarkChanged saw a change: stays stale until recorded again
	racy  bool   // file times within racyWindow of recording: compare hash too
}

// Observations is what one session's agent has seen: files it read, with
// their state then, and folders it listed. It implements
// command.Observations and is safe for concurrent use.
//
// File checks the file's current state (lstat: size, permissions,
// modification and change times, device and inode) against the recorded
// one each time it is asked (and, for a file recorded within racyWindow of
// its last change, its content hash, since file times are coarse), so a change by anyone else is noticed at
// decide time whether or not a watcher runs; MarkChanged only makes the
// staleness stick early. A listed folder answers Dir, and lets a session
// create new files in it; it never makes an existing file Observed, and a
// listing does not go stale. Paths are resolved and absolute.
type Observations struct {
	max int

	// mu guards seq, entries and order.
	mu      sync.Mutex
	seq     uint64
	entries map[string]*observation
	// order holds paths in insertion order, with the seq they were
	// inserted with; an element whose seq no longer matches its entry is
	// dead and skipped when dropping.
	order []orderItem
}

type orderItem struct {
	path string
	seq  uint64
}

var _ command.Observations = (*Observations)(nil)

// NewObservations returns an empty record holding at most max entries
// (DefaultMaxObservations when max <= 0).
func NewObservations(max int) *Observations {
	if max <= 0 {
		max = DefaultMaxObservations
	}
	return &Observations{max: max, entries: make(map[string]*observation)}
}

// RecordFile records that the agent read path, with its state now. A path
// that does not exist is recorded as absent. An error is returned only
// when the state cannot be read (nothing is recorded then).
func (o *Observations) RecordFile(path string) error {
	return o.record(filepath.Clean(path), false, "")
}

// RecordFileHash records a read of path whose content hashed to hash
// (HashBytes), with its state now. Callers should stat after reading: the
// state recorded must not be newer than the bytes hashed, so read, then
// record, then compare again at decide time.
func (o *Observations) RecordFileHash(path, hash string) error {
	return o.record(filepath.Clean(path), false, hash)
}

// RecordDir records that the agent listed the folder path.
func (o *Observations) RecordDir(path string) {
	_ = o.record(filepath.Clean(path), true, "")
}

// RecordResolved records a read of r.Path with the state r's resolution
// saw of it (command.Resolved.Seen), a moment ago: the file is stat'ed
// once per decision. Without a stamp it is RecordFile.
func (o *Observations) RecordResolved(r command.Resolved) error {
	switch {
	case !r.Exists:
		return o.recordState(r.Path, fileState{absent: true}, "")
	case !r.Seen.Known():
		return o.RecordFile(r.Path)
	}
	s := r.Seen
	return o.recordState(r.Path, fileState{size: s.Size, mode: r.Mode, mtime: time.Unix(0, s.Mtime), ctime: time.Unix(0, s.Ctime), dev: s.Dev, ino: s.Ino}, "")
}

func (o *Observations) record(path string, dir bool, hash string) error {
	if dir {
		o.keep(path, true, fileState{}, "", false)
		return nil
	}
	st, err := statNow(path)
	if err != nil {
		return err
	}
	return o.recordState(path, st, hash)
}

// recordState records a read of path in state st; a file changed too
// recently for its times to tell a later same-size write apart is hashed.
func (o *Observations) recordState(path string, st fileState, hash string) error {
	racy := st.racy(time.Now())
	if racy && hash == "" && st.mode.IsRegular() && st.size <= maxRacyHashBytes {
		if _, h, err := ReadFile(path, maxRacyHashBytes); err == nil {
			hash = h
		}
	}
	o.keep(path, false, st, hash, racy)
	return nil
}

// keep puts one observation, the newest of its path.
func (o *Observations) keep(path string, dir bool, st fileState, hash string, racy bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seq++
	key := path
	if dir {
		key = dirKey(path)
	}
	obs := observation{seq: o.seq, dir: dir, state: st, hash: hash, racy: racy}
	// A path recorded again while it is still the newest (an agent reading
	// one file over and over) is updated where it stands.
	if n := len(o.order); n > 0 && o.order[n-1].path == key {
		if e, ok := o.entries[key]; ok && e.seq == o.order[n-1].seq {
			*e, o.order[n-1].seq = obs, o.seq
			return
		}
	}
	o.entries[key] = &obs
	o.order = append(o.order, orderItem{key, o.seq})
	o.trim()
}

// dirKey keeps folder listings apart from file reads of the same path.
func dirKey(path string) string { return "\x00" + path }

// trim drops the oldest entries past the bound and compacts order.
func (o *Observations) trim() {
	for len(o.entries) > o.max && len(o.order) > 0 {
		it := o.order[0]
		o.order = o.order[1:]
		if e, ok := o.entries[it.path]; ok && e.seq == it.seq {
			delete(o.entries, it.path)
		}
	}
	// Dead items accumulate when paths are recorded again; rebuild order
	// when it is twice the size it needs.
	if len(o.order) > 2*len(o.entries)+64 {
		live := make([]orderItem, 0, len(o.entries))
		for _, it := range o.order {
			if e, ok := o.entries[it.path]; ok && e.seq == it.seq {
				live = append(live, it)
			}
		}
		o.order = live
	}
}

// File reports whether the agent read path and whether it is unchanged
// since: Observed, Stale (changed, removed, created or replaced since, or
// marked changed by the watcher) or Unobserved. It lstats path now.
func (o *Observations) File(path string) command.ObsState {
	path = filepath.Clean(path)
	o.mu.Lock()
	e, ok := o.entries[path]
	var (
		rec         fileState
		stale, racy bool
		hash        string
	)
	if ok {
		rec, stale, racy, hash = e.state, e.stale, e.racy, e.hash
	}
	o.mu.Unlock()
	if !ok {
		return command.Unobserved
	}
	if stale || !unchanged(path, rec, racy, hash) {
		return command.Stale
	}
	return command.Observed
}

// Dir reports whether the agent listed the folder path.
func (o *Observations) Dir(path string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.entries[dirKey(filepath.Clean(path))]
	return ok
}

// Hash returns the content hash recorded for path by RecordFileHash, and
// whether there is one.
func (o *Observations) Hash(path string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, ok := o.entries[filepath.Clean(path)]
	if !ok || e.hash == "" {
		return "", false
	}
	return e.hash, true
}

// MarkChanged is how the watcher pushes staleness early: for each path
// recorded as read whose current state differs from the recorded one, the
// observation becomes Stale and stays so until recorded again, even if
// the file is later put back as it was. An event for a state already
// recorded (the session's own write through admit, recorded after it) is
// ignored, so the session's own writes do not make its observations stale.
func (o *Observations) MarkChanged(paths ...string) {
	for _, p := range paths {
		p = filepath.Clean(p)
		o.mu.Lock()
		e, ok := o.entries[p]
		var (
			rec  fileState
			seq  uint64
			racy bool
			hash string
		)
		if ok {
			rec, seq, racy, hash = e.state, e.seq, e.racy, e.hash
		}
		o.mu.Unlock()
		if !ok || unchanged(p, rec, racy, hash) {
			continue
		}
		o.mu.Lock()
		if e, ok := o.entries[p]; ok && e.seq == seq {
			e.stale = true
		}
		o.mu.Unlock()
	}
}

// Forget drops what was recorded for path, as a read file and as a listed
// folder.
func (o *Observations) Forget(path string) {
	path = filepath.Clean(path)
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.entries, path)
	delete(o.entries, dirKey(path))
}

// Len returns the number of entries held.
func (o *Observations) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.entries)
}

// Stamp identifies one version of a file without reading it: size,
// modification and inode-change times, device and inode. Any write, or a
// rename over the path, changes it.
type Stamp struct {
	Size         int64
	Mtime, Ctime int64 // UnixNano
	Dev, Ino     uint64
}
