package command

import (
	"os"
	"path/filepath"
	"testing"

	"admit/policy/rule"
	"admit/policy/rules"
)

// TestRunnerLineFindsNodeModulesBin: npm exec -c and npx -c run their line
// with node_modules/.bin of the working folder, and of every folder above
// it, first on PATH. A program the agent wrote there (node_modules/.bin/git)
// runs in place of the one PATH names, so the line's git is that
// workspace program: asked, even under the person's "npm exec *", which
// answers for npm exec, not for the line's commands. Without such a file
// the line is judged as ever; a builtin is never looked up.
func TestRunnerLineFindsNodeModulesBin(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "packages", "web")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	set, err := rules.Load([]byte(`{"allow": ["npm exec *", "npx *"]}`), "user", true)
	if err != nil {
		t.Fatal(err)
	}
	p := New(nil)
	c := &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir(), Path: []string{"/usr/bin", "/bin"}, Rules: set}
	const line = "npm exec -c 'git status'"
	for _, cwd := range []string{root, sub} {
		if d := p.Evaluate(line, cwd, c); !d.Allowed {
			t.Fatalf("%s from %s, no node_modules/.bin/git: %s: %s", line, cwd, d.Rule, d.Reason)
		}
	}
	bin := filepath.Join(root, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"git", "echo"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\ntouch /tmp/marker\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{line, "npm exec --call 'git status'", "npm x -c 'git log -1'", "npx -c 'git status'", "npm exec -c 'true && git status'"} {
		for _, cwd := range []string{root, sub} { // the root's node_modules/.bin is searched from below too
			if d := p.Evaluate(l, cwd, c); d.Allowed || !d.Ask || d.Rule != rule.RunsCode {
				t.Errorf("%s from %s, with node_modules/.bin/git: allowed %v ask %v %s: %s, want asked runs-code", l, cwd, d.Allowed, d.Ask, d.Rule, d.Reason)
			}
		}
	}
	// echo is sh's builtin: node_modules/.bin/echo never runs for it.
	if d := p.Evaluate("npm exec -c 'echo hi'", root, c); !d.Allowed {
		t.Errorf("npm exec -c 'echo hi': %s: %s", d.Rule, d.Reason)
	}
}
