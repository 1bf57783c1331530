package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHandleFileStoreRefusesWithoutTaking: in a handle folder (a hook
// deciding alone), a claim refused for the caller (another session)
// leaves the handle; the accepted claim takes it, once.
func TestHandleFileStoreRefusesWithoutTaking(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		s := NewHandleStore(dir)
		h := Handle{ID: newHandleID(), Session: "s1", Command: "true", Cwd: "/", Deadline: time.Now().Add(time.Minute)}
		if err := s.put(h); err != nil {
			t.Fatal(err)
		}
		wrong := errors.New("wrong session")
		if _, err := s.takeIf(h.ID, func(Handle) error { return wrong }); !errors.Is(err, wrong) {
			t.Fatalf("store %q: refused claim: %v", dir, err)
		}
		got, err := s.takeIf(h.ID, func(x Handle) error { return nil })
		if err != nil || got.Session != "s1" {
			t.Fatalf("store %q: the handle went with the refused claim: %v", dir, err)
		}
		if _, err := s.take(h.ID); !errors.Is(err, ErrNoHandle) {
			t.Fatalf("store %q: taken twice: %v", dir, err)
		}
	}
}

// TestHandleFileOneTaker: redeemers racing for one handle in a folder
// store (each its own open file, as processes have): exactly one has it.
func TestHandleFileOneTaker(t *testing.T) {
	s := NewHandleStore(t.TempDir())
	for round := range 20 {
		h := Handle{ID: newHandleID(), Session: "s", Command: "true", Cwd: "/", Deadline: time.Now().Add(time.Minute)}
		if err := s.put(h); err != nil {
			t.Fatal(err)
		}
		var won atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if _, err := s.take(h.ID); err == nil {
					won.Add(1)
				} else if !errors.Is(err, ErrNoHandle) {
					t.Errorf("round %d: %v", round, err)
				}
			})
		}
		wg.Wait()
		if n := won.Load(); n != 1 {
			t.Fatalf("round %d: %d redeemers had the handle", round, n)
		}
	}
}

// TestHandleFileCompacts: past compactAt the file is written again with
// only the handles still to be taken; a line a writer left unfinished
// stands apart from the next; a handle file that is a symlink is refused.
func TestHandleFileCompacts(t *testing.T) {
	dir := t.TempDir()
	s := NewHandleStore(dir)
	path := filepath.Join(dir, handleFile)
	var keep Handle
	var grown int64
	keepLive := false
	for i := 0; ; i++ {
		h := Handle{ID: newHandleID(), Session: "s", Command: strings.Repeat("x", 200), Cwd: "/", Deadline: time.Now().Add(-time.Second)}
		if i%10 == 0 {
			h.Deadline = time.Now().Add(time.Hour)
			keep = h
		}
		if err := s.put(h); err != nil {
			t.Fatal(err)
		}
		if i%10 == 5 {
			if _, err := s.take(keep.ID); err != nil {
				t.Fatal(err)
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() < grown {
			if fi.Size() > 1024 {
				t.Fatalf("compacted to %d bytes, more than the one handle still to be taken", fi.Size())
			}
			keepLive = i%10 < 5
			break
		}
		grown = fi.Size()
		if i > 2*compactAt/200 {
			t.Fatalf("the file grew to %d bytes without being compacted", fi.Size())
		}
	}
	// The handle put last at a multiple of ten is taken five puts later:
	// the compaction kept it only if that had not come yet.
	if _, ok := s.Peek(keep.ID); ok != keepLive {
		t.Fatalf("after the compaction the kept handle is there: %v, want %v", ok, keepLive)
	}
	// A writer died mid-line; the next handle is still whole.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"h0000`)
	f.Close()
	h := Handle{ID: newHandleID(), Session: "s", Command: "true", Cwd: "/", Deadline: time.Now().Add(time.Minute)}
	if err := s.put(h); err != nil {
		t.Fatal(err)
	}
	if got, err := s.take(h.ID); err != nil || got.Command != "true" {
		t.Fatalf("after a torn line: %+v, %v", got, err)
	}
	// A symlink in the file's place is not followed.
	other := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(other, nil, 0o600)
	os.Remove(path)
	if err := os.Symlink(other, path); err != nil {
		t.Skip(err)
	}
	if err := s.put(h); err == nil {
		t.Fatal("a handle was written through a symlink")
	}
	if data, _ := os.ReadFile(other); len(data) != 0 {
		t.Fatalf("the symlink's target was written: %q", data)
	}
}
