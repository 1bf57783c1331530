package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/workspace"
)

func TestGlobMatcher(t *testing.T) {
	cases := []struct {
		comp string
		yes  []string
		no   []string
	}{
		{"*.go", []string{"a.go", "A.GO", ".h.go", "x.y.go"}, []string{"a.txt", "go"}},
		{"u*", []string{"up", "U", "under"}, []string{"xup"}},
		{"?p", []string{"up", "Up"}, []string{"p", "upp"}},
		{"[ou]p", []string{"up", "op"}, []string{"ap"}},
		{"[!o]p", []string{"up"}, []string{"op"}},
		{"[^o]p", []string{"up"}, []string{"op"}},
		{"[]x]", []string{"]", "x"}, []string{"y"}},
		{`\*`, []string{"*"}, []string{"a"}},
		{"a[b", []string{"a[b"}, []string{"ab"}},
		{"lit", []string{"lit", "LIT"}, []string{"lite"}},
		{"@(a|b)", []string{"anything"}, nil},
		{"+(x)y", []string{"anything"}, nil},
		{"a.b", []string{"a.b"}, []string{"axb"}},
	}
	for _, c := range cases {
		m := globMatcher(c.comp)
		for _, y := range c.yes {
			if !m(y) {
				t.Errorf("%q does not match %q", c.comp, y)
			}
		}
		for _, n := range c.no {
			if m(n) {
				t.Errorf("%q matches %q", c.comp, n)
			}
		}
	}
}

// globEnv is a workspace with a virtualenv whose python leads to a file
// outside, a link to a folder outside, and many folders.
func globEnv(t *testing.T) (*Env, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	for _, p := range []string{"ws/app/main.py", "ws/.venv/lib/site.py", "outside/python3", "outside/lib/x.py", "ws/vendored/pkg/m.py"} {
		full := filepath.Join(base, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(ws, ".venv/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{".venv/bin/python": filepath.Join(base, "outside/python3"), "vendored/shared": filepath.Join(base, "outside/lib")} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Roots: roots.List(), FS: workspace.NewResolver(roots)}, ws
}

// A ** walks every folder a following tool would: a link to a folder
// outside is refused whatever the rest of the pattern, a link to a file
// outside only when the last component could match its name.
func TestGlobStar(t *testing.T) {
	e, ws := globEnv(t)
	cases := []struct {
		pat, base string
		out       bool
	}{
		{"**/*.py", "app", false},
		{"app/**/*.py", "", false},
		{"**/*.py", ".venv", false}, // bin/python does not match *.py
		{"**/python*", ".venv", true},
		{"**", ".venv", true},
		{"**/*", ".venv", true},
		{"**/*.py", "vendored", true}, // vendored/shared leads to a folder outside
		{"vendored/*/*.py", "", true},
		{"vendored/pkg/*.py", "", false},
		{".venv/bin/py*", "", true},
		{".venv/bin/*.sh", "", false},
	}
	for _, c := range cases {
		w := &globWalk{e: e}
		why := w.reach(c.pat, filepath.Join(ws, c.base))
		if (why != "") != c.out {
			t.Errorf("%s from %s/: %q, want outside=%v", c.pat, c.base, why, c.out)
		}
	}
}

// The walk is bounded: past its reads the pattern is refused, in bounded
// time, and the reason says to narrow it.
func TestGlobWalkBound(t *testing.T) {
	e, ws := globEnv(t)
	for i := range 60 {
		if err := os.MkdirAll(filepath.Join(ws, "many", strings.Repeat("d", 1+i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)), "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := &globWalk{e: e, maxReads: 40}
	if why := w.reach("many/*/x/*", ws); !strings.Contains(why, "narrower") {
		t.Errorf("over 40 reads: %q", why)
	}
	if why := (&globWalk{e: e}).reach("many/*/x/*", ws); why != "" {
		t.Errorf("within the default bound: %q", why)
	}
	if why := (&globWalk{e: e, maxEntries: 30}).reach("many/*/x/*", ws); !strings.Contains(why, "narrower") {
		t.Errorf("over 30 names: %q", why)
	}
	if why := (&globWalk{e: e}).reach(strings.Repeat("*/", maxGlobComponents)+"x", ws); !strings.Contains(why, "components") {
		t.Errorf("too many components: %q", why)
	}
}

// BenchmarkGlobWalk walks structured glob patterns over 8,000 folders:
// one that reads every folder (refused at the walk's bound), a "**"
// (walked whole by LinksOutside) and an everyday one.
func BenchmarkGlobWalk(b *testing.B) {
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		for j := range 20 {
			for k := range 20 {
				if err := os.MkdirAll(filepath.Join(ws, "a"+itoa2(i), "b"+itoa2(j), "c"+itoa2(k)), 0o755); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		b.Fatal(err)
	}
	e := &Env{Roots: roots.List(), FS: workspace.NewResolver(roots)}
	for _, pat := range []string{"*/*/*/*.go", "**/*.go", "a00/b0*/*.go"} {
		b.Run(strings.ReplaceAll(pat, "/", "|"), func(b *testing.B) {
			why := ""
			for b.Loop() {
				why = (&globWalk{e: e}).reach(pat, ws)
			}
			b.Logf("%s: %q", pat, why)
		})
	}
}

func itoa2(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// FuzzGlobMatcher: no component panics the matcher, and a component
// without glob characters matches itself.
func FuzzGlobMatcher(f *testing.F) {
	for _, s := range []string{"*.go", "[!a]*", "[]x]", `\*`, "@(a|b)", "a[b", "[^", "x.y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, comp string) {
		m := globMatcher(comp)
		if !strings.ContainsAny(comp, `*?[]\(`) && !m(comp) {
			t.Fatalf("%q does not match itself", comp)
		}
	})
}
