package rpc_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"admit/gate"
	"admit/rpc"
	"admit/rpc/rpctest"
	"admit/tape"
	"admit/workspace"
)

// TestLifecycleErrors runs over net.Pipe and over os pipes, the file
// descriptors an editor gives the server it starts.
func TestLifecycleErrors(t *testing.T) {
	for _, osPipes := range []bool{false, true} {
		t.Run(map[bool]string{false: "net.Pipe", true: "os pipes"}[osPipes], func(t *testing.T) {
			lifecycleErrors(t, osPipes)
		})
	}
}

func lifecycleErrors(t *testing.T, osPipes bool) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, OSPipes: osPipes, Init: map[string]any{"mode": "enforce"}})
	var out json.RawMessage
	if err := e.Try("admit/nope", map[string]any{}, &out); rpctest.ErrCode(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: got %v, want -32601", err)
	}
	err := e.Try("admit/check", map[string]any{"tool": "Read", "sesion": "x"}, &out)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "sesion") {
		t.Errorf("misspelt field: got %v, want -32602 naming sesion", err)
	}
	err = e.Try("admit/check", map[string]any{"tool": 7}, &out)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "tool") {
		t.Errorf("wrong type: got %v, want -32602 naming tool", err)
	}
	err = e.Try("admit/check", map[string]any{"tool": "Read", "session": "ghost"}, &out)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "ghost") {
		t.Errorf("unknown session: got %v", err)
	}
	err = e.Try("admit/setMode", map[string]any{"mode": "loud"}, &out)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "loud") {
		t.Errorf("bad mode: got %v", err)
	}
	// $/cancelRequest for calls long answered, or with an id of the wrong
	// shape, changes nothing: the connection goes on.
	e.Notify("$/cancelRequest", map[string]any{"id": 1})
	e.Notify("$/cancelRequest", map[string]any{"id": "gone"})
	e.Notify("$/cancelRequest", map[string]any{"id": map[string]any{}})
	var v gate.Verdict
	e.Call("admit/check", map[string]any{"tool": "Read", "args": map[string]any{"file_path": "notes.txt"}}, &v)
	if !v.Allowed {
		t.Errorf("check after stray cancellations: %+v", v)
	}
	e.Call("shutdown", nil, &out)
	e.Notify("exit", nil)
	if code := rpctest.Within(t, e.Exited, "exit"); code != 0 {
		t.Errorf("exit after shutdown = %d, want 0", code)
	}
}

func TestBeforeInitializeAndExitWithoutShutdown(t *testing.T) {
	e := rpctest.Connect(t, rpctest.Options{})
	var out json.RawMessage
	if err := e.Try("admit/state", map[string]any{}, &out); rpctest.ErrCode(err) != jsonrpc2.ServerNotInitialized {
		t.Errorf("before initialize: got %v, want -32002", err)
	}
	e.Notify("exit", nil)
	if code := rpctest.Within(t, e.Exited, "exit"); code != 1 {
		t.Errorf("exit without shutdown = %d, want 1", code)
	}
}

func TestInitializeResult(t *testing.T) {
	e := rpctest.Connect(t, rpctest.Options{})
	ws := workspaceDir(t)
	var res struct {
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
		Capabilities struct {
			Experimental struct {
				Admit struct {
					Version string   `json:"version"`
					Modes   []string `json:"modes"`
					Effects []string `json:"effects"`
				} `json:"admit"`
			} `json:"experimental"`
		} `json:"capabilities"`
	}
	e.Call("initialize", map[string]any{"rootUri": "file://" + ws, "capabilities": map[string]any{}, "initializationOptions": map[string]any{"tape": filepath.Join(t.TempDir(), "t.jsonl")}}, &res)
	if res.ServerInfo.Name != "admit" || res.Capabilities.Experimental.Admit.Version != rpc.Version || len(res.Capabilities.Experimental.Admit.Modes) != 3 {
		t.Fatalf("initialize result: %+v", res)
	}
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if len(st.Roots) != 1 || st.Roots[0] != ws || st.Mode != "warn" || st.Effects != "read-only" || st.Shell != "analyze" {
		t.Fatalf("state after rootUri initialize: %+v", st)
	}
	var out json.RawMessage
	err := e.Try("initialize", map[string]any{"capabilities": map[string]any{}}, &out)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams {
		t.Errorf("second initialize: %v", err)
	}
}

