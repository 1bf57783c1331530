package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckLineTakesThePolicysShellTool: with a policy that grants Bash
// but not bash, a bare -c line is judged as Bash, not refused as a tool
// the policy does not grant.
func TestCheckLineTakesThePolicysShellTool(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".admit"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".admit", "policy.json"), []byte(`{"allow":["Bash","Read"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := check([]string{"--root", root, "-c", "ls"}, Stdio{Out: &stdout, Err: &stderr}); code != exitOK || !strings.Contains(stdout.String(), `"tool":"Bash"`) {
		t.Fatalf("exit %d: %s %s", code, stdout.String(), stderr.String())
	}
}
