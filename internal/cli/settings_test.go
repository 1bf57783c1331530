package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookAloneTakesThePersonsSettings: a hook deciding alone is
// configured by the person's settings file with the editor's names
// (gate.Settings): its secret patterns make a read of a matching file a
// question, where without them the read is allowed; a misspelt key refuses
// the call and names the key.
func TestHookAloneTakesThePersonsSettings(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	t.Setenv("ADMIT_EFFECTS", "")
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	if err := os.WriteFile(filepath.Join(w.root, "deploy.pem.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hook := func() (int, string) {
		var stdout, stderr bytes.Buffer
		ev := `{"hook_event_name":"PreToolUse","cwd":"` + w.root + `","tool_name":"Bash","tool_input":{"command":"cat deploy.pem.txt"}}`
		code := hookCmd([]string{"claude-code", "--socket", w.socket, "--tape", w.tape, "--timeout", "10s"}, Stdio{In: strings.NewReader(ev), Out: &stdout, Err: &stderr})
		return code, stdout.String() + stderr.String()
	}
	if code, out := hook(); code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("no settings file: %s", out)
	}
	file := filepath.Join(config, "admit", "settings.json")
	write := func(s string) {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"secretPatterns": ["*.pem.txt"]}`)
	if code, out := hook(); code != 0 || strings.Contains(out, `"permissionDecision":"allow"`) || !strings.Contains(out, "secret-read") {
		t.Fatalf("with the person's secret pattern: %s", out)
	}
	write(`{"secretPaterns": ["*.pem.txt"]}`)
	if code, out := hook(); code != exitHookBlock || !strings.Contains(out, "REFUSED") || !strings.Contains(out, "secretPaterns: unknown field") {
		t.Fatalf("a misspelt key: %s", out)
	}
}

// TestRewrittenWriteRunsUnderThePersonsSettings: a hook deciding alone in
// the effect mode the person chose (workspace-write, in their settings
// file) answers a write with admit run --handle, and the run that redeems
// the handle decides in the same settings, so the judged line runs.
func TestRewrittenWriteRunsUnderThePersonsSettings(t *testing.T) {
	w := newHookWorkspace(t)
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("ADMIT_EFFECTS", "")
	if err := os.MkdirAll(filepath.Join(config, "admit"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "admit", "settings.json"), []byte(`{"effects": "workspace-write"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(w.root, ".git")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", w.root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	decision, input, out := rewrittenBash(t, w, w.socket, map[string]any{"command": "git add README.md"})
	line, _ := input["command"].(string)
	if decision != "allow" || !strings.Contains(line, " run --handle h") {
		t.Fatalf("answer: %s", out)
	}
	sh := hostShell(w, w.socket, line)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("the rewritten line: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", w.root, "ls-files").Output(); err != nil || string(out) != "README.md\n" {
		t.Fatalf("the judged write did not run: git ls-files %q, %v", out, err)
	}
}
