package gate

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"admit/internal/sysfile"
	"admit/policy/rule"
)

// A host that lets a hook rewrite a call before it runs is answered, for an
// allowed shell call, with `admit run --handle H` in place of the line: the
// host's shell then runs admit, not the line again (which it would parse
// and expand once more, in a shell the gate did not model). The handle
// names the judged line; admit run redeems it once, runs the line itself
// with its rechecks, confined, and tapes the outcome.

// handleTTL is how long a handle stands: long enough for a host to run the
// call it was given for, after its own prompt if it has one, and short
// enough that a handle found later (in a log, a transcript) is worthless.
const handleTTL = 10 * time.Minute

// Handle is one judged shell call, waiting to be run by admit run.
type Handle struct {
	ID       string    `json:"id"`
	Session  string    `json:"session"`
	Command  string    `json:"command,omitempty"`
	Argv     []string  `json:"argv,omitempty"`
	Cwd      string    `json:"cwd"`
	Decision string    `json:"decision"` // the id of the decision that judged it
	Deadline time.Time `json:"deadline"`
	// Tape is the tape the decision went on, so that the run's outcome
	// goes on the same one.
	Tape string `json:"tape,omitempty"`
	// Approved is the question a person answered yes to for this call
	// (the rule that asked), when one was: the run that redeems the
	// handle is not asked the same question again.
	Approved rule.Rule `json:"approved,omitempty"`
}

// HandleStore keeps the handles a gate gave out: in memory for the
// editor's server (admit run redeems through its socket), or in a file in
// a folder only the person can enter for a gate deciding alone (admit run
// is another process then).
//
// The file, handles.jsonl, holds a line per handle given out and a line
// {"taken":ID} per handle taken, each appended under an exclusive flock
// on it. Giving a handle out is then one small write to a file that
// exists: a new file per handle cost a hook more than its decision on a
// disk (2-3 ms to create a file on this project's ext4 under load, 5 us
// to write one that exists). Taking one reads the file and writes its
// line under the same lock, so of two redeemers one has it. Each
// compactAt of growth, the file is written again without the handles
// taken or expired when they are most of it, to a new file renamed over
// it: a crash leaves the old one.
type HandleStore struct {
	dir string // "" keeps them in memory

	// mu guards mem.
	mu  sync.Mutex
	mem map[string]Handle
}

// handleFile is the file a folder store keeps its handles in.
const handleFile = "handles.jsonl"

// compactAt is how much the handle file grows between two looks at what
// it still needs.
const compactAt = 64 << 10

// NewHandleStore keeps handles in dir, or in memory when dir is "".
func NewHandleStore(dir string) *HandleStore {
	return &HandleStore{dir: dir, mem: map[string]Handle{}}
}

// DefaultHandleDir is $XDG_RUNTIME_DIR/admit/handles, else the state
// folder's admit/handles: the person's, and gone at logout where the
// runtime folder is.
func DefaultHandleDir() (string, error) {
	if dir := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "admit", "handles"), nil
	}
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no folder for handles: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "admit", "handles"), nil
}

// ErrNoHandle is a handle that was never given out, was redeemed already,
// or has expired.
var ErrNoHandle = errors.New("gate: no such handle (never given out, already run, or expired)")

// newHandleID is 128 random bits: a handle is a capability, not a name.
func newHandleID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "h" + hex.EncodeToString(b[:])
}

func validHandleID(id string) bool {
	if len(id) != 33 || id[0] != 'h' {
		return false
	}
	for i := 1; i < len(id); i++ {
		if !('0' <= id[i] && id[i] <= '9' || 'a' <= id[i] && id[i] <= 'f') {
			return false
		}
	}
	return true
}

// Peek reads a handle held in the store's folder without taking it: where
// it was judged and on which tape, for the gate that will redeem it (that
// folder's workspace must be one of its roots). ok is false when the
// folder holds no such handle.
func (s *HandleStore) Peek(id string) (h Handle, ok bool) {
	if s == nil || s.dir == "" || !validHandleID(id) {
		return Handle{}, false
	}
	f, err := s.openFile(false)
	if err != nil {
		return Handle{}, false
	}
	defer f.Close()
	live, _, err := readHandles(f)
	h, ok = live[id]
	return h, ok && err == nil
}

func (s *HandleStore) put(h Handle) error {
	if s.dir == "" {
		s.mu.Lock()
		s.mem[h.ID] = h
		s.mu.Unlock()
		return nil
	}
	f, err := s.openFile(true)
	if err != nil {
		return fmt.Errorf("handles: %w", err)
	}
	defer f.Close()
	line, _ := json.Marshal(h)
	size, err := appendHandleLine(f, line)
	if err != nil {
		return fmt.Errorf("handles: %w", err)
	}
	if size/compactAt != (size-int64(len(line)))/compactAt {
		s.compact(f, time.Now()) // each compactAt of growth, once
	}
	return nil
}

// take claims the handle: whoever takes it first has it, and nobody after.
func (s *HandleStore) take(id string) (Handle, error) {
	return s.takeIf(id, nil)
}

// takeIf claims the handle only if accept (nil: any) lets the caller have
// it: a handle refused to one caller (another session) is still there for
// the one it was given to, so an attempt by the wrong session cannot use
// it up.
func (s *HandleStore) takeIf(id string, accept func(Handle) error) (Handle, error) {
	if !validHandleID(id) {
		return Handle{}, ErrNoHandle
	}
	if accept == nil {
		accept = func(Handle) error { return nil }
	}
	if s.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		h, ok := s.mem[id]
		if !ok {
			return Handle{}, ErrNoHandle
		}
		if err := accept(h); err != nil {
			return Handle{}, err
		}
		delete(s.mem, id)
		return h, nil
	}
	f, err := s.openFile(false)
	if err != nil {
		return Handle{}, ErrNoHandle
	}
	defer f.Close()
	live, _, err := readHandles(f)
	if err != nil {
		return Handle{}, fmt.Errorf("handles: %w", err)
	}
	h, ok := live[id]
	if !ok {
		return Handle{}, ErrNoHandle
	}
	if err := accept(h); err != nil {
		return Handle{}, err
	}
	taken, _ := json.Marshal(takenLine{Taken: id})
	if _, err := appendHandleLine(f, taken); err != nil {
		return Handle{}, fmt.Errorf("handles: %w", err)
	}
	return h, nil
}

