package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/policy/rule"
)

// TestCargoReads: cargo tree and metadata are allowed in both effect
// modes in a crate with a lock file and no configuration that runs code;
// a rustc of the workspace first on PATH (which cargo runs for the
// target's facts) is asked, and so is a .cargo/config.toml naming a
// wrapper; with no lock file, read-only refuses unless --locked.
func TestCargoReads(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, ".venv", "bin")
	for _, d := range []string{bin, filepath.Join(root, ".cargo")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("Cargo.toml", "[package]\nname = \"x\"\n", 0o644)
	p := New(nil)
	c := &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir()}
	eval := func(line string, e Effects) Decision {
		c.Effects = e
		return p.Evaluate(line, root, c)
	}
	if d := eval("cargo tree", ReadOnly); d.Allowed || d.Rule != rule.ReadOnlyEffects {
		t.Errorf("cargo tree with no lock, read-only: %s: %s", d.Rule, d.Reason)
	}
	for _, line := range []string{"cargo tree --locked", "cargo metadata --no-deps"} {
		if d := eval(line, ReadOnly); !d.Allowed {
			t.Errorf("%s with no lock, read-only: %s: %s", line, d.Rule, d.Reason)
		}
	}
	write("Cargo.lock", "version = 3\n", 0o644)
	for _, e := range []Effects{ReadOnly, WorkspaceWrite} {
		for _, line := range []string{"cargo tree", "cargo metadata --format-version 1"} {
			if d := eval(line, e); !d.Allowed {
				t.Errorf("%s (%s): %s: %s", line, e, d.Rule, d.Reason)
			}
		}
	}
	sys, err := filepath.EvalSymlinks(t.TempDir()) // the system's cargo, outside
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sys, "cargo"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.Path = []string{bin, sys}
	if d := eval("cargo tree", ReadOnly); !d.Allowed {
		t.Errorf("cargo tree with the system's cargo on PATH: %s: %s", d.Rule, d.Reason)
	}
	write(".venv/bin/rustc", "#!/bin/sh\n", 0o755)
	if d := eval("cargo tree", ReadOnly); d.Allowed || !d.Ask || d.Rule != rule.RunsCode || !strings.Contains(d.Reason, "rustc") {
		t.Errorf("cargo tree with .venv/bin/rustc first: allowed %v %s: %s", d.Allowed, d.Rule, d.Reason)
	}
	c.Path = nil
	write(".cargo/config.toml", "[build]\nrustc-wrapper = \"./w.sh\"\n", 0o644)
	if d := eval("cargo tree", WorkspaceWrite); d.Allowed || !d.Ask || d.Rule != rule.RunsCode {
		t.Errorf("cargo tree under a rustc-wrapper: allowed %v %s: %s", d.Allowed, d.Rule, d.Reason)
	}
}
