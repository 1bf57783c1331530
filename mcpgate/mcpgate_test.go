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

	"admit/gate"
	"admit/policy"
	"admit/rpc"
	"admit/rpc/rpctest"
	"admit/tape"
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

// fakeServer speaks NDJSON MCP on stdio: initialize, tools/list with
// three tools, tools/call, resources, prompts and completion; it records
// every request it receives (method and params) to log. Its ask_model
// tool sends the client a sampling/createMessage request and answers with
// what came back.
func fakeServer(log string) int {
	fmt.Fprintln(os.Stderr, "fake MCP server: ready")
	out := json.NewEncoder(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	var askedBy json.RawMessage // the tools/call waiting for the client's answer
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		if len(m.ID) == 0 { // a notification: recorded, never answered
			if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil && m.Method != "" {
				fmt.Fprintf(f, "notification %s %s\n", m.Method, m.Params)
				f.Close()
			}
			continue
		}
		if m.Method == "" { // the client's answer to our sampling request
			// The client's answers are recorded; the gateway's own refusal
			// (code -32001) is not the client's.
			if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil && !strings.Contains(string(m.Error), `"code":-32001`) {
				fmt.Fprintf(f, "answer %s %s%s\n", m.ID, m.Result, m.Error)
				f.Close()
			}
			text := "sampled: " + string(m.Result)
			if m.Error != nil {
				text = "sampling failed: " + string(m.Error)
			}
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": askedBy, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}})
			continue
		}
		if !strings.HasPrefix(string(m.ID), `"admit-mcp-`) {
			if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintf(f, "%s %s\n", m.Method, m.Params)
				f.Close()
			}
		}
		var result any
		switch m.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "resources": map[string]any{}, "prompts": map[string]any{}, "completions": map[string]any{}}, "serverInfo": map[string]any{"name": "fake", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{
				map[string]any{"name": "read_note", "description": "Read a note", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}, "annotations": map[string]any{"readOnlyHint": true}},
				map[string]any{"name": "erase_note", "description": "Erase a note", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}, "annotations": map[string]any{"readOnlyHint": false, "destructiveHint": true}},
				map[string]any{"name": "git_status", "description": "Status of a repository", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"repo_path": map[string]any{"type": "string"}}}, "annotations": map[string]any{"readOnlyHint": true}},
				map[string]any{"name": "ask_model", "description": "Ask the client's model", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}},
			}}
		case "tools/call":
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			if p.Name == "ask_model" {
				askedBy = m.ID
				_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say yes"}}}, "maxTokens": 5}})
				continue
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "ran " + p.Name}}}
		case "resources/read":
			var p struct{ URI string }
			_ = json.Unmarshal(m.Params, &p)
			switch p.URI {
			case "note://batch":
				// A request of the server's inside a batch.
				_, _ = fmt.Fprintln(os.Stdout, `[{"jsonrpc":"2.0","id":"sb","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}]`)
			case "note://trailing":
				// A request of the server's with text after it, which a
				// streaming reader would still take.
				_, _ = fmt.Fprintln(os.Stdout, `{"jsonrpc":"2.0","id":"st","method":"elicitation/create","params":{"message":"ok?","requestedSchema":{}}} x`)
			}
			if p.URI == "note://notify" {
				// A request of the server's sent as a notification.
				_ = out.Encode(map[string]any{"jsonrpc": "2.0", "method": "sampling/createMessage", "params": map[string]any{"messages": []any{}, "maxTokens": 5}})
			}
			result = map[string]any{"contents": []any{map[string]any{"uri": p.URI, "text": "content of " + p.URI}}}
		case "prompts/get":
			result = map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "a prompt"}}}}
		case "completion/complete":
			result = map[string]any{"completion": map[string]any{"values": []string{"notes.txt"}}}
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
	t     testing.TB
	in    *io.PipeWriter // the gateway's stdin
	lines chan map[string]any
	done  chan error
}