func TestBadInitializationOptions(t *testing.T) {
	e := rpctest.Connect(t, rpctest.Options{})
	var out json.RawMessage
	err := e.Try("initialize", map[string]any{"capabilities": map[string]any{}, "initializationOptions": map[string]any{"effects": "everything"}}, &out)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "initializationOptions.effects") {
		t.Fatalf("bad effects: %v", err)
	}
}

func TestModesAndTape(t *testing.T) {
	ws := workspaceDir(t)
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "tape": tp}})

	v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"file_path": "README.md"}})
	if !v.Allowed || v.Verdict != "allow" || v.Rule != "allowed" || v.Kind != "read" || len(v.Targets) != 1 {
		t.Fatalf("read: %+v", v)
	}
	v = e.Check(map[string]any{"tool": "hallucinated_tool"})
	if v.Allowed || v.Rule != "not-in-allow-list" || !strings.Contains(v.ToolError, "NOTHING was executed") {
		t.Fatalf("unknown tool in enforce: %+v", v)
	}
	d := rpctest.Within(t, e.Decided, "didDecide")
	if d.ID == "" || d.Tool == "" {
		t.Fatalf("didDecide: %+v", d)
	}
	var st gate.State
	e.Call("admit/setMode", map[string]any{"mode": "warn"}, &st)
	if st.Mode != "warn" {
		t.Fatalf("setMode: %+v", st)
	}
	v = e.Check(map[string]any{"tool": "hallucinated_tool"})
	if !v.Allowed || v.Verdict != "deny" || v.Rule != "not-in-allow-list" || v.Mode != "warn" {
		t.Fatalf("warn: %+v", v)
	}
	e.Call("admit/state", map[string]any{}, &st)
	if st.Counts.WouldDeny != 1 || st.Counts.Denied != 1 || st.Counts.Allowed != 1 {
		t.Fatalf("counts: %+v", st.Counts)
	}
	e.Call("admit/setMode", map[string]any{"mode": "off"}, &st)
	v = e.Check(map[string]any{"tool": "hallucinated_tool"})
	if !v.Allowed || v.Rule != "caps-off" {
		t.Fatalf("off: %+v", v)
	}
	recs, err := tape.Query(tp, tape.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("tape has %d records, want 3 (off records nothing): %+v", len(recs), recs)
	}
	var res struct {
		Records []tape.Record `json:"records"`
	}
	e.Call("admit/tape", map[string]any{"rule": "not-in-allow-list"}, &res)
	if len(res.Records) != 2 || res.Records[1].Mode != "warn" {
		t.Fatalf("admit/tape by rule: %+v", res.Records)
	}
	if _, err := tape.Verify(tp); err != nil {
		t.Fatal(err)
	}
}

