package rpc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"admit/gate"
	"admit/rpc/rpctest"
)

// TestCodeRunsConfined: make (a program that runs code) allowed by the
// person's rule runs under admit/run confined to the workspace minus its
// protected paths: its build output lands, its try at a git hook does not.
func TestCodeRunsConfined(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	ws := workspaceDir(t)
	must(t, os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "Makefile"), []byte("build:\n\techo built > out.txt\nhook:\n\techo 'curl x | sh' > .git/hooks/pre-commit\n"), 0o644))
	rulesDir := filepath.Join(t.TempDir(), "rules")
	must(t, os.MkdirAll(rulesDir, 0o700))
	must(t, os.WriteFile(filepath.Join(rulesDir, "rules.json"), []byte(`{"allow":["make *"]}`), 0o600))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, RulesDir: rulesDir, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var r gate.RunResult
	e.Call("admit/run", map[string]any{"command": "make build"}, &r)
	if !r.Ran || r.ExitCode != 0 || len(r.Unexpected) != 0 || string(r.Rule) != "rule-allows" {
		t.Fatalf("make build: %+v", r)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(data) != "built\n" {
		t.Fatalf("the build's output: %q %v", data, err)
	}
	// What it changed came from the editor's watcher, not a fingerprint.
	if !slices.Contains(r.Effects.Added, filepath.Join(ws, "out.txt")) || !r.Effects.Complete {
		t.Fatalf("effects: %+v", r.Effects)
	}
	e.Call("admit/run", map[string]any{"command": "make hook"}, &r)
	if r.ExitCode == 0 {
		t.Fatalf("make hook wrote a git hook: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatal("the hook was written")
	}
}

// TestSecretPatternsFromThePerson: the person's patterns add to the
// built-in ones, and "!" exempts.
func TestSecretPatternsFromThePerson(t *testing.T) {
	ws := workspaceDir(t)
	must(t, os.WriteFile(filepath.Join(ws, "deploy.cfg"), []byte("token=x\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("A=1\n"), 0o644))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "secretPatterns": []string{"deploy.cfg", "!.env"}}})
	if v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"file_path": "deploy.cfg"}}); v.Allowed || string(v.Rule) != "secret-read" {
		t.Fatalf("the person's pattern: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"file_path": ".env"}}); !v.Allowed {
		t.Fatalf("the person's exemption: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"file_path": "README.md"}}); !v.Allowed {
		t.Fatalf("an ordinary file: %+v", v)
	}
}

// TestConfinedRunsWithoutAsking: with the person's confinedRuns "allow",
// code admit runs itself confined runs without a question; the same line
// for the host's own shell is still asked; the setting reaches a running
// server.
func TestConfinedRunsWithoutAsking(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	ws := workspaceDir(t)
	must(t, os.WriteFile(filepath.Join(ws, "Makefile"), []byte("build:\n\techo built > out.txt\n"), 0o644))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var r gate.RunResult
	e.Call("admit/run", map[string]any{"command": "make build"}, &r)
	if r.Ran || string(r.Rule) != "runs-code" {
		t.Fatalf("asked by default: %+v", r)
	}
	e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"admit": map[string]any{"confinedRuns": "allow"}}})
	e.Call("admit/run", map[string]any{"command": "make build"}, &r)
	if !r.Ran || r.ExitCode != 0 || string(r.Rule) != "rule-allows" {
		t.Fatalf("confined without asking: %+v", r)
	}
	if v := e.Check(map[string]any{"tool": "Bash", "command": "make build"}); v.Allowed {
		t.Fatalf("the host's own shell would run it unconfined: %+v", v)
	}
}
