package rpc_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"admit/gate"
	"admit/policy"
	"admit/rpc"
	"admit/rpc/rpctest"
)

// TestSocketPeerCannotConfigure: a program the gate let run can reach the
// editor's socket. Through it, it may check, observe, run and ask; it can
// never switch the gate off or widen it, nor read the tape.
func TestSocketPeerCannotConfigure(t *testing.T) {
	ws := workspaceDir(t)
	sock := rpctest.Socket(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Listen: sock, Init: map[string]any{"mode": "enforce", "effects": "read-only"}})
	ctx := context.Background()
	c, err := rpc.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, call := range []struct {
		method string
		params any
	}{
		{"admit/setMode", map[string]any{"mode": "off"}},
		{"admit/setMode", map[string]any{"effects": "workspace-write"}},
		{"admit/tape", map[string]any{}},
		{"admit/trustPolicy", map[string]any{"path": filepath.Join(ws, ".admit", "policy.json"), "sum": strings.Repeat("0", 64)}},
		{"admit/distrustPolicy", map[string]any{}},
		{"admit/reviewPolicy", map[string]any{}},
	} {
		err := c.Call(ctx, call.method, call.params, nil)
		if rpctest.ErrCode(err) != jsonrpc2.InvalidRequest {
			t.Errorf("%s from the socket: %v", call.method, err)
		}
	}
	// The settings notification is ignored, not applied.
	if err := c.Notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"admit": map[string]any{"mode": "off", "effects": "workspace-write"}}}); err != nil {
		t.Fatal(err)
	}
	// A session opened from the socket is no wider than the editor's.
	id, err := c.OpenSession(ctx, gate.OpenSessionParams{CapsSpec: policy.CapsSpec{Label: "peer", Allow: []string{"Write"}}, Effects: "workspace-write"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Check(ctx, gate.CheckParams{Session: id, Tool: "Write", Args: []byte(`{"file_path":"README.md","content":"x"}`)})
	if err != nil || v.Allowed || v.Rule != "read-only-effects" {
		t.Errorf("write through a peer's session: %+v %v", v, err)
	}
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if st.Mode != "enforce" || st.Effects != "read-only" {
		t.Fatalf("a socket peer changed the settings: %s %s", st.Mode, st.Effects)
	}
	// The editor itself still may.
	e.Call("admit/setMode", map[string]any{"mode": "warn"}, &st)
	if st.Mode != "warn" {
		t.Fatalf("the editor's setMode: %s", st.Mode)
	}
}

// TestPolicyTrustThroughTheEditor: the editor shows an untrusted file with
// what it widens, the person trusts it, and a commit that changes it makes
// it untrusted again.
func TestPolicyTrustThroughTheEditor(t *testing.T) {
	ws := workspaceDir(t)
	file := `{"allow":["Read","deploy_prod"]}`
	must(t, os.MkdirAll(filepath.Join(ws, ".admit"), 0o755))
	path := filepath.Join(ws, ".admit", "policy.json")
	must(t, os.WriteFile(path, []byte(file), 0o644))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Init: map[string]any{"mode": "enforce"}})
	if v := e.Check(map[string]any{"tool": "deploy_prod"}); v.Allowed || v.PolicyTrust != "untrusted" {
		t.Fatalf("untrusted: %+v", v)
	}
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if st.PolicyTrust != "untrusted" || len(st.PolicyWidens) != 1 || !strings.Contains(st.PolicyWidens[0], "deploy_prod") {
		t.Fatalf("state: %+v", st)
	}
	var r gate.PolicyReview
	e.Call("admit/reviewPolicy", map[string]any{}, &r)
	if r.Path != path || r.Content != file || r.Sum == "" {
		t.Fatalf("review: %+v", r)
	}
	e.Call("admit/trustPolicy", map[string]any{"path": r.Path, "sum": r.Sum}, &st)
	if st.PolicyTrust != "trusted" {
		t.Fatalf("after trust: %+v", st)
	}
	if v := e.Check(map[string]any{"tool": "deploy_prod"}); !v.Allowed || v.PolicyTrust != "trusted" {
		t.Fatalf("trusted: %+v", v)
	}
	for len(e.States) > 0 {
		<-e.States // the states before the change
	}
	must(t, os.WriteFile(path, []byte(`{"allow":["Read","deploy_prod","rm_everything"]}`), 0o644))
	e.AwaitState(func(s gate.State) bool { return s.PolicyTrust == "untrusted" })
	if v := e.Check(map[string]any{"tool": "deploy_prod"}); v.Allowed || v.PolicyTrust != "untrusted" {
		t.Fatalf("changed file: %+v", v)
	}
	err := e.Try("admit/trustPolicy", map[string]any{"path": r.Path, "sum": r.Sum}, nil)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "changed since it was shown") {
		t.Fatalf("trusting a stale review: %v", err)
	}
}

// TestDryRun: the editor may ask what the gate would say without a
// decision: nothing asked, taped or counted; a socket peer may not.
func TestDryRun(t *testing.T) {
	ws := workspaceDir(t)
	sock := rpctest.Socket(t)
	tapePath := filepath.Join(t.TempDir(), "tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Listen: sock,
		Init: map[string]any{"mode": "enforce", "tape": tapePath, "policy": map[string]any{"allow": []string{"deploy", "Read"}, "needsHuman": []string{"deploy"}}}})
	v := e.Check(map[string]any{"tool": "deploy", "dryRun": true})
	if v.Allowed || !v.WouldAsk || v.Outcome != "ask" {
		t.Fatalf("dry run of an ask: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"file_path": "README.md"}, "dryRun": true}); !v.Allowed || v.WouldAsk {
		t.Fatalf("dry run of a read: %+v", v)
	}
	select {
	case q := <-e.Asked:
		t.Fatalf("a dry run asked: %+v", q)
	default:
	}
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if st.Counts.Allowed+st.Counts.Denied != 0 {
		t.Fatalf("a dry run was counted: %+v", st.Counts)
	}
	if data, _ := os.ReadFile(tapePath); len(data) != 0 {
		t.Fatalf("a dry run was taped: %s", data)
	}
	c, err := rpc.Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Check(context.Background(), gate.CheckParams{Tool: "deploy", DryRun: true}); rpctest.ErrCode(err) != jsonrpc2.InvalidParams {
		t.Fatalf("a socket peer's dry run: %v", err)
	}
}