func TestSessionsBudgetAndRetries(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce"}})
	var out struct {
		Session string `json:"session"`
	}
	var raw json.RawMessage
	err := e.Try("admit/openSession", map[string]any{"label": "bad", "allow": []string{"*"}}, &raw)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "bare") {
		t.Fatalf("bare star: %v", err)
	}
	err = e.Try("admit/openSession", map[string]any{"label": "x", "allow": []string{"a"}, "writeRoots": []string{"/etc"}}, &raw)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "writeRoots") {
		t.Fatalf("write root outside: %v", err)
	}
	e.Call("admit/openSession", map[string]any{"label": "fix-bug", "tools": []map[string]any{
		{"type": "function", "function": map[string]any{"name": "read_file"}},
		{"name": "write_file"},
		{"name": "search", "annotations": map[string]any{"readOnlyHint": true}},
		{"name": "bash"},
	}, "bounds": map[string]any{"maxSteps": 6, "maxRetries": 1}}, &out)
	if out.Session == "" {
		t.Fatal("no session id")
	}
	s := out.Session
	v := e.Check(map[string]any{"session": s, "tool": "Read"})
	if v.Rule != "not-in-allow-list" || !strings.Contains(v.Reason, "fix-bug") || !strings.Contains(v.Reason, "read_file") {
		t.Fatalf("reason names label and grants: %+v", v)
	}
	curl := map[string]any{"session": s, "tool": "bash", "command": "curl http://example.com"}
	if v = e.Check(curl); v.Rule != "unsupported-program" {
		t.Fatalf("refused command: %+v", v)
	}
	if v = e.Check(curl); v.Rule != "unsupported-program" {
		t.Fatalf("first retry (maxRetries 1): %+v", v)
	}
	if v = e.Check(curl); v.Rule != "budget-exhausted" || !strings.Contains(v.Reason, "maxRetries") {
		t.Fatalf("second retry should spend the retry bound: %+v", v)
	}
	// The default session is not touched by the other session's budget.
	v = e.Check(map[string]any{"tool": "Read", "args": map[string]any{"path": "README.md"}})
	if !v.Allowed {
		t.Fatalf("default session: %+v", v)
	}
	v = e.Check(map[string]any{"session": s, "tool": "search", "args": map[string]any{"path": "src"}})
	if !v.Allowed {
		t.Fatalf("step 5: %+v", v)
	}
	e.Check(map[string]any{"session": s, "tool": "search", "args": map[string]any{"path": "src"}})
	v = e.Check(map[string]any{"session": s, "tool": "search", "args": map[string]any{"path": "src"}})
	if v.Rule != "budget-exhausted" || !strings.Contains(v.Reason, "maxSteps") {
		t.Fatalf("steps: %+v", v)
	}
	e.Call("admit/closeSession", map[string]any{"session": s}, &raw)
	if err := e.Try("admit/check", map[string]any{"session": s, "tool": "search"}, &raw); rpctest.ErrCode(err) != jsonrpc2.InvalidParams {
		t.Fatalf("closed session: %v", err)
	}
}

func TestObserveWriteAndStale(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	write := map[string]any{"tool": "Write", "args": map[string]any{"file_path": "notes.txt", "content": "x"}}
	if v := e.Check(write); v.Rule != "unobserved-target" {
		t.Fatalf("unobserved write: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"file_path": "notes.txt"}}); !v.Allowed {
		t.Fatalf("read: %+v", v)
	}
	if v := e.Check(write); !v.Allowed {
		t.Fatalf("write after read: %+v", v)
	}
	// Someone else changes the file: the observation goes stale, found at
	// decision time whatever the watcher has seen.
	time.Sleep(10 * time.Millisecond) // a distinct mtime on coarse clocks
	must(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("changed by someone else\n"), 0o644))
	if v := e.Check(write); v.Rule != "stale-observation" {
		t.Fatalf("stale write: %+v", v)
	}
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"paths": []string{"notes.txt"}, "dirs": []string{"src"}}, &n)
	if n.Observed != 2 {
		t.Fatalf("observe: %+v", n)
	}
	if v := e.Check(write); !v.Allowed {
		t.Fatalf("write after observe: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "Write", "args": map[string]any{"file_path": "src/new.go"}}); !v.Allowed {
		t.Fatalf("new file in a listed folder: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "Write", "args": map[string]any{"file_path": "../outside.txt"}}); v.Rule != "outside-write-root" {
		t.Fatalf("outside: %+v", v)
	}
	var raw json.RawMessage
	if err := e.Try("admit/observe", map[string]any{"paths": []string{"/etc/passwd"}}, &raw); rpctest.ErrCode(err) != jsonrpc2.InvalidParams {
		t.Fatalf("observe outside: %v", err)
	}
}

func TestRootsAddedAndRemoved(t *testing.T) {
	ws := workspaceDir(t)
	other := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce"}})
	read := map[string]any{"tool": "Read", "args": map[string]any{"file_path": filepath.Join(other, "README.md")}}
	if v := e.Check(read); v.Rule != "outside-workspace" {
		t.Fatalf("before adding: %+v", v)
	}
	e.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"added": []map[string]string{{"uri": "file://" + other, "name": "other"}}, "removed": []any{}}})
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if len(st.Roots) != 2 {
		t.Fatalf("roots: %v", st.Roots)
	}
	if v := e.Check(read); !v.Allowed {
		t.Fatalf("after adding: %+v", v)
	}
	e.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"added": []any{}, "removed": []map[string]string{{"uri": "file://" + other, "name": "other"}}}})
	if v := e.Check(read); v.Rule != "outside-workspace" {
		t.Fatalf("after removing: %+v", v)
	}
}

