package gate

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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
// editor's server (admit run redeems through its socket), or as files in
// a folder only the person can enter for a gate deciding alone (admit run
// is another process then).
type HandleStore struct {
	dir string // "" keeps them in memory

	// mu guards mem.
	mu  sync.Mutex
	mem map[string]Handle
}

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

// Holds reports whether the store's folder holds the handle id (a file
// store only): admit run redeems it here, not through a server.
func (s *HandleStore) Holds(id string) bool {
	if s == nil || s.dir == "" || !validHandleID(id) {
		return false
	}
	_, err := os.Lstat(filepath.Join(s.dir, id))
	return err == nil
}

// Peek reads a handle held in the store's folder without taking it: where
// it was judged and on which tape, for the gate that will redeem it (that
// folder's workspace must be one of its roots). ok is false when the
// folder holds no such handle.
func (s *HandleStore) Peek(id string) (h Handle, ok bool) {
	if !s.Holds(id) {
		return Handle{}, false
	}
	data, err := os.ReadFile(filepath.Join(s.dir, id))
	if err != nil || json.Unmarshal(data, &h) != nil || h.ID != id {
		return Handle{}, false
	}
	return h, true
}

func (s *HandleStore) put(h Handle) error {
	if s.dir == "" {
		s.mu.Lock()
		s.mem[h.ID] = h
		s.mu.Unlock()
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("handles: %w", err)
	}
	data, _ := json.Marshal(h)
	f, err := os.OpenFile(filepath.Join(s.dir, h.ID), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("handles: %w", err)
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("handles: %w", err)
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
	// The file is read and judged before it is claimed; the claim (a
	// rename: of two redeemers, one renames and the other finds nothing)
	// must then hold the same bytes, or it is put back and refused.
	path := filepath.Join(s.dir, id)
	peeked, err := os.ReadFile(path)
	if err != nil {
		return Handle{}, ErrNoHandle
	}
	var h Handle
	if err := json.Unmarshal(peeked, &h); err != nil || h.ID != id {
		return Handle{}, fmt.Errorf("handles: %s is not a handle admit wrote", id)
	}
	if err := accept(h); err != nil {
		return Handle{}, err
	}
	claimed := path + ".taken"
	if err := os.Rename(path, claimed); err != nil {
		return Handle{}, ErrNoHandle
	}
	defer os.Remove(claimed)
	data, err := os.ReadFile(claimed)
	if err != nil {
		return Handle{}, fmt.Errorf("handles: %w", err)
	}
	if !bytes.Equal(data, peeked) {
		return Handle{}, fmt.Errorf("handles: %s changed while it was redeemed", id)
	}
	return h, nil
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
