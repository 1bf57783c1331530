package mcpgate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"admit/policy"
	"admit/rpc"
	"admit/rpc/gate"
	"admit/rpc/rpctest"
)

const waitFor = 10 * time.Second

// TestMain runs the test binary as a small MCP server when asked to: the
// gateway's tests start it as their child.
func TestMain(m *testing.M) {
	if log := os.Getenv("MCPGATE_FAKE_SERVER_LOG"); log != "" {
		os.Exit(fakeServer(log))
	}
	// The tapes' seal (key and marks, under XDG_DATA_HOME) in a folder of
	// the test run's own.
	data, err := os.MkdirTemp("", "admit-test-data-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	os.Exit(code)
}

// fakeServer speaks NDJSON MCP on stdio: initialize, tools/list with two
// tools, and tools/call, which records every call it receives to log.
func fakeServer(log string) int {
	fmt.Fprintln(os.Stderr, "fake MCP server: ready")
	out := json.NewEncoder(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		var result any
		switch m.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{"listChanged": true}}, "serverInfo": map[string]any{"name": "fake", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{
				map[string]any{"name": "read_note", "description": "Read a note", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}, "annotations": map[string]any{"readOnlyHint": true}},
				map[string]any{"name": "erase_note", "description": "Erase a note", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}, "annotations": map[string]any{"readOnlyHint": false, "destructiveHint": true}},
			}}
		case "tools/call":
			f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintf(f, "%s\n", m.Params)
				f.Close()
			}
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "ran " + p.Name}}}
		default:
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			continue
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}
	return 0
}

// client is the test's MCP client on the gateway's stdio.
type client struct {
	t     *testing.T
	in    *io.PipeWriter // the gateway's stdin
	lines chan map[string]any
	done  chan error
}

func startGateway(t *testing.T, door Door, cwd string) (*client, string, *bytes.Buffer) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "calls.log")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "MCPGATE_FAKE_SERVER_LOG="+log)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, lines: make(chan map[string]any, 64), done: make(chan error, 1)}
	go func() {
		c.done <- Run(context.Background(), cmd, inR, outW, Config{Door: door, Label: "mcp fake", Cwd: cwd})
		outW.Close()
		inR.Close()
	}()
	go func() {
		s := bufio.NewScanner(outR)
		for s.Scan() {
			var m map[string]any
			if err := json.Unmarshal(s.Bytes(), &m); err != nil {
				t.Errorf("the gateway wrote a line that is not JSON: %q", s.Text())
				continue
			}
			c.lines <- m
		}
		close(c.lines)
	}()
	return c, log, &stderr.buf
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// answer waits for the response with the given id.
func (c *client) answer(id float64) map[string]any {
	c.t.Helper()
	deadline := time.After(waitFor)
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("the gateway closed before answering %v", id)
			}
			if m["id"] == id {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no answer to %v", id)
		}
	}
}

func (c *client) close() {
	c.t.Helper()
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			c.t.Fatalf("Run: %v", err)
		}
	case <-time.After(waitFor):
		c.t.Fatal("the gateway did not stop after its input closed")
	}
}

func callLine(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func resultText(t *testing.T, m map[string]any) (string, bool) {
	t.Helper()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", m)
	}
	content := res["content"].([]any)
	isErr, _ := res["isError"].(bool)
	return content[0].(map[string]any)["text"].(string), isErr
}

