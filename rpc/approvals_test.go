package rpc_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"admit/gate"
	"admit/rpc/rpctest"
	"admit/tape"
)

// askingPolicy makes "deploy" a tool that always needs a person.
var askingPolicy = map[string]any{"allow": []string{"deploy", "Read"}, "needsHuman": []string{"deploy"}}

func askingEditor(t *testing.T, approve bool, extra map[string]any) (*rpctest.Editor, string) {
	ws := workspaceDir(t)
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	init := map[string]any{"mode": "enforce", "tape": tp, "policy": askingPolicy}
	for k, v := range extra {
		init[k] = v
	}
	return rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: approve, ShowMessage: !approve, Init: init}), tp
}

func TestApprovalAnswers(t *testing.T) {
	for _, c := range []struct {
		answer, rule, by string
		allowed          bool
	}{
		{"allow-once", "human-approved", "person", true},
		{"deny", "human-denied", "person", false},
		{"allow-session", "human-approved", "person", true},
	} {
		t.Run(c.answer, func(t *testing.T) {
			e, tp := askingEditor(t, true, nil)
			e.SetAnswer(rpctest.Always(c.answer))
			v := e.Check(map[string]any{"tool": "deploy", "args": map[string]any{"target": "prod"}})
			if v.Allowed != c.allowed || string(v.Rule) != c.rule || string(v.DecidedBy) != c.by {
				t.Fatalf("verdict: %+v", v)
			}
			q := rpctest.Within(t, e.Asked, "admit/approve")
			if q.ID != v.ID || q.Tool != "deploy" || q.Summary == "" || q.Reason == "" || q.TimeoutMs <= 0 {
				t.Fatalf("question: %+v", q)
			}
			recs, _ := tape.Query(tp, tape.Filter{})
			last := recs[len(recs)-1]
			if last.DecidedBy != "person" || last.AskedAt.IsZero() || string(last.Rule) != c.rule {
				t.Fatalf("tape: %+v", last)
			}
		})
	}
}

func TestAllowSessionGrantStaysInItsSession(t *testing.T) {
	e, _ := askingEditor(t, true, nil)
	e.SetAnswer(rpctest.Always("allow-session"))
	call := map[string]any{"tool": "deploy", "args": map[string]any{"target": "prod"}}
	if v := e.Check(call); !v.Allowed {
		t.Fatalf("first: %+v", v)
	}
	rpctest.Within(t, e.Asked, "first question")
	e.SetAnswer(rpctest.Always("deny"))
	if v := e.Check(call); !v.Allowed || v.DecidedBy != "grant" {
		t.Fatalf("granted call: %+v", v)
	}
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if len(st.Grants["default"]) != 1 {
		t.Fatalf("grants in state: %+v", st.Grants)
	}
	var out struct {
		Session string `json:"session"`
	}
	e.Call("admit/openSession", map[string]any{"label": "other", "allow": []string{"deploy"}, "needsHuman": []string{"deploy"}}, &out)
	other := map[string]any{"session": out.Session, "tool": "deploy", "args": map[string]any{"target": "prod"}}
	if v := e.Check(other); v.Allowed || v.Rule != "human-denied" {
		t.Fatalf("grant leaked to another session: %+v", v)
	}
	st = gate.State{}
	e.Call("admit/revoke", map[string]any{"session": "", "grant": ""}, &st)
	if len(st.Grants["default"]) != 0 {
		t.Fatalf("revoke: %+v", st.Grants)
	}
	if v := e.Check(call); v.Allowed {
		t.Fatalf("after revoke: %+v", v)
	}
}

func TestApprovalTimeout(t *testing.T) {
	e, tp := askingEditor(t, true, map[string]any{"approvalTimeoutMs": 200})
	v := e.Check(map[string]any{"tool": "deploy"})
	if v.Allowed || v.Rule != "approval-timeout" || v.DecidedBy != "timeout" {
		t.Fatalf("timeout: %+v", v)
	}
	if id := rpctest.Within(t, e.Cancelled, "approvalCancelled"); id != v.ID {
		t.Fatalf("cancelled %q, want %q", id, v.ID)
	}
	recs, _ := tape.Query(tp, tape.Filter{Rule: "approval-timeout"})
	if len(recs) != 1 || recs[0].WaitedMs < 150 {
		t.Fatalf("tape: %+v", recs)
	}
}

