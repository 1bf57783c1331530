package workspace

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	root := tempRoot(t)
	p := root + "/f.txt"
	writeFile(t, p, "0123456789")
	content, hash, err := ReadFile(p, 10)
	if err != nil || string(content) != "0123456789" || hash != HashBytes(content) {
		t.Fatalf("ReadFile = %q %q %v", content, hash, err)
	}
	if _, _, err := ReadFile(p, 9); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "9") {
		t.Errorf("over the bound: %v", err)
	}
	if _, _, err := ReadFile(root, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("folder: %v", err)
	}
	symlink(t, p, root+"/link")
	if _, _, err := ReadFile(root+"/link", 100); !errors.Is(err, ErrSymlink) {
		t.Errorf("symlink: %v", err)
	}
	if _, _, err := ReadFile(root+"/none", 100); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestApplyEdit(t *testing.T) {
	cases := []struct {
		name              string
		content, old, new string
		all               bool
		want              string
		n                 int
		err               error
		errHas            string
	}{
		{"once", "a b c", "b", "B", false, "a B c", 1, nil, ""},
		{"multiline", "x\ny\nz\n", "y\nz", "Y", false, "x\nY\n", 1, nil, ""},
		{"delete", "abc", "b", "", false, "ac", 1, nil, ""},
		{"replace all", "a a a", "a", "b", true, "b b b", 3, nil, ""},
		{"replace all once", "a b", "a", "c", true, "c b", 1, nil, ""},
		{"empty old", "abc", "", "x", false, "", 0, ErrEmptyOldText, ""},
		{"not found", "abc", "zzz", "x", false, "", 0, ErrNoMatch, `"zzz"`},
		{"not found long quotes a prefix", "abc", strings.Repeat("q", 200), "x", false, "", 0, ErrNoMatch, "qqq..."},
		{"ambiguous", "a a", "a", "b", false, "", 0, ErrAmbiguous, "2 times"},
		{"replace all not found", "abc", "z", "y", true, "", 0, ErrNoMatch, ""},
	}
	for _, c := range cases {
		got, n, err := ApplyEdit(c.content, c.old, c.new, c.all)
		if c.err != nil {
			if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("%s: err = %v, want %v containing %q", c.name, err, c.err, c.errHas)
			}
			continue
		}
		if err != nil || got != c.want || n != c.n {
			t.Errorf("%s: = %q, %d, %v; want %q, %d", c.name, got, n, err, c.want, c.n)
		}
	}
}

func TestWriteAtomic(t *testing.T) {
	root := tempRoot(t)
	p := root + "/f.sh"
	writeFile(t, p, "old")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	hash, err := WriteAtomic(p, []byte("new content"))
	if err != nil || hash != HashBytes([]byte("new content")) {
		t.Fatalf("WriteAtomic = %q %v", hash, err)
	}
	data, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(data) != "new content" || fi.Mode().Perm() != 0o755 {
		t.Errorf("after write: %q %v", data, fi.Mode())
	}
	// A new file gets 0644.
	if _, err := WriteAtomic(root+"/new.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(root + "/new.txt"); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode())
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".admit-") {
			t.Errorf("leftover %s", e.Name())
		}
	}
	// A final symlink is refused, and its target is untouched.
	out := tempRoot(t)
	writeFile(t, out+"/victim", "safe")
	symlink(t, out+"/victim", root+"/link")
	if _, err := WriteAtomic(root+"/link", []byte("pwned")); !errors.Is(err, ErrSymlink) {
		t.Errorf("symlink: %v", err)
	}
	if data, _ := os.ReadFile(out + "/victim"); string(data) != "safe" {
		t.Errorf("victim changed: %q", data)
	}
	// A folder is refused.
	mkdirAll(t, root+"/dir")
	if _, err := WriteAtomic(root+"/dir", []byte("x")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("folder: %v", err)
	}
	// A missing parent folder is an error naming the path.
	if _, err := WriteAtomic(root+"/no/such/file", []byte("x")); err == nil || !strings.Contains(err.Error(), root+"/no/such/file") {
		t.Errorf("missing parent: %v", err)
	}
	// Empty content is fine.
	if h, err := WriteAtomic(root+"/empty", nil); err != nil || h != HashBytes(nil) {
		t.Errorf("empty: %q %v", h, err)
	}
}
