package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"admit/gate"
	"admit/workspace/run"
)

// needConfiner skips a test of admit run's confiner where it cannot
// start: no namespaces here.
func needConfiner(t *testing.T) {
	t.Helper()
	if !run.Probe().Namespaces {
		t.Skip("no namespaces here: the confiner cannot start")
	}
}

// TestRunCannotMakeProtectedPaths: through admit run, a program that runs
// code (make, allowed by the person's rule) tries to make protected paths
// the workspace does not have: .vscode/tasks.json, .github/workflows, a
// repository (git init, and .git/hooks by hand), and removes the empty
// .devcontainer it finds. Each fails inside the run (the protected
// folders are read-only empties there), so no marker of success appears
// and nothing of them is left. sub/.admit/policy.json, deeper than admit
// makes empties, is made and removed when the run ends, and reported.
// Meanwhile the person writes .vscode/settings.json: the run sees it,
// read-only, and it stays theirs; the other empties admit made are gone.
func TestRunCannotMakeProtectedPaths(t *testing.T) {
	needPrograms(t, "make", "git")
	needConfiner(t)
	ws := testWorkspace(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(ws, "Makefile"), []byte(`plant:
	touch ready
	while ! test -e go; do sleep 0.01; done
	cat .vscode/settings.json > seen.txt
	-echo '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json && touch made-tasks
	-mkdir -p .github/workflows && touch made-workflows
	-git init -q . && touch made-git
	-mkdir -p .git/hooks && echo 'touch /tmp/pwned' > .git/hooks/pre-commit && touch made-hook
	-rmdir .devcontainer && touch made-rmdir
	-mkdir elsewhere && mv -T elsewhere .idea && touch made-rename
	mkdir -p sub/.admit && echo '{"allow":["*"]}' > sub/.admit/policy.json && touch made-deep
	echo 'export PATH=.:$$PATH' > .envrc && touch made-envrc
`), 0o644))
	cfg := t.TempDir()
	must(os.MkdirAll(filepath.Join(cfg, "admit"), 0o700))
	must(os.WriteFile(filepath.Join(cfg, "admit", "rules.json"), []byte(`{"allow":["make *"]}`), 0o600))

	state := t.TempDir()
	cmd := admitCmd(t, []string{"XDG_CONFIG_HOME=" + cfg, "XDG_STATE_HOME=" + state, "ADMIT_EFFECTS=workspace-write"}, "run", "--root", ws, "-c", "make plant")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	must(cmd.Start())
	// The person, while the run goes on, saves a setting of their own.
	ready := filepath.Join(ws, "ready")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the run never started: %s %s", out.String(), errb.String())
		}
	}
	mine := `{"editor.tabSize": 2}`
	must(os.WriteFile(filepath.Join(ws, ".vscode", "settings.json"), []byte(mine), 0o644))
	// And a protected file of their own, which the run could have made
	// as well: who made it cannot be told, so it is undone, but kept.
	attrs := "*.go text eol=lf\n"
	must(os.WriteFile(filepath.Join(ws, ".gitattributes"), []byte(attrs), 0o644))
	must(os.WriteFile(filepath.Join(ws, "go"), nil, 0o644))
	err := cmd.Wait()
	var res gate.RunResult
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
		t.Fatalf("admit run: %v %v\n%s\n%s", err, jerr, out.String(), errb.String())
	}
	if !res.Ran || res.ExitCode != 0 {
		t.Fatalf("make plant: %+v", res)
	}

	for _, marker := range []string{"made-tasks", "made-workflows", "made-git", "made-hook", "made-rmdir", "made-rename"} {
		if _, err := os.Lstat(filepath.Join(ws, marker)); err == nil {
			t.Errorf("%s: the run made what it must not (stderr %s)", marker, res.Stderr)
		}
	}
	for _, gone := range []string{".github", ".git", ".devcontainer", ".idea", "sub/.admit", ".envrc", ".gitattributes"} {
		if _, err := os.Lstat(filepath.Join(ws, gone)); err == nil {
			t.Errorf("%s is there after the run", gone)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, "made-deep")); err != nil {
		t.Errorf("the deep write did not run: %s", res.Stderr)
	}
	undone := []string{filepath.Join(ws, ".envrc"), filepath.Join(ws, ".gitattributes"), filepath.Join(ws, "sub", ".admit")}
	if !slices.Equal(res.Undone, undone) {
		t.Errorf("undone %v, want %v", res.Undone, undone)
	}
	// What was undone is in admit's state folder, outside the workspace,
	// the person's file as they wrote it.
	if !strings.HasPrefix(res.UndoneTo, filepath.Join(state, "admit", "undone")+"/") || !strings.Contains(res.Detail, res.UndoneTo) {
		t.Errorf("undone to %q (detail %q)", res.UndoneTo, res.Detail)
	}
	for i, want := range []string{"export PATH=.:$PATH\n", attrs, `{"allow":["*"]}` + "\n"} {
		name := fmt.Sprintf("%d-%s", i, filepath.Base(undone[i]))
		if i == 2 {
			name = filepath.Join(name, "policy.json")
		}
		if data, err := os.ReadFile(filepath.Join(res.UndoneTo, name)); err != nil || string(data) != want {
			t.Errorf("kept %s: %q (%v)", name, data, err)
		}
	}
	if !slices.Contains(res.Unexpected, filepath.Join(ws, "sub", ".admit")) {
		t.Errorf("unexpected %v", res.Unexpected)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "seen.txt")); err != nil || string(data) != mine {
		t.Errorf("inside the run .vscode/settings.json read %q (%v)", data, err)
	}
	if data, err := os.ReadFile(filepath.Join(ws, ".vscode", "settings.json")); err != nil || string(data) != mine {
		t.Errorf("the person's setting after the run: %q (%v)", data, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(ws, ".vscode")); len(entries) != 1 {
		t.Errorf(".vscode holds %v", entries)
	}
	// Every other empty admit made for the run is gone: the root holds
	// what the test and the run made, and nothing else.
	var names []string
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{".vscode", "Makefile", "a.txt", "b.txt", "elsewhere", "go", "made-deep", "made-envrc", "ready", "seen.txt", "src", "sub"}
	if !slices.Equal(names, want) {
		t.Errorf("the root holds %v, want %v", names, want)
	}
}

// TestServeSweepsKilledAdmitsEmpties: a server, when it starts, removes
// the empties an admit killed during a run of code left (a record in
// admit's state folder nobody holds), not one the person wrote into.
func TestServeSweepsKilledAdmitsEmpties(t *testing.T) {
	ws := testWorkspace(t)
	state := t.TempDir()
	dir := filepath.Join(state, "admit", "placeholders")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	record := fmt.Sprintf(`{"since":%q,"placeholders":[{"root":%q,"name":".vscode"},{"root":%q,"name":".github"}]}`,
		time.Now().Add(-time.Second).Format(time.RFC3339Nano), ws, ws)
	if err := os.WriteFile(filepath.Join(dir, "run-1.json"), []byte(record), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".vscode", ".github"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".github", "CODEOWNERS"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := admitCmd(t, []string{"XDG_STATE_HOME=" + state}, "serve", "--listen", "none")
	cmd.Stdin = strings.NewReader("")
	// It ends when its input does; how it ends is not what is tested.
	if out, err := cmd.CombinedOutput(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("admit serve: %v %s", err, out)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, ".vscode")); err == nil {
		t.Error("the killed admit's .vscode is there after the server started")
	}
	if _, err := os.Lstat(filepath.Join(ws, ".github", "CODEOWNERS")); err != nil {
		t.Errorf("the person's .github: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("records left: %v", entries)
	}
}