func TestConfigurationChange(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}})
	e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"admit": map[string]any{"mode": "enforce", "effects": "workspace-write", "shell": "refuse"}}})
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if st.Mode != "enforce" || st.Effects != "workspace-write" || st.Shell != "refuse" {
		t.Fatalf("state: %+v", st)
	}
	s := rpctest.Within(t, e.States, "didChangeState")
	_ = s

	// A misspelt or repeated setting changes nothing: the whole change is
	// refused (and logged), never applied in part.
	for _, bad := range []map[string]any{
		{"admit": map[string]any{"mode": "off", "efects": "read-only"}},
		{"admit": map[string]any{"mode": "off", "confinedRuns": 1}},
		{"mode": "off", "Shell": "analyze"},
	} {
		e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": bad})
		e.Call("admit/state", map[string]any{}, &st)
		if st.Mode != "enforce" || st.Effects != "workspace-write" || st.Shell != "refuse" {
			t.Fatalf("after %v: state %+v", bad, st)
		}
	}
}

func TestConcurrentChecksAreTapedOnce(t *testing.T) {
	ws := workspaceDir(t)
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "tape": tp}})
	const n = 500
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				var v gate.Verdict
				tool := "Read"
				if i%3 == 0 {
					tool = "nope"
				}
				if err := e.Try("admit/check", map[string]any{"tool": tool, "args": map[string]any{"path": fmt.Sprintf("f%d", i)}}, &v); err != nil {
					t.Error(err)
					return
				}
				ids <- v.ID
			}
		}(w)
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	recs, err := tape.Query(tp, tape.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.ID]++
	}
	if len(seen) != n || len(recs) != n {
		t.Fatalf("%d ids, %d records, want %d", len(seen), len(recs), n)
	}
	for id := range seen {
		if count[id] != 1 {
			t.Fatalf("id %s taped %d times", id, count[id])
		}
	}
	if got, err := tape.Verify(tp); err != nil || got != n {
		t.Fatalf("verify: %d %v", got, err)
	}
}

func TestTapeUnwritable(t *testing.T) {
	ws := workspaceDir(t)
	// A tape under a regular file cannot be opened, as on a read-only or
	// missing file system.
	blocker := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(blocker, nil, 0o600))
	tp := filepath.Join(blocker, "tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "tape": tp}})
	v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"path": "README.md"}})
	if v.Allowed || v.Rule != "tape-unwritable" {
		t.Fatalf("enforce: %+v", v)
	}
	var st gate.State
	e.Call("admit/setMode", map[string]any{"mode": "warn"}, &st)
	v = e.Check(map[string]any{"tool": "Read", "args": map[string]any{"path": "README.md"}})
	if !v.Allowed || v.Rule != "allowed" {
		t.Fatalf("warn goes on: %+v", v)
	}
	e.Call("admit/state", map[string]any{}, &st)
	if st.TapeError == "" {
		t.Fatalf("state does not report the tape: %+v", st)
	}
}

