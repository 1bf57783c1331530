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

// TestSlowCheckDoesNotHoldTheConnection: a check that is still being
// decided does not hold the connection. The slow check here is one put to
// the person (the client renders approvals and answers only later), so
// that it is surely still running when the cheap check written behind it
// arrives, however busy the machine: the cheap one is answered first,
// then the person's answer ends the slow one.
func TestSlowCheckDoesNotHoldTheConnection(t *testing.T) {
	ws := workspaceDir(t)
	cli, srv := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		rpc.Serve(context.Background(), srv, rpc.ServerConfig{Logger: slog.New(slog.DiscardHandler), Home: t.TempDir(),
			Bounds: policy.DefaultBounds(), Listen: "none", TrustDir: t.TempDir(), RulesDir: t.TempDir()})
	}()
	t.Cleanup(func() { cli.Close(); <-done })
	stream := jsonrpc2.NewHeaderStream(cli)
	// msgs reads the wire (notifications skipped): a reply as its id, a
	// request of the server's as its method.
	type msg struct {
		reply string
		call  *jsonrpc2.Call
	}
	msgs := make(chan msg, 8)
	go func() {
		for {
			m, _, err := stream.Read(context.Background())
			if err != nil {
				close(msgs)
				return
			}
			switch m := m.(type) {
			case *jsonrpc2.Response:
				msgs <- msg{reply: fmt.Sprint(m.ID())}
			case *jsonrpc2.Call:
				msgs <- msg{call: m}
			}
		}
	}()
	next := func(what string) msg {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("the connection ended before %s", what)
			}
			return m
		case <-time.After(time.Minute):
			t.Fatalf("nothing came for %s", what)
		}
		return msg{}
	}
	init := frame(t, map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"processId": os.Getpid(), "capabilities": map[string]any{"experimental": map[string]any{"admit": map[string]any{"approve": true}}},
		"workspaceFolders":      []map[string]string{{"uri": "file://" + ws, "name": "ws"}},
		"initializationOptions": map[string]any{"mode": "enforce", "tape": filepath.Join(t.TempDir(), "tape.jsonl")},
	}})
	_, err := cli.Write([]byte(init + frame(t, map[string]any{"method": "initialized", "params": map[string]any{}})))
	must(t, err)
	if m := next("initialize"); m.reply != "1" {
		t.Fatalf("got %+v, want initialize's reply", m)
	}
	_, err = cli.Write([]byte(frame(t, map[string]any{"id": 2, "method": "admit/check", "params": map[string]any{"tool": "Bash", "command": "npm test"}})))
	must(t, err)
	ask := next("the question of the slow check")
	if ask.call == nil || ask.call.Method() != "admit/approve" {
		t.Fatalf("got %+v, want the server's admit/approve for the slow check", ask)
	}
	_, err = cli.Write([]byte(frame(t, map[string]any{"id": 3, "method": "admit/check", "params": map[string]any{"tool": "Bash", "command": "cat README.md"}})))
	must(t, err)
	if m := next("the cheap check"); m.reply != "3" {
		t.Fatalf("got %+v while the slow check (2) waited for its answer, want the cheap check's reply (3)", m)
	}
	answer, err := json.Marshal(map[string]string{"answer": "deny"})
	must(t, err)
	_, err = stream.Write(context.Background(), jsonrpc2.NewResponse(ask.call.ID(), answer, nil))
	must(t, err)
	if m := next("the slow check"); m.reply != "2" {
		t.Fatalf("got %+v, want the slow check's reply (2) once answered", m)
	}
	_, err = cli.Write([]byte(frame(t, map[string]any{"id": 4, "method": "shutdown"}) + frame(t, map[string]any{"method": "exit"})))
	must(t, err)
	next("shutdown")
	<-done
}
