package sysfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestListingsSeeEveryChange: a kept listing is used only while the
// folder is unchanged; an entry created, removed or renamed, even in the
// tick the listing was read in, and a folder put in the place of another
// are listed afresh at once.
func TestListingsSeeEveryChange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "src")
	mustMkdir(t, dir)
	touch(t, filepath.Join(dir, "a.go"))
	var l Listings
	names := func() []string {
		t.Helper()
		ents, err := l.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, e := range ents {
			ns = append(ns, e.Name())
		}
		return ns
	}
	want := func(ns ...string) {
		t.Helper()
		if got := names(); !slices.Equal(got, ns) {
			t.Fatalf("listed %q, want %q", got, ns)
		}
	}

	// Fresh: listed, not kept, and a change in the same tick is seen.
	want("a.go")
	if len(l.kept) != 0 {
		t.Fatalf("a folder changed just now was kept")
	}
	touch(t, filepath.Join(dir, ".env"))
	want(".env", "a.go")

	// Settled: kept, and used again while nothing changes.
	time.Sleep(2 * settleTime)
	want(".env", "a.go")
	if len(l.kept) != 1 {
		t.Fatalf("a settled folder was not kept: %v", l.kept)
	}
	first, _ := l.ReadDir(dir)
	again, _ := l.ReadDir(dir)
	if &first[0] != &again[0] {
		t.Fatalf("an unchanged folder was listed again")
	}

	// Each change after the listing is seen at once.
	touch(t, filepath.Join(dir, "b.go"))
	want(".env", "a.go", "b.go")
	if err := os.Rename(filepath.Join(dir, "b.go"), filepath.Join(dir, ".env.local")); err != nil {
		t.Fatal(err)
	}
	want(".env", ".env.local", "a.go")
	if err := os.Remove(filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}
	want(".env.local", "a.go")

	// Another folder in its place, settled or not, is another listing.
	time.Sleep(2 * settleTime)
	want(".env.local", "a.go")
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, dir)
	touch(t, filepath.Join(dir, "id_rsa"))
	want("id_rsa")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ReadDir(dir); !os.IsNotExist(err) {
		t.Fatalf("a removed folder: %v", err)
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func touch(t *testing.T, name string) {
	t.Helper()
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkListingsKept is a kept listing's cost: one stat.
func BenchmarkListingsKept(b *testing.B) {
	dir := b.TempDir()
	for _, n := range []string{"a.go", "b.go", "a_test.go", "sub"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(2 * settleTime)
	var l Listings
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.ReadDir(dir); err != nil {
			b.Fatal(err)
		}
	}
}