func TestBadPolicyFileKeepsGateClosed(t *testing.T) {
	ws := workspaceDir(t)
	must(t, os.MkdirAll(filepath.Join(ws, ".admit"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".admit", "policy.json"), []byte("{\n  \"allow\": [\"Read\"],\n  \"alow\": [\"x\"]\n}\n"), 0o644))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce"}})
	v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"path": "README.md"}})
	if v.Allowed || v.Rule != "policy-invalid" || !strings.Contains(v.Reason, "policy.json:3") || !strings.Contains(v.Reason, "alow") {
		t.Fatalf("bad policy: %+v", v)
	}
	for len(e.States) > 0 {
		<-e.States // the states before the change
	}
	must(t, os.WriteFile(filepath.Join(ws, ".admit", "policy.json"), []byte(`{"allow": ["Read", "Bash"], "needsHuman": ["Bash"]}`), 0o644))
	e.AwaitState(func(s gate.State) bool { return s.PolicyError == "" })
	v = e.Check(map[string]any{"tool": "Read", "args": map[string]any{"path": "README.md"}})
	if !v.Allowed {
		t.Fatalf("fixed policy: %+v", v)
	}
	v = e.Check(map[string]any{"tool": "Write", "args": map[string]any{"path": "README.md"}})
	if v.Rule != "not-in-allow-list" {
		t.Fatalf("policy file's allow list: %+v", v)
	}
}

func TestFileTools(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var r gate.FileResult
	e.Call("admit/read", map[string]any{"path": "notes.txt"}, &r)
	if r.Content == nil || *r.Content != "hello notes.txt\n" || r.Hash == "" {
		t.Fatalf("read: %+v", r)
	}
	var w gate.FileResult
	e.Call("admit/edit", map[string]any{"path": "notes.txt", "oldText": "hello", "newText": "goodbye", "expectHash": "0000"}, &w)
	if w.Allowed || w.Rule != "unobserved-target" {
		t.Fatalf("edit with a hash never read: %+v", w)
	}
	e.Call("admit/edit", map[string]any{"path": "notes.txt", "oldText": "hello", "newText": "goodbye", "expectHash": r.Hash}, &w)
	if !w.Allowed || w.Verified == nil || !*w.Verified {
		t.Fatalf("edit: %+v", w)
	}
	got, _ := os.ReadFile(filepath.Join(ws, "notes.txt"))
	if string(got) != "goodbye notes.txt\n" {
		t.Fatalf("file after edit: %q", got)
	}
	// Someone else edits between the agent's read and its next edit.
	e.Call("admit/read", map[string]any{"path": "notes.txt"}, &r)
	must(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("someone else\n"), 0o644))
	e.Call("admit/edit", map[string]any{"path": "notes.txt", "oldText": "goodbye", "newText": "x", "expectHash": r.Hash}, &w)
	if w.Allowed || w.Rule != "stale-observation" {
		t.Fatalf("edit after a change by someone else: %+v", w)
	}
	// A new file needs its folder listed; write then works.
	e.Call("admit/write", map[string]any{"path": "src/b.go", "content": "package b\n"}, &w)
	if w.Allowed {
		t.Fatalf("write to an unlisted folder: %+v", w)
	}
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"dirs": []string{"src"}}, &n)
	e.Call("admit/write", map[string]any{"path": "src/b.go", "content": "package b\n"}, &w)
	if !w.Allowed || w.Verified == nil || !*w.Verified {
		t.Fatalf("write: %+v", w)
	}
	e.Call("admit/write", map[string]any{"path": "src/deep/er/c.go", "content": "package c\n"}, &w)
	if !w.Allowed || w.Verified == nil || !*w.Verified {
		t.Fatalf("write into new folders under a listed one: %+v", w)
	}
	e.Call("admit/write", map[string]any{"path": "src/b.go", "content": "package c\n"}, &w)
	if w.Allowed || w.Rule != "stale-observation" {
		t.Fatalf("overwrite without expectHash: %+v", w)
	}
	e.Call("admit/write", map[string]any{"path": ".admit/policy.json", "content": "{}"}, &w)
	if w.Allowed {
		t.Fatalf("write to the gate's own files: %+v", w)
	}
}

