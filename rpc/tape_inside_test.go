package rpc_test

import (
	"os"
	"path/filepath"
	"testing"

	"admit/gate"
	"admit/rpc/rpctest"
)

// TestTapeInsideTheWorkspaceIsProtected: the person put the tape in the
// workspace. No tool or command of the agent writes, removes or renames
// it, its head, its lock or a rotated file (one that exists or one made
// later), nor the folder that holds it; its neighbours stay ordinary
// files. A run that tries is refused before anything starts.
func TestTapeInsideTheWorkspaceIsProtected(t *testing.T) {
	ws := workspaceDir(t)
	logs := filepath.Join(ws, "logs")
	must(t, os.MkdirAll(logs, 0o755))
	must(t, os.WriteFile(filepath.Join(logs, "other.txt"), []byte("x\n"), 0o644))
	tp := filepath.Join(logs, "tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "effects": "workspace-write", "tape": tp}})
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"dirs": []string{".", "logs"}, "paths": []string{"logs/tape.jsonl", "logs/other.txt"}}, &n)
	e.Check(map[string]any{"tool": "bash", "command": "true"}) // the tape, its head and lock now exist
	for _, p := range []string{tp, tp + ".head", tp + ".lock"} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("the tape's files: %v", err)
		}
	}
	for _, c := range []map[string]any{
		{"tool": "Write", "args": map[string]any{"file_path": tp}},
		{"tool": "Edit", "args": map[string]any{"file_path": tp + ".head"}},
		{"tool": "Write", "args": map[string]any{"file_path": filepath.Join(logs, "TAPE.jsonl.7")}},
		{"tool": "bash", "command": "echo '{}' >> logs/tape.jsonl"},
		{"tool": "bash", "command": "rm logs/tape.jsonl.lock"},
		{"tool": "bash", "command": "mv logs/tape.jsonl logs/old.jsonl"},
		{"tool": "bash", "command": "cp logs/other.txt logs/tape.jsonl.1"},
		{"tool": "bash", "command": "truncate -s 0 logs/tape.jsonl"},
		{"tool": "bash", "command": "rm -r logs"},
		{"tool": "bash", "command": "mv logs gone"},
	} {
		if v := e.Check(c); v.Allowed || v.Rule != "protected-path" {
			t.Errorf("%v: %s %s", c, v.Rule, v.Reason)
		}
	}
	var r gate.RunResult
	e.Call("admit/run", map[string]any{"command": "rm logs/tape.jsonl.head"}, &r)
	if r.Ran {
		t.Errorf("the run removed the head: %+v", r)
	}
	if _, err := os.Lstat(tp + ".head"); err != nil {
		t.Errorf("the head: %v", err)
	}
	if v := e.Check(map[string]any{"tool": "Write", "args": map[string]any{"file_path": filepath.Join(logs, "other.txt")}}); !v.Allowed {
		t.Errorf("a neighbour of the tape: %s %s", v.Rule, v.Reason)
	}
	if v := e.Check(map[string]any{"tool": "Write", "args": map[string]any{"file_path": filepath.Join(logs, "tape.jsonl-notes.txt")}}); !v.Allowed {
		t.Errorf("a name that only starts like the tape's: %s %s", v.Rule, v.Reason)
	}
}
