package sysfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"admit/internal/sysfile"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "rules.json")
	if err := sysfile.WriteAtomic(name, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sysfile.WriteAtomic(name, []byte("two\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(name)
	if err != nil || string(got) != "two\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	// Nothing else is left in the folder: no temporary file.
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the folder holds %d entries, want 1", len(es))
	}
	// A folder that is not there: an error, and nothing written.
	if err := sysfile.WriteAtomic(filepath.Join(dir, "no", "x"), []byte("x"), 0o600); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
	// A name that is a folder: the rename fails and the temporary file goes.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sysfile.WriteAtomic(sub, []byte("x"), 0o600); err == nil {
		t.Error("a write over a folder succeeded")
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("after a failed write the folder holds %d entries, want 2", len(es))
	}
}
