package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/rpc"
	"admit/rpc/rpctest"
)

// TestNestedRepositoryIsNotTheRoot: a vendored clone (its own .git) inside
// the workspace does not become the hook's root. Deciding alone, the
// outer repository's .admit/policy.json still denies under it; and the
// editor's server opened on the outer folder is reached from inside the
// nested one (its default socket), so it decides.
func TestNestedRepositoryIsNotTheRoot(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	nested := filepath.Join(w.root, "vendor", "lib")
	for _, d := range []string{filepath.Join(nested, ".git"), filepath.Join(w.root, ".admit"), filepath.Join(nested, "sub", ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(nested, "README.md"), []byte("vendored\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.root, ".admit", "policy.json"), []byte(`{"allow": ["Bash", "Read"], "rules": {"deny": ["cat README.md"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	answer := func(cwd string, socket ...string) (string, string) {
		args := append([]string{"claude-code", "--tape", w.tape, "--timeout", "10s"}, socket...)
		var stdout, stderr bytes.Buffer
		if code := hookCmd(args, Stdio{In: bytes.NewReader(claudeBash(t, cwd, map[string]any{"command": "cat README.md"})), Out: &stdout, Err: &stderr}); code != 0 && code != 2 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		var v struct {
			HookSpecificOutput struct {
				PermissionDecision       string `json:"permissionDecision"`
				PermissionDecisionReason string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
			t.Fatalf("%v: %s", err, stdout.String())
		}
		return v.HookSpecificOutput.PermissionDecision, v.HookSpecificOutput.PermissionDecisionReason
	}
	for _, cwd := range []string{w.root, nested, filepath.Join(nested, "sub")} {
		if d, why := answer(cwd, "--socket", w.socket); d != "deny" || !strings.Contains(why, "rule-denies") {
			t.Errorf("alone, from %s: %s %s", cwd, d, why)
		}
	}
	// The editor's server on the outer folder, at its default socket.
	rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Listen: rpc.DefaultSocket(w.root),
		Init: map[string]any{"mode": "enforce", "tape": filepath.Join(t.TempDir(), "tape.jsonl")}})
	if d, why := answer(nested); d != "deny" || strings.Contains(why, "decided alone") || !strings.Contains(why, "rule-denies") {
		t.Errorf("through the outer folder's server, from the nested repository: %s %s", d, why)
	}
}

// TestStrayGitInSharedFolderIsNotTheRoot: a .git in a folder everyone may
// write (as a stray /tmp/.git is, above a workspace in the temporary
// folder) is not the hook's root: deciding alone, the workspace below it
// is, so its own files are read unasked and a file beside it in the
// shared folder stays outside. Taken for the root, the shared folder
// would have made every file in it the workspace's.
func TestStrayGitInSharedFolderIsNotTheRoot(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	shared, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(shared, "someone", "ws")
	for _, d := range []string{filepath.Join(shared, ".git"), filepath.Join(ws, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, s := range map[string]string{filepath.Join(ws, "README.md"): "hello\n", filepath.Join(shared, "someone", "notes.txt"): "not the workspace's\n"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if d, why := hookAnswer(t, w, claudeBash(t, ws, map[string]any{"command": "cat README.md"})); d != "allow" {
		t.Errorf("cat README.md in the workspace: %s %s", d, why)
	}
	if d, why := hookAnswer(t, w, claudeBash(t, ws, map[string]any{"command": "cat ../notes.txt"})); d == "allow" || !strings.Contains(why, "notes.txt, outside the workspace") {
		t.Errorf("cat ../notes.txt beside the workspace in the shared folder: %s %s (want it outside the workspace %s)", d, why, ws)
	}
	// With the shared folder no longer writable by others, its .git is a
	// repository like any, and the outermost one is the root.
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if d, why := hookAnswer(t, w, claudeBash(t, ws, map[string]any{"command": "cat ../notes.txt"})); d != "allow" {
		t.Errorf("cat ../notes.txt once the outer folder is a private repository: %s %s", d, why)
	}
}