func TestApprovalCancelledByClient(t *testing.T) {
	e, tp := askingEditor(t, true, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var v gate.Verdict
		done <- protocol.Call(ctx, e.Conn, "admit/check", map[string]any{"tool": "deploy"}, &v)
	}()
	q := rpctest.Within(t, e.Asked, "question")
	cancel()
	if id := rpctest.Within(t, e.Cancelled, "approvalCancelled"); id != q.ID {
		t.Fatalf("cancelled %q, want %q", id, q.ID)
	}
	<-done
	deadline := time.Now().Add(rpctest.WaitFor)
	for {
		recs, _ := tape.Query(tp, tape.Filter{Rule: "approval-cancelled"})
		if len(recs) == 1 && !recs[0].Allowed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no approval-cancelled record: %+v", recs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHundredPendingWhileChecksFlow(t *testing.T) {
	e, tp := askingEditor(t, true, nil) // never answers
	const n = 100
	var wg sync.WaitGroup
	results := make(chan gate.Verdict, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v gate.Verdict
			_ = e.Try("admit/check", map[string]any{"tool": "deploy", "args": map[string]any{"n": i}}, &v)
			results <- v
		}()
	}
	for i := 0; i < n; i++ {
		rpctest.Within(t, e.Asked, "question")
	}
	for i := 0; i < 20; i++ {
		if v := e.Check(map[string]any{"tool": "Read", "args": map[string]any{"path": "README.md"}}); !v.Allowed {
			t.Fatalf("a read while 100 wait: %+v", v)
		}
	}
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if st.Counts.Pending != n {
		t.Fatalf("pending = %d", st.Counts.Pending)
	}
	var raw json.RawMessage
	e.Call("shutdown", nil, &raw)
	wg.Wait()
	close(results)
	for v := range results {
		if v.Allowed || v.Rule != "approval-cancelled" {
			t.Fatalf("after shutdown: %+v", v)
		}
	}
	recs, _ := tape.Query(tp, tape.Filter{Tool: "deploy"})
	if len(recs) != n {
		t.Fatalf("%d deploy records, want %d", len(recs), n)
	}
}

func TestShowMessageRequestFallback(t *testing.T) {
	e, _ := askingEditor(t, false, nil)
	e.SetAnswer(rpctest.Always("allow-once"))
	v := e.Check(map[string]any{"tool": "deploy"})
	if !v.Allowed || v.Rule != "human-approved" {
		t.Fatalf("fallback: %+v", v)
	}
	q := rpctest.Within(t, e.Asked, "showMessageRequest")
	if q.Summary == "" {
		t.Fatal("empty message")
	}
}

func TestHeadlessRefusesWhatNeedsAPerson(t *testing.T) {
	ws := workspaceDir(t)
	// A client that renders neither approvals nor messages.
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "policy": askingPolicy}})
	v := e.Check(map[string]any{"tool": "deploy"})
	if v.Allowed || v.Rule != "needs-human" || v.DecidedBy != "headless" {
		t.Fatalf("headless: %+v", v)
	}
}

func TestDisconnectMidQuestion(t *testing.T) {
	e, tp := askingEditor(t, true, nil)
	go func() {
		var v gate.Verdict
		_ = e.Try("admit/check", map[string]any{"tool": "deploy"}, &v)
	}()
	rpctest.Within(t, e.Asked, "question")
	e.Disconnect() // the editor is gone, as when its process dies
	rpctest.Within(t, e.Exited, "server exit")
	recs, err := tape.Query(tp, tape.Filter{Tool: "deploy"})
	if err != nil || len(recs) != 1 || recs[0].Allowed {
		t.Fatalf("after disconnect: %+v %v", recs, err)
	}
}
