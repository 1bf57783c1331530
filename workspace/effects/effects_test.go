package effects

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTakeBreadthFirstSortedGitNotEntered(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "b.txt"), "bb")
	write(t, filepath.Join(root, "a/z.txt"), "z")
	write(t, filepath.Join(root, "a/deep/x"), "x")
	write(t, filepath.Join(root, ".git/HEAD"), "ref")
	if err := os.Symlink("b.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	fp := Take(root, 0)
	if !fp.Complete {
		t.Fatal("unbounded fingerprint incomplete")
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range fp.Entries {
			if !yield(k) {
				return
			}
		}
	})
	want := []string{".git", "a", "a/deep", "a/deep/x", "a/z.txt", "b.txt", "link"}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys = %v, want %v", keys, want)
	}
	if !strings.HasPrefix(fp.Entries["b.txt"], "f:2:") || !strings.HasPrefix(fp.Entries["a"], "d:") || !strings.HasPrefix(fp.Entries["link"], "l:") {
		t.Fatalf("values: %v", fp.Entries)
	}

	// Bound: breadth first means the first level is taken before deeper ones.
	for _, tc := range []struct {
		limit    int
		want     []string
		complete bool
	}{
		{1, []string{".git"}, false},
		{4, []string{".git", "a", "b.txt", "link"}, false},
		{6, []string{".git", "a", "a/deep", "a/z.txt", "b.txt", "link"}, false},
		{7, want, true},
		{8, want, true},
	} {
		fp := Take(root, tc.limit)
		var got []string
		for k := range fp.Entries {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) || fp.Complete != tc.complete {
			t.Errorf("limit %d: %v complete=%v, want %v complete=%v", tc.limit, got, fp.Complete, tc.want, tc.complete)
		}
	}
}

func TestTakeRootsKeysByAbsolutePath(t *testing.T) {
	r1, r2 := t.TempDir(), t.TempDir()
	write(t, filepath.Join(r1, "same"), "1")
	write(t, filepath.Join(r2, "same"), "2")
	write(t, filepath.Join(r2, "d/deeper"), "2")
	fp := TakeRoots([]string{r1, r2}, 0)
	if len(fp.Entries) != 4 || fp.Entries[r1+"/same"] == "" || fp.Entries[r2+"/d/deeper"] == "" {
		t.Fatalf("entries %v", fp.Entries)
	}
	// Breadth first across roots: both first levels before any second level.
	fp = TakeRoots([]string{r1, r2}, 3)
	if fp.Complete || fp.Entries[r2+"/d"] == "" || fp.Entries[r2+"/d/deeper"] != "" {
		t.Fatalf("bounded entries %v", fp.Entries)
	}
}

func TestCompare(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "keep"), "k")
	write(t, filepath.Join(root, "gone"), "g")
	write(t, filepath.Join(root, "edit"), "e")
	before := Take(root, 100)
	os.Remove(filepath.Join(root, "gone"))
	write(t, filepath.Join(root, "edit"), "edited")
	write(t, filepath.Join(root, "new/file"), "n")
	after := Take(root, 100)
	d := Compare(before, after)
	if !slices.Equal(d.Added, []string{"new", "new/file"}) || !slices.Equal(d.Removed, []string{"gone"}) || !slices.Equal(d.Changed, []string{"edit"}) || !d.Complete {
		t.Fatalf("diff %+v", d)
	}
	b, _ := json.Marshal(Compare(before, before))
	if string(b) != `{"added":[],"removed":[],"changed":[],"complete":true}` {
		t.Fatalf("json %s", b)
	}
	if Compare(before, Take(root, 1)).Complete {
		t.Fatal("bounded side must make the diff incomplete")
	}
}

func buildTree(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	// 100 entries per folder, folders nested two levels: a realistic fan-out.
	perDir := 100
	made := 0
	for i := 0; made < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/perDir), fmt.Sprintf("e%03d", i%perDir))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		made += 2
		for j := 0; j < perDir-1 && made < n; j++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
			made++
		}
	}
	return root
}

func benchmarkTake(b *testing.B, n int) {
	root := buildTree(b, n)
	b.ResetTimer()
	var fp Fingerprint
	for b.Loop() {
		fp = Take(root, n+1000)
	}
	if !fp.Complete || len(fp.Entries) < n*9/10 {
		b.Fatalf("entries %d complete %v", len(fp.Entries), fp.Complete)
	}
	b.ReportMetric(float64(len(fp.Entries)), "entries")
}

func BenchmarkFingerprint10k(b *testing.B)  { benchmarkTake(b, 10_000) }
func BenchmarkFingerprint100k(b *testing.B) { benchmarkTake(b, 100_000) }
