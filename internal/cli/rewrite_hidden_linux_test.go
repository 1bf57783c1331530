package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/workspace/run"
)

// TestRewrittenWalkHidesTheSecret: through Claude Code's hook, a walk
// beside a .env is allowed and rewritten to admit run --handle; the line
// the host's shell runs then prints the walk's other matches and none of
// the .env, and tells the model on stderr that the file was hidden.
func TestRewrittenWalkHidesTheSecret(t *testing.T) {
	if m := run.Probe(); !m.HidesFiles() {
		t.Skipf("this machine cannot hide a file from a run (%s)", m.NamespacesNote)
	}
	w := newHookWorkspace(t)
	for name, body := range map[string]string{"conf/.env": "API_KEY=sk_live_rewritten\n", "conf/notes.txt": "API_KEY is set in .env\n"} {
		p := filepath.Join(w.root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	decision, input, out := rewrittenBash(t, w, w.socket, map[string]any{"command": "grep -rn API_KEY conf"})
	line, _ := input["command"].(string)
	if decision != "allow" || !strings.Contains(line, " run --handle h") {
		t.Fatalf("answer: %s", out)
	}
	sh := hostShell(w, w.socket, line)
	var so, se bytes.Buffer
	sh.Stdout, sh.Stderr = &so, &se
	if err := sh.Run(); err != nil {
		t.Fatalf("the rewritten line: %v, stdout %q, stderr %q", err, so.String(), se.String())
	}
	if strings.Contains(so.String(), "sk_live_rewritten") || !strings.Contains(so.String(), "is set in .env") {
		t.Errorf("the walk's output: %q", so.String())
	}
	if !strings.Contains(se.String(), "hidden from this run") || !strings.Contains(se.String(), filepath.Join(w.root, "conf", ".env")) {
		t.Errorf("stderr does not say what was hidden: %q", se.String())
	}
}