// takenLine is the handle file's line saying a handle was taken.
type takenLine struct {
	Taken string `json:"taken"`
}

// openFile opens the handle file (creating it and its folder when create
// is set) and takes its lock, making sure the file locked is still the
// one at the path: a compaction may have renamed another over it while
// this one waited. It is never followed through a symlink.
func (s *HandleStore) openFile(create bool) (*os.File, error) {
	path := filepath.Join(s.dir, handleFile)
	flags := os.O_RDWR | os.O_APPEND
	if create {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return nil, err
		}
		flags |= os.O_CREATE
	}
	for range 8 {
		f, err := sysfile.OpenNoFollow(path, flags, 0o600)
		if err != nil {
			return nil, err
		}
		if err := sysfile.Lock(f, true); err != nil {
			f.Close()
			return nil, err
		}
		held, herr := sysfile.FileStat(f)
		now, nerr := sysfile.Lstat(path)
		if herr == nil && nerr == nil && held.Same(now) {
			if !held.Mode.IsRegular() {
				f.Close()
				return nil, fmt.Errorf("%s is not a regular file", path)
			}
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s keeps being replaced", path)
}

// readHandles reads the locked handle file: the handles given out and not
// taken, and the file's size. A line that is not whole (a writer that
// died mid-line) is passed over.
func readHandles(f *os.File) (live map[string]Handle, size int64, err error) {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return nil, 0, err
	}
	live = map[string]Handle{}
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		var rec struct {
			Handle
			Taken string `json:"taken"`
		}
		if len(line) == 0 || json.Unmarshal(line, &rec) != nil {
			continue
		}
		switch {
		case rec.Taken != "":
			delete(live, rec.Taken)
		case validHandleID(rec.ID):
			live[rec.ID] = rec.Handle
		}
	}
	return live, int64(len(data)), nil
}

// appendHandleLine appends line to the locked file, first ending a line a
// writer that died left unfinished, so that this one stands alone, and
// returns the file's size after it.
func appendHandleLine(f *os.File, line []byte) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 0, len(line)+2)
	if size := fi.Size(); size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err == nil && last[0] != '\n' {
			buf = append(buf, '\n')
		}
	}
	buf = append(append(buf, line...), '\n')
	_, err = f.Write(buf)
	return fi.Size() + int64(len(buf)), err
}

// compact writes the locked handle file again without the handles taken
// or expired (put calls it each compactAt of growth): to a new file renamed
// over it, so a crash leaves one or the other whole. It is housekeeping:
// a failure leaves the file as it was.
func (s *HandleStore) compact(f *os.File, now time.Time) {
	live, size, err := readHandles(f)
	if err != nil {
		return
	}
	var out []byte
	for _, h := range live {
		if now.Before(h.Deadline) {
			line, _ := json.Marshal(h)
			out = append(append(out, line...), '\n')
		}
	}
	if int64(len(out)) > size/2 {
		return // mostly handles still to be taken: not worth a new file
	}
	tmp, err := os.CreateTemp(s.dir, ".handles-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(out)
	if errors.Join(werr, tmp.Close()) != nil || os.Rename(tmp.Name(), filepath.Join(s.dir, handleFile)) != nil {
		os.Remove(tmp.Name())
	}
}

// issue gives out a handle for an allowed shell call.
func (g *Gate) issue(d *Decided, p CheckParams, decision string, approved rule.Rule) (string, error) {
	if g.cfg.Handles == nil {
		return "", errors.New("this gate gives out no handles")
	}
	line := p.Command
	if line == "" && len(p.Argv) == 0 {
		line = commandOf(p)
	}
	h := Handle{ID: newHandleID(), Session: d.session.id, Command: line, Argv: p.Argv, Cwd: d.cwd, Decision: decision,
		Deadline: g.cfg.Now().Add(handleTTL), Approved: approved}
	if g.cfg.Tape != nil {
		h.Tape = g.cfg.Tape.Path()
	}
	if err := g.cfg.Handles.put(h); err != nil {
		return "", err
	}
	return h.ID, nil
}

// redeem takes the handle for a run in session ("" is any: the handle's
// own): once, before its deadline, and in the session it was given to.
func (g *Gate) redeem(id, session string) (Handle, error) {
	if g.cfg.Handles == nil {
		return Handle{}, &ParamError{"handle", "this gate gives out no handles"}
	}
	// The wrong session is refused before the handle is taken: it stays
	// for the session it was given to.
	h, err := g.cfg.Handles.takeIf(id, func(h Handle) error {
		if session != "" && session != h.Session {
			return fmt.Errorf("the handle was given to session %q, not %q", h.Session, session)
		}
		return nil
	})
	switch {
	case err != nil:
		return Handle{}, &ParamError{"handle", err.Error()}
	case !g.cfg.Now().Before(h.Deadline):
		return Handle{}, &ParamError{"handle", fmt.Sprintf("the handle expired at %s: the call was judged too long ago; send it again", h.Deadline.Format(time.RFC3339))}
	case strings.TrimSpace(h.Command) == "" && len(h.Argv) == 0:
		return Handle{}, &ParamError{"handle", "the handle names no command"}
	}
	return h, nil
}