func startGateway(t testing.TB, door Door, cwd string) (*client, string, *bytes.Buffer) {
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
	return c.answerSeeing(id, nil)
}

// request waits for a request from the server with the given method.
func (c *client) request(method string) map[string]any {
	c.t.Helper()
	deadline := time.After(waitFor)
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("the gateway closed before relaying %s", method)
			}
			if m["method"] == method && m["id"] != nil {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no %s request", method)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
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

// calledTools keeps the tools/call lines of what the server received.
func calledTools(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "tools/call ") {
			out = append(out, l)
		}
	}
	return out
}

// rpcErr is the error of an answer.
func rpcErr(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error: %v", m)
	}
	return e
}

func workspaceDir(t testing.TB) string {
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

func localDoor(t testing.TB, ws string) Door {
	t.Helper()
	g, err := gate.Open(gate.Options{Dirs: []string{ws}, Settings: gate.Settings{Mode: "enforce", Effects: "workspace-write"}, Home: t.TempDir(), Bounds: policy.DefaultBounds(), Headless: true,
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
	if tools := c.answer(2)["result"].(map[string]any)["tools"].([]any); len(tools) != 4 {
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
	c.send(`{"jsonrpc":"2.0","id":7,"method":"ping","Method":"tools/call","params":{"name":"read_note","arguments":{"path":"/etc/passwd"}}}`)
	if e := rpcErr(t, c.answer(7)); e["code"] != float64(-32600) {
		t.Errorf("a request with a look-alike key: %v", e)
	}
	// A line that cannot be read is answered, not relayed.
	c.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call",`)
	c.close()

	calls := calledTools(recorded(t, log))
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
	// The server's sampling request is put to the person, and their yes
	// relays it to the client, whose answer goes back to the server.
	c.send(callLine(5, "ask_model", `{}`))
	req := c.request("sampling/createMessage")
	c.send(`{"jsonrpc":"2.0","id":` + mustJSON(req["id"]) + `,"result":{"role":"assistant","content":{"type":"text","text":"yes"},"model":"m"}}`)
	if text, isErr := resultText(t, c.answer(5)); isErr || !strings.Contains(text, `"text":"yes"`) {
		t.Fatalf("sampling through the person: %q", text)
	}
	select {
	case q := <-e.Asked:
		if q.Tool != "mcp:sampling/createMessage" {
			t.Errorf("the editor was asked about %q", q.Tool)
		}
	case <-time.After(waitFor):
		t.Fatal("no question about sampling in the editor")
	}
	c.close()
	if calls := calledTools(recorded(t, log)); len(calls) != 3 {
		t.Fatalf("the server received %d calls, want 3: %q", len(calls), calls)
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

// tapedDoor is a local gate (nobody to ask) that tapes to a file.
func tapedDoor(t *testing.T, ws string) (Door, string) {
	t.Helper()
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	g, err := gate.Open(gate.Options{Dirs: []string{ws}, Settings: gate.Settings{Mode: "enforce", Effects: "workspace-write"}, Home: t.TempDir(), Bounds: policy.DefaultBounds(), Headless: true, TapePath: tp, TapeRequired: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g, tp
}

// TestGatewayEveryRequest: every request either side sends is decided and
// taped before it is relayed: resources (a file: URI judged as a read),
// prompts, completion, listing, a method nobody grants, a server's
// sampling request (asked, so refused with nobody to ask), a tool's path
// under a name only its schema gives; a request that repeats a key is
// refused and never relayed; and a session takes far more than 64 calls.
func TestGatewayEveryRequest(t *testing.T) {
	ws := workspaceDir(t)
	door, tp := tapedDoor(t, ws)
	c, log, _ := startGateway(t, door, ws)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"test","version":"1"}}}`)
	c.answer(1)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fileURI := "file://" + filepath.Join(ws, "notes.txt")

	allowed := []struct {
		id   int
		line string
		tool string
	}{
		{10, `{"jsonrpc":"2.0","id":10,"method":"tools/list"}`, "mcp:tools/list"},
		{11, `{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"` + fileURI + `"}}`, "mcp:resources/read"},
		{12, `{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":"note://today"}}`, "mcp:resources/read"},
		{13, `{"jsonrpc":"2.0","id":13,"method":"prompts/get","params":{"name":"review","arguments":{"file":"notes.txt"}}}`, "mcp:prompts/get"},
		{14, `{"jsonrpc":"2.0","id":14,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"file","value":"no"}}}`, "mcp:completion/complete"},
		{15, callLine(15, "git_status", `{"repo_path":"."}`), "git_status"},
	}
	for _, a := range allowed {
		c.send(a.line)
		if m := c.answer(float64(a.id)); m["error"] != nil {
			t.Errorf("%s was refused: %v", a.tool, m["error"])
		} else if res, _ := m["result"].(map[string]any); res["isError"] == true {
			t.Errorf("%s was refused: %v", a.tool, res)
		}
	}
	refused := []struct {
		id         int
		line, rule string
		code       float64 // 0: a tool result with isError
	}{
		{20, `{"jsonrpc":"2.0","id":20,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`, "outside-workspace", -32001},
		{21, `{"jsonrpc":"2.0","id":21,"method":"resources/subscribe","params":{"uri":"file:///etc/shadow"}}`, "outside-workspace", -32001},
		{22, `{"jsonrpc":"2.0","id":22,"method":"prompts/get","params":{"name":"review","arguments":{"file":"/etc/passwd"}}}`, "outside-workspace", -32001},
		{23, `{"jsonrpc":"2.0","id":23,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":"/etc/"}}}`, "outside-workspace", -32001},
		{24, `{"jsonrpc":"2.0","id":24,"method":"tools/destroy","params":{}}`, "not-in-allow-list", -32001},
		{25, callLine(25, "git_status", `{"repo_path":"/etc"}`), "outside-workspace", 0},
		{26, `{"jsonrpc":"2.0","id":26,"method":"Resources/Read","params":{"uri":"file:///etc/passwd"}}`, "outside-workspace", -32001},
	}
	for _, r := range refused {
		c.send(r.line)
		m := c.answer(float64(r.id))
		if r.code == 0 {
			text, isErr := resultText(t, m)
			if !isErr || !strings.Contains(text, `"rule":"`+r.rule+`"`) {
				t.Errorf("%d: %q isError=%v, want rule %s", r.id, text, isErr, r.rule)
			}
			continue
		}
		e := rpcErr(t, m)
		data, _ := e["data"].(map[string]any)
		if e["code"] != r.code || data["rule"] != r.rule {
			t.Errorf("%d: %v, want code %v and rule %s", r.id, e, r.code, r.rule)
		}
	}
	// A key given twice, at any depth and under any case, is refused.
	for id, line := range map[int]string{
		30: `{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"read_note","arguments":{"path":"notes.txt","path":"/etc/passwd"}}}`,
		31: `{"jsonrpc":"2.0","id":31,"method":"resources/read","params":{"uri":"` + fileURI + `","URI":"file:///etc/passwd"}}`,
		32: `{"jsonrpc":"2.0","id":32,"method":"prompts/get","params":{"name":"review","arguments":{"a":{"b":1,"b":2}}}}`,
	} {
		c.send(line)
		if e := rpcErr(t, c.answer(float64(id))); e["code"] != float64(-32602) {
			t.Errorf("%d: %v, want -32602", id, e)
		}
	}
	// The server asks the client's model: with nobody to ask, refused,
	// and the server is told; the client never sees the request.
	c.send(callLine(40, "ask_model", `{}`))
	if text, _ := resultText(t, c.answer(40)); !strings.Contains(text, "sampling failed") || !strings.Contains(text, "needs-human") {
		t.Errorf("sampling: %q", text)
	}
	// Far more than 64 calls in one session.
	for i := 100; i < 180; i++ {
		c.send(callLine(i, "read_note", `{"path":"notes.txt"}`))
		if text, isErr := resultText(t, c.answer(float64(i))); isErr {
			t.Fatalf("call %d of the session: %s", i-99, text)
		}
	}
	c.close()

	got := recorded(t, log)
	for _, l := range got {
		if !strings.HasPrefix(l, "initialize ") && (strings.Contains(l, "/etc/") || strings.Contains(l, "destroy") || strings.Contains(l, "sampl") || strings.Contains(l, `"b":2`)) {
			t.Errorf("the server received a refused request: %s", l)
		}
	}
	recs, err := tape.Query(tp, tape.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	byTool := map[string][]tape.Record{}
	for _, r := range recs {
		byTool[r.Tool] = append(byTool[r.Tool], r)
	}
	for tool, want := range map[string]int{"mcp:tools/list": 1, "mcp:resources/read": 4, "mcp:resources/subscribe": 1, "mcp:prompts/get": 2, "mcp:completion/complete": 2, "mcp:tools/destroy": 1, "git_status": 2, "mcp:sampling/createMessage": 1, "read_note": 80, "ask_model": 1} {
		if n := len(byTool[tool]); n != want {
			t.Errorf("the tape has %d records of %s, want %d", n, tool, want)
		}
	}
	if s := byTool["mcp:sampling/createMessage"]; len(s) == 1 && (s[0].Allowed || s[0].Rule != "needs-human") {
		t.Errorf("sampling taped as %+v", s[0])
	}
	if n, err := tape.Verify(tp); err != nil || n != len(recs) {
		t.Errorf("tape verify: %d %v", n, err)
	}
}

// TestRequestWithoutIDIsRefused: a request method sent as a notification
// (no id) is never relayed, from either side, and its refusal is on the
// tape: a tools/call of the destructive tool, one of a tool nobody lists,
// a resources/read outside the workspace, a spelling with other case; the
// server's sampling/createMessage without an id never reaches the client.
// Real notifications still pass.
func TestRequestWithoutIDIsRefused(t *testing.T) {
	ws := workspaceDir(t)
	door, tp := tapedDoor(t, ws)
	c, log, _ := startGateway(t, door, ws)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"test","version":"1"}}}`)
	c.answer(1)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"erase_note","arguments":{"path":"notes.txt"}}}`)
	c.send(`{"jsonrpc":"2.0","method":"Tools/Call","params":{"name":"read_note","arguments":{"path":"/etc/passwd"}}}`)
	c.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"format_disk","arguments":{}}}`)
	c.send(`{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"file:///etc/passwd"}}`)
	c.send(`[{"jsonrpc":"2.0","method":"tools/call","params":{"name":"erase_note","arguments":{"path":"batch.txt"}}}]`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"note://notify"}}`)
	if m := c.answer(2); m["result"] == nil {
		t.Fatalf("resources/read: %v", m)
	}
	// The client's line after the server's: anything relayed before it
	// would have come first.
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	c.answer(3)
	c.close()
	for m := range c.lines {
		if m["method"] == "sampling/createMessage" {
			t.Errorf("the server's request without an id reached the client: %v", m)
		}
	}

	var notes []string
	for _, l := range recorded(t, log) {
		if strings.HasPrefix(l, "notification ") {
			notes = append(notes, l)
		}
		if strings.HasPrefix(l, "tools/call") || strings.Contains(l, "passwd") || strings.Contains(l, "batch.txt") {
			t.Errorf("the server received %s", l)
		}
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "notification notifications/initialized") {
		t.Errorf("notifications the server received: %q, want only notifications/initialized", notes)
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
			refused[r.Tool]++
		}
	}
	want := map[string]int{"mcp:notification/tools/call": 3, "mcp:notification/Tools/Call": 1, "mcp:notification/resources/read": 1, "mcp:notification/sampling/createMessage": 1}
	for tool, n := range want {
		if refused[tool] != n {
			t.Errorf("the tape has %d refusals of %s, want %d (all: %v)", refused[tool], tool, n, refused)
		}
	}
}
