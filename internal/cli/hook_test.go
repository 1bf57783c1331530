package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"admit/internal/golden"
	"admit/rpc/rpctest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestMain lets the test binary stand in for the admit binary (the hook
// and mcp commands are not yet dispatched by main), so the subprocess
// benchmark and the MCP test start a real process.

// hookWorkspace is a small repository the recorded events point into.
type hookWorkspace struct {
	root, home, tape, socket string
}

func newHookWorkspace(t testing.TB) hookWorkspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"README.md":   "hello\n",
		"src/main.go": "package main\n\nfunc main() {}\n",
		"nb.ipynb":    `{"cells": []}` + "\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	home, _ := filepath.EvalSymlinks(t.TempDir())
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	return hookWorkspace{root: root, home: home, tape: filepath.Join(tmp, "tape.jsonl"), socket: filepath.Join(tmp, "no-server.sock")}
}

// event reads a recorded event with $ROOT pointing into the workspace.
func (w hookWorkspace) event(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(data, []byte("$ROOT"), []byte(w.root))
}

// normalize makes an answer independent of where the test ran.
func (w hookWorkspace) normalize(out []byte, socket string) []byte {
	s := string(out)
	self, _ := os.Executable()
	for _, r := range []struct{ from, to string }{{socket, "$SOCKET"}, {w.root, "$ROOT"}, {w.home, "$HOME"}, {self, "$ADMIT"}} {
		if r.from != "" {
			s = strings.ReplaceAll(s, r.from, r.to)
		}
	}
	return handleID.ReplaceAll([]byte(s), []byte("$HANDLE"))
}

// handleID is a handle in a rewritten call: random, so the goldens name it.
var handleID = regexp.MustCompile(`\bh[0-9a-f]{32}\b`)

// runHookEvents drives admit hook with every recorded event of agent, in
// name order, and returns the answers one per event.
func runHookEvents(t *testing.T, w hookWorkspace, agent, socket string) []byte {
	files, _ := filepath.Glob(filepath.Join("..", "..", "hook", "testdata", agent, "*.json"))
	if len(files) == 0 {
		t.Fatal("no recorded events")
	}
	var all bytes.Buffer
	for _, f := range files {
		var stdout, stderr bytes.Buffer
		code := hookCmd([]string{agent, "--socket", socket, "--tape", w.tape, "--timeout", "10s"}, Stdio{In: bytes.NewReader(w.event(t, f)), Out: &stdout, Err: &stderr})
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, stderr.String())
		}
		var v map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
			t.Fatalf("%s: the answer is not JSON: %q", f, stdout.String())
		}
		fmt.Fprintf(&all, "%s\n%s\n", filepath.Base(f), w.normalize(stdout.Bytes(), socket))
	}
	return all.Bytes()
}

// jsonAgents are the hosts whose answers these tests read as JSON (every
// host is driven through the real binary in hook_hosts_test.go).
var jsonAgents = []string{"claude-code", "gemini-cli"}

// TestHookLocal: no server is listening, so every event is decided by a
// local gate on the workspace, with nobody to ask, and the answer says so.
func TestHookLocal(t *testing.T) {
	for _, agent := range jsonAgents {
		t.Run(agent, func(t *testing.T) {
			w := newHookWorkspace(t)
			t.Setenv("HOME", w.home)
			t.Setenv("ADMIT_EFFECTS", "workspace-write")
			out := runHookEvents(t, w, agent, w.socket)
			golden.Check(t, filepath.Join("testdata", agent+".local.golden"), out, *update)
			if n, _ := tapeLines(w.tape); n == 0 {
				t.Error("decisions taken alone were not taped")
			}
		})
	}
}

// TestHookServer: the editor's server answers over its socket; reads are
// observed in the editor's session (so the edit after a read is allowed),
// and a call that needs a person is asked in the editor.
func TestHookServer(t *testing.T) {
	for _, agent := range jsonAgents {
		t.Run(agent, func(t *testing.T) {
			w := newHookWorkspace(t)
			t.Setenv("HOME", w.home)
			e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Approve: true, Listen: rpctest.Socket(t), Home: w.home,
				Init:   map[string]any{"mode": "enforce", "effects": "workspace-write"},
				Answer: rpctest.Always("allow-once")})
			out := runHookEvents(t, w, agent, e.Socket)
			golden.Check(t, filepath.Join("testdata", agent+".server.golden"), out, *update)
			select {
			case <-e.Asked:
			default:
				t.Error("no question reached the editor")
			}
			if n, _ := tapeLines(w.tape); n != 0 {
				t.Error("the hook taped locally although a server decided")
			}
		})
	}
}

func tapeLines(path string) (int, error) {
	data, err := os.ReadFile(path)
	return bytes.Count(data, []byte("\n")), err
}

// TestHookFailsClosed: whatever goes wrong inside the adapter, the answer
// is a deny with the blocking exit status (or, when not even the agent is
// known, the block exit status alone).
func TestHookFailsClosed(t *testing.T) {
	w := newHookWorkspace(t)
	bad, _ := filepath.Glob(filepath.Join("..", "..", "hook", "testdata", "bad", "*.json"))
	for _, agent := range jsonAgents {
		for _, f := range bad {
			var stdout, stderr bytes.Buffer
			code := hookCmd([]string{agent, "--socket", w.socket, "--tape", w.tape}, Stdio{In: bytes.NewReader(w.event(t, f)), Out: &stdout, Err: &stderr})
			if code != exitHookBlock || !isDeny(stdout.Bytes()) {
				t.Errorf("%s %s: exit %d, answer %s", agent, filepath.Base(f), code, stdout.String())
			}
		}
	}
	// A server that does not answer in time: deny, not a local decision.
	t.Run("timeout", func(t *testing.T) {
		// No Answer: the person never answers, so the server cannot in time.
		e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Approve: true, Listen: rpctest.Socket(t), Init: map[string]any{"mode": "enforce"}})
		ev := w.event(t, filepath.Join("..", "..", "hook", "testdata", "claude-code", "13-webfetch.json"))
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := hookCmd([]string{"claude-code", "--socket", e.Socket, "--timeout", "300ms"}, Stdio{In: bytes.NewReader(ev), Out: &stdout, Err: &stderr})
		if code != exitHookBlock || !isDeny(stdout.Bytes()) || !strings.Contains(stdout.String(), "no decision within 300ms") {
			t.Fatalf("exit %d, answer %s", code, stdout.String())
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("the timeout took %v", d)
		}
	})
	// A hook command that names no known agent blocks with exit status 2.
	for _, args := range [][]string{nil, {"claud-code"}, {"claude-code", "--bogus"}, {"gemini-cli", "--timeout", "-1s"}, {"copilot", "--timeout", "40s"}} {
		var stdout, stderr bytes.Buffer
		if code := hookCmd(args, Stdio{In: strings.NewReader("{}"), Out: &stdout, Err: &stderr}); code != exitHookBlock || stderr.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

func isDeny(out []byte) bool {
	var v struct {
		Decision           string `json:"decision"`
		HookSpecificOutput struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	return json.Unmarshal(out, &v) == nil && (v.Decision == "deny" || v.HookSpecificOutput.PermissionDecision == "deny")
}
