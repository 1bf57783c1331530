package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCaptureTellsWhatARunChanged: files added, changed and removed while
// a capture ran come back as such; a file made and removed in between is
// no change; nothing before the capture counts.
func TestCaptureTellsWhatARunChanged(t *testing.T) {
	root := tempRoot(t)
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old.txt", "old\n")
	write("gone.txt", "x\n")
	w, _ := startWatcher(t, mustRoots(t, root), WatchOptions{})
	write("before.txt", "made before the capture\n")
	c := w.Capture(context.Background())
	write("new/made.txt", "new\n")
	write("old.txt", "changed\n")
	if err := os.Remove(filepath.Join(root, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	write("tmp.txt", "temporary\n")
	if err := os.Remove(filepath.Join(root, "tmp.txt")); err != nil {
		t.Fatal(err)
	}
	d := c.Stop(context.Background())
	if !d.Complete || !slices.Contains(d.Added, filepath.Join(root, "new", "made.txt")) ||
		!slices.Equal(d.Changed, []string{filepath.Join(root, "old.txt")}) ||
		!slices.Equal(d.Removed, []string{filepath.Join(root, "gone.txt")}) {
		t.Fatalf("%+v", d)
	}
	for _, list := range [][]string{d.Added, d.Changed, d.Removed} {
		if slices.Contains(list, filepath.Join(root, "before.txt")) || slices.Contains(list, filepath.Join(root, "tmp.txt")) {
			t.Fatalf("a change outside the capture, or a temporary file: %+v", d)
		}
	}
}
