package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"admit/gate"
	"admit/mcpserver"
	"admit/policy"
	"admit/tape"
)

// conn is a test client on Serve's stdio.
type conn struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan json.RawMessage
	done  chan error
}

func start(t *testing.T, effects string) (*conn, string) {
	t.Helper()
	c, ws, _ := startTaped(t, effects, "")
	return c, ws
}

// startTaped is start with the gate's tape at tapePath ("" for none).
func startTaped(t *testing.T, effects, tapePath string) (*conn, string, *gate.Gate) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("a note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := gate.Open(gate.Options{Dirs: []string{ws}, Settings: gate.Settings{Mode: "enforce", Effects: effects}, Home: t.TempDir(), Bounds: policy.DefaultBounds(), Headless: true, TapePath: tapePath, TapeRequired: tapePath != ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &conn{t: t, in: inW, lines: make(chan json.RawMessage, 64), done: make(chan error, 1)}
	go func() {
		c.done <- mcpserver.Serve(context.Background(), inR, outW, mcpserver.Config{Door: g, Cwd: ws, Version: "test", Alone: "a test", Env: os.Environ()})
		outW.Close()
	}()
	go func() {
		s := bufio.NewScanner(outR)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			c.lines <- append(json.RawMessage(nil), s.Bytes()...)
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return c, ws, g
}

func (c *conn) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next is the next line the server wrote.
func (c *conn) next() json.RawMessage {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		return l
	case <-time.After(10 * time.Second):
		c.t.Fatal("no answer")
	}
	return nil
}

type answer struct {
	ID     json.RawMessage `json:"id"`
	Result map[string]any  `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *conn) answer() answer {
	c.t.Helper()
	var a answer
	if err := json.Unmarshal(c.next(), &a); err != nil {
		c.t.Fatal(err)
	}
	return a
}

func initialize(c *conn, version string) answer {
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a := c.answer()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return a
}

// TestLifecycle: version negotiation, requests before initialize, a second
// initialize, unknown methods, ping.
func TestLifecycle(t *testing.T) {
	for req, want := range map[string]string{"2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26", "2024-11-05": "2024-11-05", "2030-01-01": "2025-06-18"} {
		c, _ := start(t, "read-only")
		c.send(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`)
		if a := c.answer(); a.Error == nil || !strings.Contains(a.Error.Message, "initialize first") {
			t.Errorf("tools/list before initialize: %+v", a)
		}
		a := initialize(c, req)
		if a.Result["protocolVersion"] != want || a.Result["serverInfo"].(map[string]any)["name"] != "admit" {
			t.Errorf("initialize %s: %v", req, a.Result)
		}
		if caps := a.Result["capabilities"].(map[string]any); caps["tools"] == nil {
			t.Errorf("capabilities: %v", caps)
		}
		c.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
		if a := c.answer(); a.Error == nil || a.Error.Code != -32600 {
			t.Errorf("a second initialize: %+v", a)
		}
		c.send(`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`)
		if a := c.answer(); a.Error == nil || a.Error.Code != -32601 {
			t.Errorf("resources/list: %+v", a)
		}
		c.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
		if a := c.answer(); a.Error != nil || string(a.ID) != "4" {
			t.Errorf("ping: %+v", a)
		}
	}
}

// TestStrictMessages: a repeated key anywhere is refused with -32602 (in
// params) and nothing is done; a batch only in 2025-03-26.
func TestStrictMessages(t *testing.T) {
	c, ws := start(t, "workspace-write")
	initialize(c, "2025-06-18")
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read","arguments":{"path":"notes.txt","Path":"/etc/passwd"}}}`)
	if a := c.answer(); a.Error == nil || a.Error.Code != -32602 || !strings.Contains(a.Error.Message, "twice") {
		t.Errorf("a repeated key: %+v", a)
	}
	c.send(`[{"jsonrpc":"2.0","id":6,"method":"ping"}]`)
	if a := c.answer(); a.Error == nil || !strings.Contains(a.Error.Message, "2025-03-26") {
		t.Errorf("a batch in 2025-06-18: %+v", a)
	}
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{"path":"x.txt","content":"x","mode":"0777"}}}`)
	a := c.answer()
	if a.Result["isError"] != true || !strings.Contains(a.Result["content"].([]any)[0].(map[string]any)["text"].(string), "mode") {
		t.Errorf("an unknown argument: %+v", a)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); err == nil {
		t.Error("a call with an unknown argument wrote")
	}

	c2, _ := start(t, "read-only")
	initialize(c2, "2025-03-26")
	c2.send(`[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read","arguments":{"path":"notes.txt"}}}]`)
	var batch []answer
	if err := json.Unmarshal(c2.next(), &batch); err != nil || len(batch) != 2 {
		t.Fatalf("a batch in 2025-03-26: %v %+v", err, batch)
	}
}

