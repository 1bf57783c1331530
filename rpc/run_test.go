package rpc_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"admit/gate"
	"admit/rpc/rpctest"
)

func TestRunThroughTheServer(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var r gate.RunResult
	e.Call("admit/run", map[string]any{"command": "cat notes.txt | wc -l"}, &r)
	if !r.Ran || r.ExitCode != 0 || r.Stdout != "1\n" || !r.Verified {
		t.Fatalf("read: %+v", r)
	}
	// A pattern is expanded by the gate and again by the run, which must
	// find the same names.
	e.Call("admit/run", map[string]any{"command": "cat src/*.go *.txt"}, &r)
	if !r.Ran || r.ExitCode != 0 || r.Stdout != "hello src/a.go\nhello notes.txt\n" {
		t.Fatalf("pattern: %+v", r)
	}
	e.Call("admit/run", map[string]any{"command": "cat /proc/self/environ"}, &r)
	if r.Ran || r.Allowed || r.Rule != "outside-workspace" {
		t.Fatalf("refused command: %+v", r)
	}
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"dirs": []string{"."}}, &n)
	e.Call("admit/run", map[string]any{"command": "mkdir -p build/out && touch build/out/x"}, &r)
	if !r.Ran || r.ExitCode != 0 || !r.Verified || !slices.Contains(r.Effects.Added, filepath.Join(ws, "build/out/x")) {
		t.Fatalf("write: %+v", r)
	}
}

// TestUnexpectedEffectNeedsAcknowledgement: while an admitted command runs,
// a file it was not admitted to write changes. The run reports it, and in
// enforce mode the session's next change waits for a person.
func TestUnexpectedEffectNeedsAcknowledgement(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	done := make(chan gate.RunResult, 1)
	// A run reads no FIFO (it would block), so a long sleep holds the run
	// open until its timeout.
	go func() {
		var r gate.RunResult
		_ = e.Try("admit/run", map[string]any{"command": "sleep 60", "timeoutMs": 2000}, &r)
		done <- r
	}()
	rpctest.WaitForChild(t, os.Getpid(), "sleep")
	must(t, os.WriteFile(filepath.Join(ws, "README.md"), []byte("changed during the run\n"), 0o644))
	r := rpctest.Within(t, done, "run")
	if r.Verified || !slices.Contains(r.Unexpected, filepath.Join(ws, "README.md")) {
		t.Fatalf("run: %+v", r)
	}
	d := rpctest.Within(t, e.Decided, "didDecide")
	for d.Rule != "unexpected-effect" {
		d = rpctest.Within(t, e.Decided, "unexpected-effect notification")
	}
	e.SetAnswer(rpctest.Always("allow-once"))
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"paths": []string{"notes.txt"}}, &n)
	v := e.Check(map[string]any{"tool": "Write", "args": map[string]any{"file_path": "notes.txt"}})
	q := rpctest.Within(t, e.Asked, "acknowledgement")
	if !v.Allowed || v.DecidedBy != "person" || q.ID != v.ID {
		t.Fatalf("acknowledged change: %+v", v)
	}
	v = e.Check(map[string]any{"tool": "Write", "args": map[string]any{"file_path": "notes.txt"}})
	if !v.Allowed || v.DecidedBy != "rule" {
		t.Fatalf("after acknowledgement: %+v", v)
	}
}
