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

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		prog string
		args []string
		ops  []string
		vals map[string]string
	}{
		{"mkdir", []string{"-p", "a/b"}, []string{"a/b"}, nil},
		{"mkdir", []string{"-m", "755", "d"}, []string{"d"}, map[string]string{"m": "755"}},
		{"mkdir", []string{"-pm755", "d"}, []string{"d"}, map[string]string{"m": "755"}},
		{"mkdir", []string{"--mode", "700", "--parents", "d"}, []string{"d"}, map[string]string{"mode": "700"}},
		{"rm", []string{"-f", "--", "-p", "x"}, []string{"-p", "x"}, nil},
		{"cp", []string{"-t", "dir", "a", "b"}, []string{"a", "b"}, map[string]string{"t": "dir"}},
		{"cp", []string{"a", "-rt", "dir", "b"}, []string{"a", "b"}, map[string]string{"t": "dir"}},
		{"cp", []string{"--target-directory=dir", "a"}, []string{"a"}, map[string]string{"target-directory": "dir"}},
		{"cp", []string{"--backup=numbered", "a", "b"}, []string{"a", "b"}, map[string]string{"backup": "numbered"}},
		{"mv", []string{"-S", ".bak", "a", "b"}, []string{"a", "b"}, map[string]string{"S": ".bak"}},
		{"touch", []string{"-r", "ref", "-d", "now", "f", "-"}, []string{"f", "-"}, nil},
	} {
		p, err := parseArgs(optSpecs[tc.prog], tc.args)
		if err != nil {
			t.Errorf("%s %v: %v", tc.prog, tc.args, err)
			continue
		}
		if !slices.Equal(p.operands, tc.ops) {
			t.Errorf("%s %v: operands %v, want %v", tc.prog, tc.args, p.operands, tc.ops)
		}
		for k, v := range tc.vals {
			if p.values[k] != v {
				t.Errorf("%s %v: value %s = %q, want %q", tc.prog, tc.args, k, p.values[k], v)
			}
		}
	}
	if _, err := parseArgs(optSpecs["cp"], []string{"a", "-t"}); err == nil {
		t.Error("-t without a value accepted")
	}
}

// TestReadbackRules sets up the state after a command (as if it ran) and
// checks each rule both passing and failing.
func TestReadbackRules(t *testing.T) {
	type tc struct {
		name  string
		setup func(dir string)
		argv  string
		ok    bool
	}
	mk := func(paths ...string) func(string) {
		return func(dir string) {
			for _, p := range paths {
				if strings.HasSuffix(p, "/") {
					os.MkdirAll(filepath.Join(dir, p), 0o755)
				} else {
					write(t, filepath.Join(dir, p), "same")
				}
			}
		}
	}
	cases := []tc{
		{"mkdir ok", mk("d/"), "mkdir -p d", true},
		{"mkdir option not a path", mk("d/"), "mkdir -m 755 d", true},
		{"mkdir missing", mk(), "mkdir d", false},
		{"mkdir of a file path", mk("d"), "mkdir d", false},
		{"touch ok", mk("f"), "touch f", true},
		{"touch missing", mk(), "touch f", false},
		{"touch -c may not create", mk(), "touch -c f", true},
		{"touch -r value not a path", mk("f"), "touch -r ref f", true},
		{"rm ok", mk(), "rm -f gone", true},
		{"rm still present", mk("f"), "rm f", false},
		{"rm -- -p", mk(), "rm -- -p", true},
		{"rm -- -p present", mk("-p"), "rm -- -p", false},
		{"rmdir ok", mk(), "rmdir d", true},
		{"rmdir still present", mk("d/"), "rmdir d", false},
		{"cp file to file", mk("a", "b"), "cp a b", true},
		{"cp file into dir", mk("a", "dir/a"), "cp a dir", true},
		{"cp file into dir missing", mk("a", "dir/"), "cp a dir", false},
		{"cp differs", func(d string) { write(t, filepath.Join(d, "a"), "1"); write(t, filepath.Join(d, "b"), "22") }, "cp a b", false},
		{"cp -t", mk("a", "b", "dir/a", "dir/b"), "cp -t dir a b", true},
		{"cp -t missing one", mk("a", "b", "dir/a"), "cp -t dir a b", false},
		{"cp -T into name even if dir", mk("a", "b/"), "cp -T a b", true},
		{"cp many into dir", mk("a", "b", "dir/a", "dir/b"), "cp a b dir/", true},
		{"cp -r dir to new name", mk("src/x", "new/x"), "cp -r src new", true},
		{"cp -r dir into existing", mk("src/x", "old/src/x", "old/y"), "cp -r src old", true},
		{"cp -pr flags", mk("a", "b"), "cp -pf a b", true},
		{"mv ok", mk("b"), "mv a b", true},
		{"mv source remains", mk("a", "b"), "mv a b", false},
		{"mv into dir", mk("dir/a"), "mv a dir", true},
		{"mv into dir source remains", mk("a", "dir/a"), "mv a dir", false},
		{"mv dir to new name", mk("new/x"), "mv src new", true},
		{"mv -t", mk("dir/a", "dir/b"), "mv -t dir a b", true},
		{"mv -f -- names", mk("dir/-x"), "mv -f -- -x dir", true},
		{"cp no operands", mk(), "cp -r", false},
		{"read program", mk(), "cat -n f", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(dir)
			v := Readback(strings.Fields(c.argv), dir)
			if v.Verified != c.ok {
				t.Fatalf("Readback(%s) = %+v, want verified=%v", c.argv, v, c.ok)
			}
		})
	}
}

// TestReadbackAbsolute checks absolute operands are not joined to cwd.
func TestReadbackAbsolute(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	os.Mkdir(filepath.Join(other, "d"), 0o755)
	if v := Readback([]string{"mkdir", filepath.Join(other, "d")}, dir); !v.Verified {
		t.Fatal(v)
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
