package cli

import (
	"bytes"
	"os"
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
