package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"admit/rpc/rpctest"
	"admit/tape"
)

// The tests below drive `admit mcp` with a real MCP client: the official
// SDK (@modelcontextprotocol/sdk, from npm, pinned in testdata/mcp's
// package-lock.json and installed there by scripts/test with npm ci), run
// by node. The client starts this test binary as admit, as an MCP client
// starts the admit it is configured with.

// mcpHarness is the folder of the node scripts, or a skip with the reason.
func mcpHarness(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed, so the MCP SDK's client cannot run: " + err.Error())
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the MCP SDK is not installed: run `npm ci` in internal/cli/testdata/mcp (scripts/test does)")
	}
	return dir
}

// mcpWorkspace is a project folder: a git repository with one note.
func mcpWorkspace(t *testing.T) string {
	t.Helper()
	ws := testWorkspace(t)
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("a note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// runNode runs one of the harness's scripts, with admit (this binary)
// started by the SDK's transport with admitArgs, and decodes what the
// script printed.
func runNode(t *testing.T, script, ws string, admitArgs []string, env ...string) map[string]any {
	t.Helper()
	dir := mcpHarness(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(admitArgs)
	cmd := exec.Command("node", filepath.Join(dir, script))
	cmd.Dir = ws
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ADMIT_") { // the person's own settings and socket stay out of the test
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "ADMIT_TEST_AS_ADMIT=1", "ADMIT_BIN="+self, "ADMIT_ARGS="+string(args), "WS="+ws)
	cmd.Env = append(cmd.Env, env...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not finish; stderr:\n%s", script, stderr.String())
	}
	if err != nil {
		t.Fatalf("%s: %v\nstdout: %s\nstderr:\n%s", script, err, out.String(), stderr.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%s printed %q: %v\nstderr:\n%s", script, out.String(), err, stderr.String())
	}
	t.Logf("%s stderr:\n%s", script, stderr.String())
	return res
}

// step is one outcome the scripts print.
type step struct {
	OK      bool           `json:"ok"`
	IsError bool           `json:"isError"`
	Text    string         `json:"text"`
	Code    float64        `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

func stepOf(t *testing.T, res map[string]any, name string) step {
	t.Helper()
	raw, err := json.Marshal(res[name])
	if err != nil || res[name] == nil {
		t.Fatalf("no step %s in %v", name, res)
	}
	var s step
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// tapeByTool reads a tape and groups its records by tool.
func tapeByTool(t *testing.T, path string) map[string][]tape.Record {
	t.Helper()
	recs, err := tape.Query(path, tape.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tape.Verify(path); err != nil || n != len(recs) {
		t.Fatalf("tape --verify: %d records, %v", n, err)
	}
	out := map[string][]tape.Record{}
	for _, r := range recs {
		out[r.Tool] = append(out[r.Tool], r)
	}
	return out
}

func rulesOf(recs []tape.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, string(r.Rule))
	}
	return out
}

// TestMCPServeRealClient: admit's own MCP server, deciding alone, used by
// the SDK's client: the tools and their annotations listed; a read, a
// folder listed, a new file written, an edit, a run and a search, each
// done; reads and writes outside the workspace, a protected path and a
// command reading outside refused as tool errors carrying the verdict's
// text; bad arguments and an unknown tool answered; and every decision on
// the tape.
func TestMCPServeRealClient(t *testing.T) {
	ws := mcpWorkspace(t)
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	res := runNode(t, "serve-client.mjs", ws, []string{"mcp", "serve", "--cwd", ws, "--tape", tp}, "ADMIT_EFFECTS=workspace-write")

	var tools []struct {
		Name        string          `json:"name"`
		Annotations map[string]any  `json:"annotations"`
		Required    []string        `json:"required"`
		Extra       json.RawMessage `json:"-"`
	}
	raw, _ := json.Marshal(res["tools"])
	_ = json.Unmarshal(raw, &tools)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		ro, _ := tl.Annotations["readOnlyHint"].(bool)
		if want := tl.Name == "read" || tl.Name == "search"; ro != want {
			t.Errorf("%s: readOnlyHint %v", tl.Name, tl.Annotations["readOnlyHint"])
		}
	}
	if !slices.Equal(names, []string{"edit", "read", "run", "search", "write"}) {
		t.Fatalf("tools: %q", names)
	}
	if s, _ := res["instructions"].(string); !strings.Contains(s, "admit decides alone") {
		t.Errorf("the instructions do not say admit decides alone: %q", s)
	}

	done := func(name, want string) {
		t.Helper()
		s := stepOf(t, res, name)
		if !s.OK || s.IsError || !strings.Contains(s.Text, want) {
			t.Errorf("%s: %+v, want a result with %q", name, s, want)
		}
	}
	refused := func(name, rule string) {
		t.Helper()
		s := stepOf(t, res, name)
		if !s.OK || !s.IsError || !strings.Contains(s.Text, `"rule":"`+rule+`"`) || !strings.Contains(s.Text, "NOTHING was executed") || !strings.Contains(s.Text, "admit decided alone") {
			t.Errorf("%s: %+v, want a tool error with rule %s", name, s, rule)
		}
	}
	done("read", "a note\n")
	done("list", "notes.txt\n")
	done("write", "wrote "+filepath.Join(ws, "new.txt"))
	done("edit", "edited "+filepath.Join(ws, "notes.txt"))
	done("run", "exit code 0")
	done("run", "1\n")
	done("search", "./notes.txt:1:an edited note")
	done("searchNone", "no match")
	refused("readOutside", "outside-workspace")
	refused("readHome", "outside-workspace")
	refused("writeOutside", "outside-write-root")
	refused("writeProtected", "protected-path")
	refused("runOutside", "outside-workspace")
	if s := stepOf(t, res, "badArgs"); !s.IsError || !strings.Contains(s.Text, "pathh") {
		t.Errorf("bad arguments: %+v", s)
	}
	if s := stepOf(t, res, "unknownTool"); s.OK || s.Code != -32602 {
		t.Errorf("an unknown tool: %+v", s)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "new.txt")); string(b) != "written by the model\n" {
		t.Errorf("new.txt holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "an edited note\n" {
		t.Errorf("notes.txt holds %q", b)
	}
	if _, err := os.Stat("/tmp/admit-mcp-serve-outside.txt"); err == nil {
		t.Error("a write outside the workspace happened")
	}

	byTool := tapeByTool(t, tp)
	for tool, want := range map[string][]string{
		"admit.read":  {"allowed", "outside-workspace", "outside-workspace", "allowed"},
		"admit.write": {"allowed", "write-result", "outside-write-root", "protected-path"},
		"admit.edit":  {"allowed", "write-result"},
		"admit.run":   {"allowed", "run-result", "outside-workspace", "allowed", "run-result", "allowed", "run-result"},
	} {
		if got := rulesOf(byTool[tool]); !slices.Equal(got, want) {
			t.Errorf("the tape's %s records: %q, want %q", tool, got, want)
		}
	}
}

// TestMCPServeThroughEditor: with the editor's server reachable, admit's
// MCP server decides through it: the same tools, the editor's tape, and
// no word of deciding alone.
func TestMCPServeThroughEditor(t *testing.T) {
	ws := mcpWorkspace(t)
	tp := filepath.Join(t.TempDir(), "editor-tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Listen: rpctest.Socket(t), Init: map[string]any{"mode": "enforce", "effects": "workspace-write", "tape": tp},
		Answer: rpctest.Always("allow-once")})
	res := runNode(t, "serve-client.mjs", ws, []string{"mcp", "serve", "--cwd", ws}, "ADMIT_SOCKET="+e.Socket)
	if s, _ := res["instructions"].(string); strings.Contains(s, "alone") || !strings.Contains(s, "editor") {
		t.Errorf("instructions: %q", s)
	}
	if s := stepOf(t, res, "edit"); s.IsError {
		t.Errorf("edit through the editor: %+v", s)
	}
	if s := stepOf(t, res, "readOutside"); !s.IsError || strings.Contains(s.Text, "alone") {
		t.Errorf("a refusal through the editor: %+v", s)
	}
	if recs := tapeByTool(t, tp)["admit.read"]; len(recs) != 4 {
		t.Errorf("the editor's tape has %d admit.read records, want 4", len(recs))
	}
}

// gatewayArgs starts the gateway in front of the SDK-built fake server.
func gatewayArgs(t *testing.T, ws string, extra ...string) ([]string, string, string) {
	dir := mcpHarness(t)
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	log := filepath.Join(t.TempDir(), "fake.log")
	args := append([]string{"mcp", "--cwd", ws, "--tape", tp}, extra...)
	return append(args, "--", "node", filepath.Join(dir, "fake-server.mjs")), tp, log
}

// TestMCPGatewayRealClient: the gateway in front of a server built with
// the SDK's McpServer, driven by the SDK's client, deciding alone: tool
// calls allowed and refused (one by a path under a name only the tool's
// schema gives); resources read inside, and file:///etc/passwd refused
// (the server would have read it); prompts and completion decided;
// sampling and elicitation from the server refused (nobody to ask), roots
// decided; 80 calls in one session; a request repeating a key refused
// with -32602 and never relayed; and each decision on the tape.
func TestMCPGatewayRealClient(t *testing.T) {
	ws := mcpWorkspace(t)
	args, tp, log := gatewayArgs(t, ws)
	res := runNode(t, "gateway-client.mjs", ws, args, "FAKE_LOG="+log)

	done := func(name, want string) {
		t.Helper()
		s := stepOf(t, res, name)
		if !s.OK || s.IsError || !strings.Contains(s.Text, want) {
			t.Errorf("%s: %+v, want a result with %q", name, s, want)
		}
	}
	rejected := func(name, rule string) {
		t.Helper()
		s := stepOf(t, res, name)
		if s.OK || s.Code != -32001 || s.Data["rule"] != rule {
			t.Errorf("%s: %+v, want error -32001 with rule %s", name, s, rule)
		}
	}
	done("callInside", "ran read_note notes.txt")
	if s := stepOf(t, res, "callOutside"); !s.IsError || !strings.Contains(s.Text, `"rule":"outside-workspace"`) {
		t.Errorf("callOutside: %+v", s)
	}
	if s := stepOf(t, res, "schemaPathOutside"); !s.IsError || !strings.Contains(s.Text, `"rule":"outside-workspace"`) {
		t.Errorf("a path under a name only the schema gives: %+v", s)
	}
	done("resourceInside", "a note\n")
	rejected("resourceOutside", "outside-workspace")
	done("resourceOther", "a note for today")
	done("promptInside", "Review notes.txt")
	rejected("promptOutside", "outside-workspace")
	done("complete", "notes.txt")
	done("sampling", "sampling failed")
	done("sampling", "needs-human")
	done("elicitation", "elicitation failed")
	done("roots", "roots: file://"+ws)
	if n, _ := res["many"].(float64); n != 80 {
		t.Errorf("%v of 80 calls in one session answered: %v", res["many"], res["manyFailed"])
	}
	dup, _ := res["duplicate"].(map[string]any)
	if e, _ := dup["error"].(map[string]any); e["code"] != float64(-32602) {
		t.Errorf("a request repeating a key: %v", dup)
	}
	if asked, _ := res["asked"].([]any); len(asked) != 0 {
		t.Errorf("the client was asked %v with nobody to approve", asked)
	}

	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.Contains(line, "/etc/") {
			t.Errorf("the server received a refused request: %s", line)
		}
	}
	if strings.Contains(string(data), "root:") {
		t.Error("/etc/passwd's content went somewhere")
	}

	byTool := tapeByTool(t, tp)
	for tool, want := range map[string]int{
		"read_note": 82, "git_status": 1, "ask_model": 1, "ask_person": 1, "list_roots": 1,
		"mcp:tools/list": 1, "mcp:resources/read": 3, "mcp:prompts/get": 2, "mcp:completion/complete": 1,
		"mcp:sampling/createMessage": 1, "mcp:elicitation/create": 1, "mcp:roots/list": 1,
	} {
		if n := len(byTool[tool]); n != want {
			t.Errorf("the tape has %d records of %s, want %d (%q)", n, tool, want, rulesOf(byTool[tool]))
		}
	}
	for _, tool := range []string{"mcp:sampling/createMessage", "mcp:elicitation/create"} {
		for _, r := range byTool[tool] {
			if r.Allowed || r.Rule != "needs-human" {
				t.Errorf("%s taped as allowed=%v rule=%s", tool, r.Allowed, r.Rule)
			}
		}
	}
}

// TestMCPGatewayRealClientEditor: through the editor's server, the
// server's sampling and elicitation requests are put to the person, and
// their yes lets the client's model and person answer.
func TestMCPGatewayRealClientEditor(t *testing.T) {
	ws := mcpWorkspace(t)
	tp := filepath.Join(t.TempDir(), "editor-tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Listen: rpctest.Socket(t), Init: map[string]any{"mode": "enforce", "tape": tp},
		Answer: rpctest.Always("allow-once")})
	args, _, log := gatewayArgs(t, ws)
	res := runNode(t, "gateway-client.mjs", ws, args, "FAKE_LOG="+log, "ADMIT_SOCKET="+e.Socket)
	for name, want := range map[string]string{"sampling": "sampled: yes", "elicitation": "elicited: accept", "callInside": "ran read_note"} {
		if s := stepOf(t, res, name); !s.OK || s.IsError || !strings.Contains(s.Text, want) {
			t.Errorf("%s: %+v, want %q", name, s, want)
		}
	}
	if s := stepOf(t, res, "resourceOutside"); s.OK || s.Data["rule"] != "outside-workspace" {
		t.Errorf("resourceOutside through the editor: %+v", s)
	}
	var questions []string
	for len(e.Asked) > 0 {
		questions = append(questions, (<-e.Asked).Tool)
	}
	if !slices.Contains(questions, "mcp:sampling/createMessage") || !slices.Contains(questions, "mcp:elicitation/create") {
		t.Errorf("the editor was asked about %q", questions)
	}
	if recs := tapeByTool(t, tp)["mcp:sampling/createMessage"]; len(recs) != 1 || !recs[0].Allowed || recs[0].DecidedBy != "person" {
		t.Errorf("sampling on the editor's tape: %+v", recs)
	}
}

// TestMCPGatewayRate: a loop that calls faster than the rate the person
// set is refused budget-exhausted, while the session itself has no step
// total.
func TestMCPGatewayRate(t *testing.T) {
	ws := mcpWorkspace(t)
	args, tp, log := gatewayArgs(t, ws, "--max-steps-per-minute", "30")
	res := runNode(t, "gateway-client.mjs", ws, args, "FAKE_LOG="+log)
	n, _ := res["many"].(float64)
	failed, _ := res["manyFailed"].(map[string]any)
	if n == 0 || n >= 30 || !strings.Contains(failed["text"].(string), "budget-exhausted") || !strings.Contains(failed["text"].(string), "maxStepsPerMinute") {
		t.Errorf("with 30 calls a minute, %v calls passed, then %v", n, failed)
	}
	var exhausted int
	for _, r := range tapeByTool(t, tp)["read_note"] {
		if r.Rule == "budget-exhausted" {
			exhausted++
		}
	}
	if exhausted != 1 {
		t.Errorf("%d budget-exhausted records, want 1", exhausted)
	}
}
