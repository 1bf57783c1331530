//go:build unix

package gate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestApplyEdits: the file an edit leaves is worked out as the edit
// tools do it, or not at all: never a guess for an edit that would fail,
// a file too large, a FIFO (which would hold the question up) or a link.
func TestApplyEdits(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(f, []byte("one two two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edits []textEdit
		want  string
		ok    bool
	}{
		{[]textEdit{{Old: "one", New: "1"}}, "1 two two\n", true},
		{[]textEdit{{Old: "two", New: "2", All: true}}, "one 2 2\n", true},
		{[]textEdit{{Old: "one", New: "two"}, {Old: "two", New: "x", All: true}}, "x x x\n", true},
		{[]textEdit{{Old: "two", New: "2"}}, "", false}, // twice, not replace-all: the tool refuses
		{[]textEdit{{Old: "three", New: "3"}}, "", false},
		{[]textEdit{{Old: "", New: "x"}}, "", false},
		{[]textEdit{{Old: "one", New: strings.Repeat("x", maxProposed)}}, "", false},
	} {
		got, ok := applyEdits(f, c.edits)
		if got != c.want || ok != c.ok {
			t.Errorf("%+v: %q %v, want %q %v", c.edits, got, ok, c.want, c.ok)
		}
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("a", maxProposed+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(f, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{big, link, fifo, filepath.Join(dir, "none")} {
		if got, ok := applyEdits(p, []textEdit{{Old: "a", New: "b"}}); ok {
			t.Errorf("%s: %q", p, got)
		}
	}
}
