//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// Resolve reports what the final path is: its type and permission bits
// and its hard links, through links and "..", for the checks of FIFOs
// and shared files.
func TestResolveModeAndLinks(t *testing.T) {
	root := tempRoot(t)
	out := tempRoot(t)
	writeFile(t, root+"/f.txt", "x")
	writeFile(t, out+"/store.js", "x")
	if err := os.Link(out+"/store.js", root+"/shared.js"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(root+"/pipe", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root+"/f.txt", 0o750); err != nil {
		t.Fatal(err)
	}
	mkdirAll(t, root+"/d")
	symlink(t, "pipe", root+"/topipe")
	symlink(t, "f.txt", root+"/d/../tof")
	r := NewResolver(mustRoots(t, root))
	cases := []struct {
		in    string
		mode  fs.FileMode
		links uint64
	}{
		{root + "/f.txt", 0o750, 1},
		{root + "/tof", 0o750, 1},
		{root + "/shared.js", 0o644, 2},
		{root + "/pipe", fs.ModeNamedPipe | 0o600, 1},
		{root + "/topipe", fs.ModeNamedPipe | 0o600, 1},
		{root + "/d/..", fs.ModeDir, 0}, // links of a folder vary: only the type is checked
		{root + "/nothere", 0, 0},
	}
	for _, c := range cases {
		got, err := r.Resolve(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		mode := got.Mode
		if c.mode&fs.ModeDir != 0 {
			mode &= fs.ModeType
		} else if c.mode.Type() == 0 && got.Exists {
			mode &= fs.ModePerm | fs.ModeType
		}
		if mode != c.mode || c.mode&fs.ModeDir == 0 && got.Links != c.links {
			t.Errorf("%s: mode %v, links %d; want %v, %d", c.in, got.Mode, got.Links, c.mode, c.links)
		}
	}
	if got, _ := r.Resolve(root + "/shared.js"); got.Regular() != true || got.Typed() != true {
		t.Errorf("shared.js: Regular %v, Typed %v", got.Regular(), got.Typed())
	}
}
