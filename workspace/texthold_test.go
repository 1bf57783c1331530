//go:build unix

package workspace

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMayHold: a small ASCII file is looked through for the words in any
// case; anything the gate cannot read as such text may hold them.
func TestMayHold(t *testing.T) {
	root := tempRoot(t)
	outside := tempRoot(t)
	ws := filepath.Join(root, "ws")
	mkdirAll(t, ws)
	r := NewResolver(mustRoots(t, ws))
	file := func(name, content string) string {
		p := filepath.Join(ws, name)
		writeFile(t, p, content)
		return p
	}
	writeFile(t, filepath.Join(outside, "o.env"), "nothing\n")
	symlink(t, filepath.Join(ws, "a.env"), filepath.Join(ws, "link.env"))
	fifo := filepath.Join(ws, "fifo.env")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		words []string
		want  bool
	}{
		{file("a.env", "DATABASE_URL=postgres://u:p@h/db\n"), []string{"todo"}, false},
		{filepath.Join(ws, "a.env"), []string{"database_url"}, true},
		{filepath.Join(ws, "a.env"), []string{"todo", "postgres"}, true},
		{file("crlf.env", "A=1\t# x\r\nB=2\r\n"), []string{"todo"}, false},
		{file("split.env", "A=1\t# To\r\ndo\r\n"), []string{"todo"}, false}, // a line ends at the newline
		{file("utf16.env", "T\x00O\x00D\x00O\x00\n"), []string{"todo"}, true},
		{file("kelvin.env", "\u212Aey=1\n"), []string{"key"}, true}, // rg -i folds the Kelvin sign to k
		{file("big.env", strings.Repeat("x", maxHeldBytes+1)), []string{"todo"}, true},
		{filepath.Join(ws, "link.env"), []string{"todo"}, true}, // a link is not followed
		{fifo, []string{"todo"}, true},
		{filepath.Join(ws, "missing.env"), []string{"todo"}, true},
		{filepath.Join(outside, "o.env"), []string{"todo"}, true},
	} {
		if got := r.MayHold(c.path, c.words); got != c.want {
			t.Errorf("MayHold(%s, %q) = %v, want %v", filepath.Base(c.path), c.words, got, c.want)
		}
	}
}
