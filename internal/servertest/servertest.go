// Package servertest starts a real admit server for tests outside rpc: the
// server on one end of a pipe, a small editor on the other that speaks the
// LSP framing by hand (so no package but rpc imports jsonrpc2), answers
// approval requests as scripted, and opens the server's socket for other
// local agents. Start is the entry point.
package servertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"admit/policy"
	"admit/rpc"
)

// waitFor is how long a test waits for the server; a deadline, not a sleep.
const waitFor = 10 * time.Second

// Options configure the server and its editor.
type Options struct {
	Roots []string       // workspace folders, absolute
	Home  string         // the server's home directory (default: a fresh temporary one)
	Init  map[string]any // initializationOptions (mode, effects, tape, policy, ...)
	// Answer answers admit/approve: "allow-once", "allow-session" or
	// "deny". Nil answers every question "deny".
	Answer func(tool, summary string) string
}

// Editor is the test's editor connection to a running server.
type Editor struct {
	Socket string      // the socket other local agents dial
	Asked  chan string // the summary of every question put to the editor
	conn   net.Conn    // the editor's end of the pipe
	done   chan int    // the server's exit code
	answer func(tool, summary string) string

	// mu guards writes to conn and pending.
	mu      sync.Mutex
	pending map[int64]chan json.RawMessage
	nextID  int64
}

// Start runs a server initialized with o and listening on a fresh socket;
// it stops when the test ends.
func Start(t testing.TB, o Options) *Editor {
	t.Helper()
	dir, err := os.MkdirTemp("", "admit-sock-") // short: a socket path has at most 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &Editor{Socket: filepath.Join(dir, "run", "admit.sock"), Asked: make(chan string, 256), done: make(chan int, 1), answer: o.Answer, pending: map[int64]chan json.RawMessage{}}
	cli, srv := net.Pipe()
	e.conn = cli
	logger := slog.New(slog.DiscardHandler)
	if testing.Verbose() && os.Getenv("ADMIT_TRACE") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	home := o.Home
	if home == "" {
		home = t.TempDir()
	}
	go func() {
		e.done <- rpc.Serve(context.Background(), srv, rpc.ServerConfig{Logger: logger, Home: home, Bounds: policy.DefaultBounds(), Listen: e.Socket})
	}()
	go e.read()
	t.Cleanup(func() {
		_ = cli.Close()
		select {
		case <-e.done:
		case <-time.After(waitFor):
			t.Error("servertest: the server did not stop")
		}
	})
	init := o.Init
	if init == nil {
		init = map[string]any{}
	}
	if _, ok := init["tape"]; !ok {
		init["tape"] = filepath.Join(t.TempDir(), "tape.jsonl")
	}
	var folders []map[string]string
	for _, r := range o.Roots {
		folders = append(folders, map[string]string{"uri": "file://" + r, "name": filepath.Base(r)})
	}
	caps := map[string]any{"experimental": map[string]any{"admit": map[string]any{"approve": true}}}
	if _, err := e.Call("initialize", map[string]any{"processId": os.Getpid(), "workspaceFolders": folders, "capabilities": caps, "initializationOptions": init}); err != nil {
		t.Fatalf("servertest: initialize: %v", err)
	}
	if err := e.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// Call sends a request and waits for its result.
func (e *Editor) Call(method string, params any) (json.RawMessage, error) {
	e.mu.Lock()
	e.nextID++
	id := e.nextID
	ch := make(chan json.RawMessage, 1)
	e.pending[id] = ch
	e.mu.Unlock()
	if err := e.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case raw := <-ch:
		var m struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %d %s", method, m.Error.Code, m.Error.Message)
		}
		return m.Result, nil
	case <-time.After(waitFor):
		return nil, fmt.Errorf("%s: no answer within %v", method, waitFor)
	}
}

func (e *Editor) send(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, err = fmt.Fprintf(e.conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// read is the editor's read loop: responses go to their callers, questions
// are answered as scripted, notifications are dropped.
func (e *Editor) read() {
	r := textproto.NewReader(bufio.NewReader(e.conn))
	for {
		h, err := r.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, err := strconv.Atoi(h.Get("Content-Length"))
		if err != nil {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r.R, body); err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch {
		case m.Method == "" && len(m.ID) > 0:
			id, _ := strconv.ParseInt(string(m.ID), 10, 64)
			e.mu.Lock()
			ch := e.pending[id]
			delete(e.pending, id)
			e.mu.Unlock()
			if ch != nil {
				ch <- body
			}
		case m.Method != "" && len(m.ID) > 0:
			go e.respond(m.ID, m.Method, m.Params)
		}
	}
}

func (e *Editor) respond(id json.RawMessage, method string, params json.RawMessage) {
	var result any
	if method == "admit/approve" {
		var q struct{ Tool, Summary string }
		_ = json.Unmarshal(params, &q)
		select {
		case e.Asked <- q.Summary:
		default:
		}
		ans := "deny"
		if e.answer != nil {
			ans = e.answer(q.Tool, q.Summary)
		}
		result = map[string]string{"answer": ans}
	}
	_ = e.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}
