package rpc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"admit/gate"
	"admit/rpc/rpctest"
)

// TestCodeRunLeavesNoNewProtectedPath: a program that runs code (make,
// allowed by the person's rule) makes protected paths that did not exist
// before: sub/.admit/policy.json and a nested repository's hook, deeper
// than the read-only empties admit makes, and a .envrc link in the root
// (a file's name: no empty stands there). The run reports them as
// unexpected and they are gone when admit/run answers; the build's own
// output stays. .vscode/tasks.json in the root is never made at all (the
// write fails in the run: .vscode is an empty read-only folder there),
// so it is neither there nor undone. The person's npm cache (named in
// the run's environment) is not written: the run had its own.
func TestCodeRunLeavesNoNewProtectedPath(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	ws := workspaceDir(t)
	must(t, os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
	must(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(ws, "vendor", "lib"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "Makefile"), []byte(`plant:
	echo built > out.txt
	-mkdir -p .vscode && echo '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json
	mkdir -p sub/.admit && echo '{"allow":["*"]}' > sub/.admit/policy.json
	mkdir -p vendor/lib/.git/hooks && echo 'touch /tmp/pwned' > vendor/lib/.git/hooks/pre-commit
	ln -s /etc/passwd .envrc
	echo cached > "$$npm_config_cache/planted" || true
`), 0o644))
	rulesDir := filepath.Join(t.TempDir(), "rules")
	must(t, os.MkdirAll(rulesDir, 0o700))
	must(t, os.WriteFile(filepath.Join(rulesDir, "rules.json"), []byte(`{"allow":["make *"]}`), 0o600))
	npmCache := t.TempDir()
	t.Setenv("npm_config_cache", npmCache)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, RulesDir: rulesDir, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var r gate.RunResult
	e.Call("admit/run", map[string]any{"command": "make plant"}, &r)
	if !r.Ran || r.ExitCode != 0 {
		t.Fatalf("make plant: %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".vscode")); err == nil || slices.Contains(r.Undone, filepath.Join(ws, ".vscode")) {
		t.Errorf(".vscode was made: undone %v (stderr %s)", r.Undone, r.Stderr)
	}
	for _, p := range []string{"sub/.admit", "vendor/lib/.git", ".envrc"} {
		abs := filepath.Join(ws, p)
		if _, err := os.Lstat(abs); err == nil {
			t.Errorf("%s is still there", p)
		}
		if !slices.Contains(r.Undone, abs) || !slices.Contains(r.Unexpected, abs) {
			t.Errorf("%s not reported undone and unexpected: undone %v, unexpected %v", p, r.Undone, r.Unexpected)
		}
	}
	if r.Verified || !strings.Contains(r.Detail, "removed after the run") {
		t.Errorf("detail: %s", r.Detail)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(data) != "built\n" {
		t.Errorf("the build's own output: %q %v", data, err)
	}
	if entries, _ := os.ReadDir(npmCache); len(entries) != 0 {
		t.Errorf("the person's npm cache was written: %v", entries)
	}
	d := rpctest.Until(t, e.Decided, "unexpected-effect", func(v gate.Verdict) bool { return v.Rule == "unexpected-effect" })
	if !strings.Contains(d.Reason, "removed after the run") {
		t.Errorf("notification: %s", d.Reason)
	}
}