func workspaceDir(t *testing.T) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("a note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func localDoor(t *testing.T, ws string) Door {
	t.Helper()
	g, err := gate.Open(gate.Options{Dirs: []string{ws}, Mode: "enforce", Effects: "workspace-write", Home: t.TempDir(), Bounds: policy.DefaultBounds(), Headless: true,
		Trust: gate.NewTrustStore(t.TempDir()), Rules: gate.NewRuleStore(t.TempDir(), ws)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

func recorded(t *testing.T, log string) []string {
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// TestGatewayLocal: with a gate in the process, a read-only tool inside
// the workspace runs; a read outside it, an unlisted tool and a
// destructive tool (nobody to ask) are refused and never reach the server.
func TestGatewayLocal(t *testing.T) {
	ws := workspaceDir(t)
	c, log, stderr := startGateway(t, localDoor(t, ws), ws)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if res := c.answer(1)["result"].(map[string]any); res["serverInfo"].(map[string]any)["name"] != "fake" {
		t.Fatalf("initialize did not pass through: %v", res)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if tools := c.answer(2)["result"].(map[string]any)["tools"].([]any); len(tools) != 2 {
		t.Fatalf("tools/list did not pass through: %v", tools)
	}

	c.send(callLine(3, "read_note", `{"path":"notes.txt"}`))
	if text, isErr := resultText(t, c.answer(3)); isErr || text != "ran read_note" {
		t.Fatalf("allowed call: %q isError=%v", text, isErr)
	}
	for id, tc := range map[int]struct{ tool, args, rule string }{
		4: {"read_note", `{"path":"/etc/passwd"}`, "outside-workspace"},
		5: {"erase_note", `{"path":"notes.txt"}`, "needs-human"},
		6: {"format_disk", `{}`, "not-in-allow-list"},
	} {
		c.send(callLine(id, tc.tool, tc.args))
		text, isErr := resultText(t, c.answer(float64(id)))
		if !isErr || !strings.Contains(text, `"rule":"`+tc.rule+`"`) || !strings.Contains(text, "NOTHING was executed") {
			t.Errorf("%s %s: %q isError=%v, want rule %s", tc.tool, tc.args, text, isErr, tc.rule)
		}
	}
	// A look-alike key must not smuggle a call past the gate.
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","Method":"ping","params":{"name":"read_note","arguments":{"path":"/etc/passwd"}}}`)
	if _, isErr := resultText(t, c.answer(7)); !isErr {
		t.Error("a tools/call with a look-alike key reached the server")
	}
	// A line that cannot be read is answered, not relayed.
	c.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call",`)
	c.close()

	calls := recorded(t, log)
	if len(calls) != 1 || !strings.Contains(calls[0], `"notes.txt"`) {
		t.Fatalf("the server received %q, want only the allowed read", calls)
	}
	if !strings.Contains(stderr.String(), "fake MCP server: ready") {
		t.Errorf("the child's stderr did not pass through: %q", stderr.String())
	}
}

// TestGatewayServer: with the editor's server, the destructive tool is put
// to the person in the editor, and their yes lets it through.
func TestGatewayServer(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Listen: rpctest.Socket(t), Init: map[string]any{"mode": "enforce", "effects": "workspace-write"},
		Answer: rpctest.Always("allow-once")})
	rc, err := rpc.Dial(context.Background(), e.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	c, log, _ := startGateway(t, rc, ws)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	c.answer(1)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(callLine(2, "read_note", `{"path":"notes.txt"}`))
	if text, isErr := resultText(t, c.answer(2)); isErr {
		t.Fatalf("read: %s", text)
	}
	c.send(callLine(3, "erase_note", `{"path":"notes.txt"}`))
	if text, isErr := resultText(t, c.answer(3)); isErr || text != "ran erase_note" {
		t.Fatalf("approved call: %q isError=%v", text, isErr)
	}
	select {
	case q := <-e.Asked:
		if !strings.Contains(q.Summary, "erase_note") {
			t.Errorf("the editor was asked about %q", q.Summary)
		}
	case <-time.After(waitFor):
		t.Fatal("no question in the editor")
	}
	c.send(callLine(4, "read_note", `{"path":"/etc/passwd"}`))
	if _, isErr := resultText(t, c.answer(4)); !isErr {
		t.Fatal("a read outside the workspace ran")
	}
	c.close()
	if calls := recorded(t, log); len(calls) != 2 {
		t.Fatalf("the server received %d calls, want 2: %q", len(calls), calls)
	}
}

// TestGatewayChildExits: when the server exits, the gateway returns.
func TestGatewayChildExits(t *testing.T) {
	ws := workspaceDir(t)
	cmd := exec.Command("sh", "-c", "read line; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'")
	inR, inW := io.Pipe()
	defer inW.Close()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), cmd, inR, &out, Config{Door: localDoor(t, ws), Cwd: ws}) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitFor):
		t.Fatal("Run did not return after the child exited")
	}
	if !strings.Contains(out.buf.String(), `"id":1`) {
		t.Fatalf("the child's answer was not relayed: %q", out.buf.String())
	}
}
