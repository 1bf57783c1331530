package rpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"admit/policy"
	"admit/rpc"
)

// frame is one LSP message as the wire carries it.
func frame(t *testing.T, msg map[string]any) string {
	t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	must(t, err)
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b)
}

// TestSlowCheckDoesNotHoldTheConnection: a check whose pattern walks a
// large folder does not hold the connection; a cheap check written right
// behind it, in the same write, is answered first.
func TestSlowCheckDoesNotHoldTheConnection(t *testing.T) {
	ws := workspaceDir(t)
	big := filepath.Join(ws, "big")
	must(t, os.MkdirAll(big, 0o755))
	for i := range 5_000 {
		f, err := os.Create(filepath.Join(big, fmt.Sprintf("f%05d.go", i)))
		must(t, err)
		f.Close()
	}
	cli, srv := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		rpc.Serve(context.Background(), srv, rpc.ServerConfig{Logger: slog.New(slog.DiscardHandler), Home: t.TempDir(),
			Bounds: policy.DefaultBounds(), Listen: "none", TrustDir: t.TempDir(), RulesDir: t.TempDir()})
	}()
	t.Cleanup(func() { cli.Close(); <-done })
	stream := jsonrpc2.NewHeaderStream(cli)
	// replies reads the wire (notifications skipped) and sends each
	// reply's id, in the order they came.
	replies := make(chan string, 8)
	go func() {
		for {
			m, _, err := stream.Read(context.Background())
			if err != nil {
				close(replies)
				return
			}
			if r, ok := m.(*jsonrpc2.Response); ok {
				replies <- fmt.Sprint(r.ID())
			}
		}
	}()
	next := func(what string) string {
		select {
		case id, ok := <-replies:
			if !ok {
				t.Fatalf("the connection ended before %s", what)
			}
			return id
		case <-time.After(time.Minute):
			t.Fatalf("no reply for %s", what)
		}
		return ""
	}
	init := frame(t, map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"processId": os.Getpid(), "capabilities": map[string]any{},
		"workspaceFolders":      []map[string]string{{"uri": "file://" + ws, "name": "ws"}},
		"initializationOptions": map[string]any{"mode": "enforce", "tape": filepath.Join(t.TempDir(), "tape.jsonl")},
	}})
	_, err := cli.Write([]byte(init + frame(t, map[string]any{"method": "initialized", "params": map[string]any{}})))
	must(t, err)
	if id := next("initialize"); id != "1" {
		t.Fatalf("reply %s, want initialize's", id)
	}
	slow := frame(t, map[string]any{"id": 2, "method": "admit/check", "params": map[string]any{"tool": "Bash", "command": "ls big/*.go"}})
	cheap := frame(t, map[string]any{"id": 3, "method": "admit/check", "params": map[string]any{"tool": "Bash", "command": "cat README.md"}})
	_, err = cli.Write([]byte(slow + cheap))
	must(t, err)
	first, second := next("the first check"), next("the second check")
	if first != "3" || second != "2" {
		t.Fatalf("replies came %s then %s: the cheap check (3) waited behind the slow one (2)", first, second)
	}
	_, err = cli.Write([]byte(frame(t, map[string]any{"id": 4, "method": "shutdown"}) + frame(t, map[string]any{"method": "exit"})))
	must(t, err)
	next("shutdown")
	<-done
}