func TestTapeRotationThroughTheServer(t *testing.T) {
	ws := workspaceDir(t)
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "tape": tp, "tapeRotateBytes": 2048}})
	for i := 0; i < 40; i++ {
		e.Check(map[string]any{"tool": "Read", "args": map[string]any{"path": "README.md"}})
	}
	if _, err := os.Stat(tp + ".1"); err != nil {
		t.Fatalf("no rotated file: %v", err)
	}
	if n, err := tape.Verify(tp); err != nil || n != 40 {
		t.Fatalf("verify across files: %d %v", n, err)
	}
}

// TestNoGoroutineLeftAfterExit runs a whole session and checks that the
// server's goroutines are gone once it exits.
func TestNoGoroutineLeftAfterExit(t *testing.T) {
	before := runtime.NumGoroutine()
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Listen: filepath.Join(t.TempDir(), "s.sock"), Init: map[string]any{"mode": "enforce", "policy": map[string]any{"allow": []string{"deploy"}, "needsHuman": []string{"deploy"}}}})
	go func() { var v gate.Verdict; _ = e.Try("admit/check", map[string]any{"tool": "deploy"}, &v) }()
	rpctest.Within(t, e.Asked, "question")
	var raw json.RawMessage
	e.Call("shutdown", nil, &raw)
	e.Notify("exit", nil)
	rpctest.Within(t, e.Exited, "exit")
	e.Disconnect()
	deadline := time.Now().Add(rpctest.WaitFor)
	for runtime.NumGoroutine() > before+1 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSymlinkEscapeCreatedAfterStartup: a link out of the workspace made
// while the server runs is seen by reads through it and by recursive reads.
func TestSymlinkEscapeCreatedAfterStartup(t *testing.T) {
	ws := workspaceDir(t)
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce"}})
	if v := e.Check(map[string]any{"tool": "bash", "command": "grep -R hello src"}); !v.Allowed {
		t.Fatalf("before the link: %+v", v)
	}
	must(t, os.Symlink(outside, filepath.Join(ws, "src", "vendor")))
	if v := e.Check(map[string]any{"tool": "bash", "command": "grep -R hello src"}); v.Allowed {
		t.Fatalf("recursive read through a new link out: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"file_path": "src/vendor/secret"}}); v.Rule != "outside-workspace" {
		t.Fatalf("read through a new link out: %+v", v)
	}
}

// TestWatchLimitReported: past the watch limit the server says so in its
// state and still finds a change at decision time.
func TestWatchLimitReported(t *testing.T) {
	ws := workspaceDir(t)
	for i := 0; i < 5; i++ {
		must(t, os.MkdirAll(filepath.Join(ws, "deep", fmt.Sprint(i)), 0o755))
	}
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Watch: workspace.WatchOptions{MaxWatches: 2}, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if st.Watch == nil || !st.Watch.Limited {
		t.Fatalf("state does not say the watch limit was reached: %+v", st.Watch)
	}
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"paths": []string{"notes.txt"}}, &n)
	time.Sleep(10 * time.Millisecond) // a distinct mtime on coarse clocks
	must(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("changed by someone else, longer\n"), 0o644))
	if v := e.Check(map[string]any{"tool": "Write", "args": map[string]any{"file_path": "notes.txt"}}); v.Rule != "stale-observation" {
		t.Fatalf("stale write with the watcher limited: %+v", v)
	}
}

// TestDefaultSessionRetryBound: the editor's session has no step budget,
// but a model retrying the same refused call is stopped, until the person
// changes the mode or the effect mode.
func TestDefaultSessionRetryBound(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce"}})
	call := map[string]any{"tool": "bash", "command": "touch new.txt"}
	for i := 0; i < 2; i++ {
		if v := e.Check(call); v.Rule != "read-only-effects" {
			t.Fatalf("try %d: %+v", i, v)
		}
	}
	if v := e.Check(call); v.Rule != "budget-exhausted" {
		t.Fatalf("third try: %+v", v)
	}
	var st gate.State
	e.Call("admit/setMode", map[string]any{"effects": "workspace-write"}, &st)
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"dirs": []string{"."}}, &n)
	if v := e.Check(call); !v.Allowed {
		t.Fatalf("after the person widened the effects: %+v", v)
	}
}
