package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// An admit killed during a run of code (SIGKILL, a crash, the machine's
// OOM killer) cannot remove the empties it made in the person's roots.
// So each run records them first, outside the workspace, in a file of
// its own in admit's state folder ("placeholders", 0700), which it holds
// locked (flock) while it runs and removes when it has removed them. The
// kernel lets go of a lock when its process ends, however it ends: a
// record nobody holds is a dead admit's, and the next run removes each
// empty it names that is still the folder admit made (same device, inode
// and birth time; where admit was killed before it knew them, a folder
// born after the record) and still empty (rmdir refuses any other), then
// the record. Nothing in the workspace can name a record: the run cannot
// write the state folder.

// ledgerPrefix and ledgerSuffix frame a record's name.
const ledgerPrefix, ledgerSuffix = "run-", ".json"

// ledger is one run's record, held locked.
type ledger struct {
	f     *os.File
	since time.Time
}

// ledgerRecord is a record's contents.
type ledgerRecord struct {
	Since   time.Time     `json:"since"`
	Entries []ledgerEntry `json:"placeholders"`
}

type ledgerEntry struct {
	Root string    `json:"root"`
	Name string    `json:"name"`
	ID   *folderID `json:"id,omitempty"` // nil: about to be made
}

// MarshalJSON and UnmarshalJSON keep folderID's fields unexported.
func (id folderID) MarshalJSON() ([]byte, error) {
	return json.Marshal([5]int64{int64(id.devMajor), int64(id.devMinor), int64(id.ino), id.birth.Sec, int64(id.birth.Nsec)})
}

func (id *folderID) UnmarshalJSON(b []byte) error {
	var v [5]int64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*id = folderID{devMajor: uint32(v[0]), devMinor: uint32(v[1]), ino: uint64(v[2]),
		birth: unix.StatxTimestamp{Sec: v[3], Nsec: uint32(v[4])}, dir: true}
	return nil
}

// openLedger removes what dead admits left (sweepLedgers) and starts this
// run's record in dir.
func openLedger(dir string) (*ledger, error) {
	var f *os.File
	for try := 0; ; try++ {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("the record of placeholders: %w", err)
		}
		var st unix.Stat_t
		if err := unix.Lstat(dir, &st); err != nil {
			return nil, fmt.Errorf("the record of placeholders: %w", err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o022 != 0 {
			return nil, fmt.Errorf("the record of placeholders: %s is not a folder only this user can write", dir)
		}
		sweepLedgers(dir)
		var err error
		f, err = os.CreateTemp(dir, ledgerPrefix+"*"+ledgerSuffix)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || try == 2 {
			return nil, fmt.Errorf("the record of placeholders: %w", err)
		}
		// Another run's close removed the folder, empty, meanwhile.
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		os.Remove(f.Name())
		f.Close()
		return nil, fmt.Errorf("the record of placeholders: lock: %w", err)
	}
	return &ledger{f: f, since: time.Now()}, nil
}

// write records ps, in place of what the record held. The new contents
// are written over the old before the rest is cut: a record cut short by
// a kill still begins with a whole one (the reader reads one value).
func (l *ledger) write(ps []placeholder) error {
	rec := ledgerRecord{Since: l.since}
	for _, p := range ps {
		e := ledgerEntry{Root: p.root, Name: p.name}
		if p.id != (folderID{}) {
			id := p.id
			e.ID = &id
		}
		rec.Entries = append(rec.Entries, e)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := l.f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("the record of placeholders: %w", err)
	}
	return l.f.Truncate(int64(len(b)))
}

// close removes the record (while it is still held), then lets it go.
func (l *ledger) close() {
	if l == nil {
		return
	}
	os.Remove(l.f.Name())
	l.f.Close()
	// The folder goes with the last record (rmdir: not while another
	// run's is in it), so admit leaves nothing in its state but the tape.
	os.Remove(filepath.Dir(l.f.Name()))
}

// sweepLedgers removes the empties of every record in dir that no living
// admit holds, and the record.
func sweepLedgers(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, ledgerPrefix) || !strings.HasSuffix(name, ledgerSuffix) {
			continue
		}
		sweepLedger(filepath.Join(dir, name))
	}
}

func sweepLedger(path string) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return // its admit is running
	}
	var rec ledgerRecord
	if err := json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&rec); err == nil {
		for _, e := range rec.Entries {
			removeLeftover(e, rec.Since)
		}
	}
	os.Remove(path)
}

// removeLeftover removes the empty a record names if it is still the
// folder admit made, and still empty.
func removeLeftover(e ledgerEntry, since time.Time) {
	if !filepath.IsAbs(e.Root) || e.Name == "" || strings.ContainsRune(e.Name, '/') || e.Name == "." || e.Name == ".." {
		return
	}
	fd, err := unix.Open(e.Root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	id, err := idAt(fd, e.Name)
	if err != nil || !id.dir {
		return
	}
	switch {
	case e.ID != nil && id != *e.ID:
		return // another folder stands there: the person's
	case e.ID == nil && (id.birth == unix.StatxTimestamp{} || bornBefore(id.birth, since)):
		return // not known to be admit's
	}
	// rmdir refuses a folder written into: it is the person's then.
	_ = unix.Unlinkat(fd, e.Name, unix.AT_REMOVEDIR)
}

// bornBefore: a birth time before t, less a tick of the file system's
// coarse clock.
func bornBefore(b unix.StatxTimestamp, t time.Time) bool {
	return time.Unix(b.Sec, int64(b.Nsec)).Before(t.Add(-10 * time.Millisecond))
}

// othersEmpties are the empties that the records in dir other than self
// name (runs going on: the dead ones' were swept), by path, with the
// identity each was made with. Another run removes its own when it ends,
// which takes them from this run's view too (a mount on a folder removed
// in another namespace is detached), so this run must not take what then
// stands there for what its walk found.
func othersEmpties(dir string, self *ledger) map[string]folderID {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]folderID{}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasPrefix(e.Name(), ledgerPrefix) || self != nil && path == self.f.Name() {
			continue
		}
		f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		var rec ledgerRecord
		err = json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&rec)
		f.Close()
		if err != nil {
			continue
		}
		for _, en := range rec.Entries {
			if en.ID != nil {
				out[filepath.Join(en.Root, en.Name)] = *en.ID
			}
		}
	}
	return out
}

// SweepLeftovers removes the empties that admits killed during a run of
// code left (records nobody holds) in the state folder stateDir ("" is
// admit's own, Spec.StateDir): a server calls it when it starts, so they
// do not wait for the next run of code.
func SweepLeftovers(stateDir string) {
	if stateDir == "" {
		stateDir = defaultStateDir()
	}
	if stateDir != "" {
		dir := filepath.Join(stateDir, "placeholders")
		sweepLedgers(dir)
		os.Remove(dir) // rmdir: only when no record is left in it
	}
}