// TestToolsAlone: a read, a refusal (with the verdict's text and a word
// that admit decided alone), and a write refused in read-only.
func TestToolsAlone(t *testing.T) {
	c, _ := start(t, "read-only")
	initialize(c, "2025-06-18")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if tools := c.answer().Result["tools"].([]any); len(tools) != 5 {
		t.Fatalf("tools: %v", tools)
	}
	for i, tc := range []struct{ call, want, rule string }{
		{`{"name":"read","arguments":{"path":"notes.txt"}}`, "a note\n", ""},
		{`{"name":"read","arguments":{"path":"/etc/passwd"}}`, "", "outside-workspace"},
		{`{"name":"edit","arguments":{"path":"notes.txt","oldText":"a","newText":"b"}}`, "", "read-only-effects"},
		{`{"name":"run","arguments":{"command":"cat /proc/self/environ"}}`, "", "outside-workspace"},
	} {
		c.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(10+i) + `,"method":"tools/call","params":` + tc.call + `}`)
		a := c.answer()
		content := a.Result["content"].([]any)
		text := content[0].(map[string]any)["text"].(string)
		isErr := a.Result["isError"] == true
		if tc.rule == "" {
			if isErr || text != tc.want {
				t.Errorf("%s: %q isError=%v", tc.call, text, isErr)
			}
			continue
		}
		if !isErr || !strings.Contains(text, `"rule":"`+tc.rule+`"`) || len(content) != 2 || !strings.Contains(content[1].(map[string]any)["text"].(string), "admit decided alone (a test)") {
			t.Errorf("%s: %v, want a refusal by %s", tc.call, a.Result, tc.rule)
		}
	}
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when its input closed")
	}
}

// TestRequestWithoutIDIsRefused: a tools/call sent without an id (a
// notification naming a request method), through the server's stdio as a
// client sends it, runs no tool: neither a write nor a run makes its
// marker, in any spelling of the method or inside a batch. Each is taped
// as a refusal of mcp:notification/METHOD, as admit's gateway tapes the
// same message. A real notification is not taped, and a call with an id
// still runs.
func TestRequestWithoutIDIsRefused(t *testing.T) {
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	c, ws, _ := startTaped(t, "workspace-write", tp)
	initialize(c, "2025-03-26")
	c.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write","arguments":{"path":"marker-write.txt","content":"ran"}}}`)
	c.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run","arguments":{"command":"touch marker-run.txt"}}}`)
	c.send(`{"jsonrpc":"2.0","method":"Tools/Call","params":{"name":"write","arguments":{"path":"marker-case.txt","content":"ran"}}}`)
	c.send(`[{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write","arguments":{"path":"marker-batch.txt","content":"ran"}}},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	var batch []answer
	if err := json.Unmarshal(c.next(), &batch); err != nil || len(batch) != 1 || string(batch[0].ID) != "3" {
		t.Fatalf("the batch's answers: %v %+v", err, batch)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read","arguments":{"path":"notes.txt"}}}`)
	if a := c.answer(); a.Result["isError"] == true {
		t.Fatalf("a call with an id: %+v", a)
	}
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when its input closed")
	}
	for _, m := range []string{"marker-write.txt", "marker-run.txt", "marker-case.txt", "marker-batch.txt"} {
		if _, err := os.Stat(filepath.Join(ws, m)); err == nil {
			t.Errorf("%s exists: a request without an id ran", m)
		}
	}
	recs, err := tape.Query(tp, tape.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]int{}
	for _, r := range recs {
		if strings.HasPrefix(r.Tool, "mcp:notification/") {
			if r.Allowed {
				t.Errorf("taped as allowed: %+v", r)
			}
			if r.Rule != "not-in-allow-list" {
				t.Errorf("taped with rule %s, want not-in-allow-list (no session grants the name): %+v", r.Rule, r)
			}
			refused[r.Tool]++
		}
	}
	want := map[string]int{"mcp:notification/tools/call": 3, "mcp:notification/Tools/Call": 1}
	if len(refused) != len(want) {
		t.Errorf("refusals on the tape: %v, want %v", refused, want)
	}
	for tool, n := range want {
		if refused[tool] != n {
			t.Errorf("the tape has %d refusals of %s, want %d (all: %v)", refused[tool], tool, n, refused)
		}
	}
}
