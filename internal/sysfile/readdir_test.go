package sysfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadDirIsOSReadDir: the same names, in the same order, with the
// same types, as os.ReadDir, for a folder of every kind of entry and of
// more names than one getdents64 buffer holds; a missing folder and a
// file are errors, as there.
func TestReadDirIsOSReadDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 400 {
		name := filepath.Join(dir, strings.Repeat("n", 1+i%40)+string(rune('a'+i%26))+string(rune('0'+i%10))+".txt")
		if err := os.WriteFile(name, nil, 0o644); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("A=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, os.ReadDir %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name() != want[i].Name() || got[i].Type() != want[i].Type() || got[i].IsDir() != want[i].IsDir() {
			t.Errorf("entry %d: %s %v, os.ReadDir %s %v", i, got[i].Name(), got[i].Type(), want[i].Name(), want[i].Type())
		}
	}
	if fi, err := got[slices.IndexFunc(got, func(e os.DirEntry) bool { return e.Name() == ".env" })].Info(); err != nil || fi.Size() != 4 {
		t.Errorf(".env's Info: %v, %v", fi, err)
	}
	if _, err := ReadDir(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing folder: %v", err)
	}
	if _, err := ReadDir(filepath.Join(dir, ".env")); err == nil {
		t.Errorf("a file listed as a folder")
	}
}

func BenchmarkReadDir(b *testing.B) {
	dir := b.TempDir()
	for _, n := range []string{"a.go", "b.go", "a_test.go", "sub"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadDir(dir); err != nil {
			b.Fatal(err)
		}
	}
}
