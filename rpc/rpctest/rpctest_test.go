package rpctest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/gate"
	"admit/rpc"
	"admit/rpc/rpctest"
)

// TestEditor drives a server over each transport through the whole
// conversation: a question answered as scripted, one held until the server
// takes it back, the notifications, a second agent on the socket, and the
// exit.
func TestEditor(t *testing.T) {
	for _, osPipes := range []bool{false, true} {
		t.Run(map[bool]string{false: "net.Pipe", true: "os pipes"}[osPipes], func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Listen: rpctest.Socket(t), OSPipes: osPipes,
				Answer: rpctest.Always("allow-once"),
				Init: map[string]any{"mode": "enforce", "approvalTimeoutMs": 300,
					"policy": map[string]any{"allow": []string{"deploy"}, "needsHuman": []string{"deploy"}}}})
			v := e.Check(gate.CheckParams{Tool: "deploy"})
			q := rpctest.Within(t, e.Asked, "the question")
			if !v.Allowed || v.DecidedBy != "person" || q.ID != v.ID || q.Tool != "deploy" || q.Fallback {
				t.Fatalf("verdict %+v, question %+v", v, q)
			}
			if d := rpctest.Until(t, e.Decided, "its notification", func(d gate.Verdict) bool { return d.ID == v.ID }); !d.Allowed {
				t.Fatalf("didDecide: %+v", d)
			}
			e.SetAnswer(nil) // the person looks away: the server's deadline takes the question back
			v = e.Check(gate.CheckParams{Tool: "deploy", Args: []byte(`{"n":2}`)})
			if v.Allowed || v.DecidedBy != "timeout" {
				t.Fatalf("held question: %+v", v)
			}
			if id := rpctest.Within(t, e.Cancelled, "approvalCancelled"); id != v.ID {
				t.Fatalf("cancelled %q, want %q", id, v.ID)
			}
			c, err := rpc.Dial(t.Context(), e.Socket)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Check(t.Context(), gate.CheckParams{Tool: "nope"}); err != nil {
				t.Fatal(err)
			}
			_ = c.Close()
			var raw json.RawMessage
			e.Call("shutdown", nil, &raw)
			e.Notify("exit", nil)
			if code := rpctest.Within(t, e.Exited, "exit"); code != 0 {
				t.Fatalf("exit %d", code)
			}
		})
	}
}

// TestSocket: a socket path fits the 108 bytes of sockaddr_un however
// deep the test's temporary folder is, and is inside a folder removed with
// the test.
func TestSocket(t *testing.T) {
	p := rpctest.Socket(t)
	if len(p) >= 104 || !strings.HasPrefix(p, os.TempDir()) {
		t.Fatalf("socket path %q", p)
	}
	long := strings.Repeat("x", 100)
	t.Run(long, func(t *testing.T) {
		var dir string
		t.Cleanup(func() {
			// Cleanups run last in, first out: this one runs after Socket's.
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("%s is still there", dir)
			}
		})
		p := rpctest.Socket(t)
		if len(p) >= 104 {
			t.Fatalf("socket path of %d bytes: %q", len(p), p)
		}
		dir = filepath.Dir(filepath.Dir(p))
	})
}
