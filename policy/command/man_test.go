package command

import (
	"os"
	"path/filepath"
	"testing"

	"admit/policy/rule"
)

// TestManPagesBesidePath: man-db looks for pages beside each PATH folder,
// so a PATH folder of the workspace with a man folder beside it would have
// its pages rendered through groff (whose .so reads any file): asked. The
// same folder without one, or man -k, which renders nothing, is allowed.
func TestManPagesBesidePath(t *testing.T) {
	root, bin := venvWorkspace(t)
	p := New(nil)
	c := &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir(), Path: []string{bin, "/usr/bin", "/bin"}}
	if d := p.Evaluate("man ls", root, c); !d.Allowed {
		t.Fatalf("man ls without pages beside PATH: %s: %s", d.Rule, d.Reason)
	}
	for _, pages := range []string{"share/man", "man"} {
		dir := filepath.Join(root, ".venv", pages)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if d := p.Evaluate("man ls", root, c); d.Allowed || !d.Ask || d.Rule != rule.RunsCode {
			t.Errorf("man ls with %s beside PATH: allowed %v ask %v %s: %s, want asked runs-code", pages, d.Allowed, d.Ask, d.Rule, d.Reason)
		}
		if d := p.Evaluate("man -k socket", root, c); !d.Allowed {
			t.Errorf("man -k with %s beside PATH: %s: %s", pages, d.Rule, d.Reason)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
}

// venvWorkspace is a workspace root with an empty .venv/bin in it, the
// PATH folder a Python project activates.
func venvWorkspace(t *testing.T) (root, bin string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(root, ".venv", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, bin
}
