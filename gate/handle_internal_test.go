package gate

import (
	"errors"
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
