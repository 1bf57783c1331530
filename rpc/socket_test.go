package rpc_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"admit/gate"
	"admit/rpc"
	"admit/rpc/rpctest"
)

func TestSocketClientsShareTheGate(t *testing.T) {
	ws := workspaceDir(t)
	sock := filepath.Join(t.TempDir(), "run", "admit.sock")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Listen: sock, Init: map[string]any{"mode": "enforce", "policy": askingPolicy}})
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if st.Socket != sock {
		t.Fatalf("state socket %q, want %q", st.Socket, sock)
	}
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi, err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := rpc.Dial(ctx, sock)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			for j := 0; j < 20; j++ {
				v, err := c.Check(ctx, gate.CheckParams{Tool: "Read", Args: []byte(`{"path":"README.md"}`)})
				if err != nil || !v.Allowed {
					t.Errorf("socket check: %+v %v", v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// Observations made through the socket count for the editor's session.
	oc, err := rpc.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := oc.Observe(ctx, gate.ObserveParams{Paths: []string{"notes.txt"}}); err != nil || n != 1 {
		t.Fatalf("observe over the socket: %d %v", n, err)
	}
	_ = oc.Close()
	// A socket client's call that needs a person is asked in the editor.
	e.SetAnswer(rpctest.Always("allow-once"))
	c, err := rpc.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Check(ctx, gate.CheckParams{Tool: "deploy"})
	if err != nil || !v.Allowed || v.DecidedBy != "person" {
		t.Fatalf("approval through the editor: %+v %v", v, err)
	}
	rpctest.Within(t, e.Asked, "question in the editor")
	// A client that gives up on a question takes it back.
	e.SetAnswer(nil)
	cctx, cancel := context.WithCancel(ctx)
	go func() { _, _ = c.Check(cctx, gate.CheckParams{Tool: "deploy", Args: []byte(`{"n":1}`)}) }()
	q1 := rpctest.Within(t, e.Asked, "question to take back")
	cancel()
	if id := rpctest.Within(t, e.Cancelled, "approvalCancelled after cancel"); id != q1.ID {
		t.Fatalf("cancelled %q, want %q", id, q1.ID)
	}
	// A client that disconnects mid-question has its question refused.
	go func() { _, _ = c.Check(ctx, gate.CheckParams{Tool: "deploy", Args: []byte(`{"n":2}`)}) }()
	q := rpctest.Within(t, e.Asked, "second question")
	_ = c.Close()
	if id := rpctest.Within(t, e.Cancelled, "approvalCancelled"); id != q.ID {
		t.Fatalf("cancelled %q, want %q", id, q.ID)
	}
}
