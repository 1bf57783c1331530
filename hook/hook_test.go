package hook

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"admit/internal/golden"
	"admit/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is one recorded event: testdata/HOST/NAME[.EVENT].json, where
// EVENT is the event named on the command line for a payload that does
// not name its own (the Copilot CLI's camelCase permissionRequest).
type fixture struct {
	path, name, event string
	data              []byte
}

func fixtures(t testing.TB, host string) []fixture {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", host, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no events under testdata/%s", host)
	}
	var fs []fixture
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fx := fixture{path: f, name: filepath.Base(f), data: data}
		if parts := strings.Split(fx.name, "."); len(parts) == 3 {
			fx.event = parts[1]
		}
		fs = append(fs, fx)
	}
	return fs
}

func mustParse(t testing.TB, a *Adapter, fx fixture) Event {
	t.Helper()
	ev, err := a.Parse(fx.data, fx.event)
	if err != nil {
		t.Fatalf("%s: %v", fx.path, err)
	}
	return ev
}

// TestMapGolden maps every recorded event of each host and compares the
// calls with testdata/HOST.map.golden.
func TestMapGolden(t *testing.T) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			for _, fx := range fixtures(t, name) {
				ev := mustParse(t, a, fx)
				calls, err := a.Map(ev)
				if err != nil {
					t.Fatalf("%s: %v", fx.path, err)
				}
				fmt.Fprintf(&out, "%s\n", fx.name)
				for _, c := range calls {
					out.Write(marshal(c))
					out.WriteString("\n")
				}
				out.WriteString("\n")
			}
			golden.Check(t, filepath.Join("testdata", name+".map.golden"), out.Bytes(), *update)
		})
	}
}

// The decisions every answer golden shows, each as the gate gives it.
var (
	allowD = Verdict{Outcome: "allow", Verdict: "allow", Allowed: true, Mode: "enforce", Rule: "allowed", DecidedBy: "rule"}
	askedD = Verdict{Outcome: "ask", Verdict: "deny", Mode: "enforce", Rule: "needs-human", DecidedBy: "headless",
		Reason:    `"WebFetch" always requires a person to approve it`,
		ToolError: policy.ToolError("needs-human", `"WebFetch" always requires a person to approve it, and nobody could be asked`, "")}
	warnD = Verdict{Outcome: "deny", Verdict: "deny", Allowed: true, Mode: "warn", Rule: "outside-workspace", Reason: "/etc/shadow is outside the workspace"}
	denyD = Verdict{Outcome: "deny", Verdict: "deny", Mode: "enforce", Rule: "outside-workspace", Reason: "/etc/shadow is outside the workspace",
		ToolError: policy.ToolError("outside-workspace", "/etc/shadow is outside the workspace", "")}
	offD     = Verdict{Verdict: "allow", Allowed: true, Mode: "off", Rule: "caps-off"}
	rewriteD = Verdict{Outcome: "allow", Verdict: "allow", Allowed: true, Mode: "enforce", Rule: "allowed", DecidedBy: "rule",
		Rewrite: "'/opt/admit/bin/admit' run --handle h-0123abcd"}
)

func printReply(out *bytes.Buffer, label string, r Reply, read string) {
	fmt.Fprintf(out, "%s: exit %d, the host reads %s\n", label, r.Exit, read)
	if len(r.Stdout) > 0 {
		fmt.Fprintf(out, "  stdout %s", r.Stdout)
		if !bytes.HasSuffix(r.Stdout, []byte("\n")) {
			out.WriteString("\n")
		}
	}
	if r.Stderr != "" {
		fmt.Fprintf(out, "  stderr %s\n", r.Stderr)
	}
}

// TestAnswerGolden prints, for the first event of each event and payload
// shape of each host, its answer to every kind of decision and its
// failure, with what the host reads it as, into testdata/HOST.answer.golden.
func TestAnswerGolden(t *testing.T) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			seen := map[string]bool{}
			rewrote := false
			for _, fx := range fixtures(t, name) {
				ev := mustParse(t, a, fx)
				key := ev.Name + "/" + ev.Shape
				canRewrite := a.CanRewrite(ev) && !rewrote
				if seen[key] && !canRewrite {
					continue
				}
				seen[key] = true
				fmt.Fprintf(&out, "== %s (%s%s, can ask: %v, can rewrite: %v)\n", fx.name, ev.Name, map[bool]string{true: ", " + ev.Shape}[ev.Shape != ""], a.CanAsk(ev), a.CanRewrite(ev))
				for _, c := range []struct {
					label string
					d     Verdict
				}{{"allowed", allowD}, {"asked", askedD}, {"warn", warnD}, {"denied", denyD}, {"off", offD}} {
					r := a.Answer(ev, c.d)
					printReply(&out, c.label, r, hostReads(ev, r))
				}
				if canRewrite {
					rewrote = true
					r := a.Answer(ev, rewriteD)
					printReply(&out, "rewritten", r, hostReads(ev, r))
				}
				r := a.Failure(ev, "the admit server at /run/user/1000/admit/ws.sock closed the connection")
				printReply(&out, "failure", r, hostReads(ev, r))
				out.WriteString("\n")
			}
			golden.Check(t, filepath.Join("testdata", name+".answer.golden"), out.Bytes(), *update)
		})
	}
}

// TestAnswersAsMeant: for every recorded event of every host, each kind of
// decision is read by the host as what it means there.
func TestAnswersAsMeant(t *testing.T) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		for _, fx := range fixtures(t, name) {
			ev := mustParse(t, a, fx)
			want := map[string][]string{
				"allowed": {hostAllow, hostNone},
				"denied":  {hostDeny},
				"off":     {hostNone, hostAllow},
				"warn":    {hostAsk, hostAllow, hostNone},
				"asked":   {hostAsk},
			}
			if !a.CanAsk(ev) {
				want["asked"] = []string{hostDeny}
			}
			if ev.Permission {
				// Before the host's own prompt: no decision is the ask.
				want["asked"], want["warn"] = []string{hostNone}, []string{hostNone}
			}
			if name == "codex" && !ev.Permission {
				want["allowed"], want["off"] = []string{hostNone}, []string{hostNone}
			}
			for label, d := range map[string]Verdict{"allowed": allowD, "denied": denyD, "off": offD, "warn": warnD, "asked": askedD} {
				r := a.Answer(ev, d)
				if got := hostReads(ev, r); !contains(want[label], got) {
					t.Errorf("%s %s: %s is read as %s, want one of %v\n%s%s", name, fx.name, label, got, want[label], r.Stdout, r.Stderr)
				}
			}
			if r := a.Failure(ev, "boom"); hostReads(ev, r) != hostDeny {
				t.Errorf("%s %s: the failure is read as %s: %+v", name, fx.name, hostReads(ev, r), r)
			}
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestMalformedFailsClosed: every malformed event, given to every host, is
// refused, and the refusal is read by the host as a deny.
func TestMalformedFailsClosed(t *testing.T) {
	for _, name := range Names() {
		a, _ := Lookup(name)
		for _, fx := range fixtures(t, "bad") {
			ev, err := a.Parse(fx.data, fx.event)
			if err == nil {
				t.Errorf("%s %s: parsed %+v", name, fx.name, ev)
				continue
			}
			r := a.Failure(ev, err.Error())
			if got := hostReads(ev, r); got != hostDeny {
				t.Errorf("%s %s: the failure is read as %s: %+v", name, fx.name, got, r)
			}
			if !strings.Contains(string(r.Stdout)+r.Stderr, "hook-failed") {
				t.Errorf("%s %s: the failure does not say rule hook-failed: %+v", name, fx.name, r)
			}
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, host, event, data, want string }{
		{"empty", "claude-code", "", "  \n", "empty"},
		{"truncated", "claude-code", "", `{"hook_event_name": "PreToolUse", "tool_name": "Bash"`, "truncated"},
		{"array", "gemini-cli", "", `[]`, "array, not an object"},
		{"wrong event", "claude-code", "", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`, "PreToolUse and PermissionRequest events only"},
		{"gemini event to claude", "claude-code", "", `{"hook_event_name":"BeforeTool","tool_name":"Bash"}`, "events only"},
		{"no tool", "gemini-cli", "", `{"hook_event_name":"BeforeTool","tool_name":" "}`, "names no tool"},
		{"input not object", "claude-code", "", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":"x"}`, "must be a JSON object"},
		{"duplicate in input", "claude-code", "", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf ~"}}`, "duplicate"},
		{"duplicate envelope", "codex", "", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash"}`, "duplicate"},
		{"lone surrogate", "gemini-cli", "", `{"hook_event_name":"BeforeTool","tool_name":"x","tool_input":{"p":"\udc00"}}`, "invalid"},
		{"case folded key", "claude-code", "", `{"hook_event_name":"PreToolUse","TOOL_NAME":"Bash"}`, "names no tool"},
		{"configured for another event", "claude-code", "PermissionRequest", `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, "configured for"},
		{"event not answered", "claude-code", "PostToolUse", `{}`, "answers PreToolUse, PermissionRequest, not"},
		{"copilot args not object", "copilot", "", `{"toolName":"bash","toolArgs":[1]}`, "must be a JSON object"},
		{"copilot args string not object", "copilot", "", `{"toolName":"bash","toolArgs":"ls -la"}`, "not one valid JSON object"},
		{"copilot args string duplicate", "copilot", "", `{"toolName":"bash","toolArgs":"{\"command\":\"ls\",\"command\":\"rm -rf ~\"}"}`, "duplicate"},
		{"copilot nothing", "copilot", "", `{"sessionId":"s"}`, "names no tool"},
		{"copilot pascal post", "copilot", "", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`, "PreToolUse and PermissionRequest events only"},
		{"cursor shell no command", "cursor", "", `{"hook_event_name":"beforeShellExecution","cwd":"/w"}`, "names no command"},
		{"cursor read no path", "cursor", "", `{"hook_event_name":"beforeReadFile"}`, "names no file_path"},
		{"cursor mcp input not object", "cursor", "", `{"hook_event_name":"beforeMCPExecution","tool_name":"x","tool_input":"[1]"}`, "not an object"},
		{"cursor stop", "cursor", "", `{"hook_event_name":"stop"}`, "answers preToolUse"},
		{"windsurf no info", "windsurf", "", `{"agent_action_name":"pre_run_command"}`, "no tool_info"},
		{"windsurf post", "windsurf", "", `{"agent_action_name":"post_run_command","tool_info":{}}`, "answers pre_run_command"},
		{"windsurf no command", "windsurf", "", `{"agent_action_name":"pre_run_command","tool_info":{"cwd":"/w"}}`, "command_line"},
		{"windsurf no file", "windsurf", "", `{"agent_action_name":"pre_read_code","tool_info":{}}`, "file_path"},
		{"cline post", "cline", "", `{"hookName":"PostToolUse","postToolUse":{"toolName":"x"}}`, "PreToolUse only"},
		{"cline no pre", "cline", "", `{"hookName":"PreToolUse"}`, "no preToolUse"},
		{"cline params not object", "cline", "", `{"hookName":"PreToolUse","preToolUse":{"toolName":"read_file","parameters":"x"}}`, "must be a JSON object"},
		{"cline tools differ", "cline", "", `{"hookName":"tool_call","tool_call":{"name":"read_file","input":{}},"preToolUse":{"toolName":"execute_command","parameters":{"command":"ls"}}}`, "differ"},
		{"kiro post", "kiro", "", `{"hook_event_name":"postToolUse","tool_name":"fs_read"}`, "events only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := Lookup(tc.host)
			_, err := a.Parse([]byte(tc.data), tc.event)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestMapRefuses(t *testing.T) {
	for _, tc := range []struct{ name, host, data, want string }{
		{"bash without command", "claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`, "names no command"},
		{"bash command a list", "claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["ls"]}}`, "must be a string"},
		{"gemini shell without command", "gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"description":"x"}}`, "names no command"},
		{"gemini mcp server with __", "gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"mcp_a__b_c","mcp_context":{"server_name":"a__b","tool_name":"c"}}`, "ambiguous"},
		{"patch without files", "copilot", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_use_id":"t","tool_input":{"input":"*** Begin Patch\n*** End Patch"}}`, "names no file"},
		{"patch with an unknown header", "codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a\n*** Copy File: b\n*** End Patch"}}`, "does not know"},
		{"kiro mcp without tool", "kiro", `{"hook_event_name":"preToolUse","tool_name":"@github"}`, "@SERVER/TOOL"},
		{"windsurf mcp without server", "windsurf", `{"agent_action_name":"pre_mcp_tool_use","tool_info":{"mcp_tool_name":"x"}}`, "must name its server"},
		{"cline mcp arguments not object", "cline", `{"hookName":"PreToolUse","preToolUse":{"toolName":"use_mcp_tool","parameters":{"server_name":"s","tool_name":"t","arguments":"[1]"}}}`, "not an object"},
		{"cline run_commands nothing", "cline", `{"hookName":"PreToolUse","preToolUse":{"toolName":"run_commands","parameters":{}}}`, "names no commands"},
		{"cline run_commands empty", "cline", `{"hookName":"PreToolUse","preToolUse":{"toolName":"run_commands","parameters":{"commands":"[]"}}}`, "holds no command"},
		{"cline run_commands bad entry", "cline", `{"hookName":"tool_call","tool_call":{"name":"run_commands","input":{"commands":[7]}}}`, "neither a string"},
		{"cline read_files nothing", "cline", `{"hookName":"PreToolUse","preToolUse":{"toolName":"read_files","parameters":{}}}`, "names no file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := Lookup(tc.host)
			ev, err := a.Parse([]byte(tc.data), "")
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Map(ev)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRewrite: an allowed shell call is answered with the whole input,
// every other key kept, where the host rewrites; a rewrite anywhere else
// is refused rather than dropped.
func TestRewrite(t *testing.T) {
	line := rewriteD.Rewrite
	for _, tc := range []struct {
		host, data string
		path       []string // where the rewritten input is in the answer
	}{
		{"claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","description":"d","run_in_background":true}}`, []string{"hookSpecificOutput", "updatedInput"}},
		{"gemini-cli", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"src"}}`, []string{"hookSpecificOutput", "tool_input"}},
		{"copilot", `{"hook_event_name":"PreToolUse","tool_name":"run_in_terminal","tool_use_id":"t","tool_input":{"command":"ls","explanation":"e","isBackground":false}}`, []string{"hookSpecificOutput", "updatedInput"}},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, []string{"hookSpecificOutput", "updatedInput"}},
		{"copilot", `{"toolName":"bash","toolArgs":{"command":"ls","description":"d"}}`, []string{"modifiedArgs"}},
		{"copilot", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","description":"d"}}`, []string{"modifiedArgs"}},
	} {
		a, _ := Lookup(tc.host)
		ev, err := a.Parse([]byte(tc.data), "")
		if err != nil {
			t.Fatal(err)
		}
		if !a.CanRewrite(ev) {
			t.Fatalf("%s %s: cannot rewrite", tc.host, ev.Tool)
		}
		r := a.Answer(ev, rewriteD)
		var v any
		if err := json.Unmarshal(r.Stdout, &v); err != nil {
			t.Fatal(err)
		}
		for _, k := range tc.path {
			v = v.(map[string]any)[k]
		}
		got := v.(map[string]any)
		if got["command"] != line {
			t.Errorf("%s: command %v", tc.host, got["command"])
		}
		for k, want := range ev.Input {
			if k == "command" {
				continue
			}
			if b, _ := json.Marshal(got[k]); string(b) != strings.TrimSpace(string(want)) {
				t.Errorf("%s: key %s was %s, is %s", tc.host, k, want, b)
			}
		}
		if hostReads(ev, r) != hostAllow {
			t.Errorf("%s: the rewrite is read as %s", tc.host, hostReads(ev, r))
		}
	}
	// Where the host cannot rewrite, or the call is not allowed, or is not
	// a shell call, a rewrite is a failure: the call is refused.
	for _, tc := range []struct {
		host, data string
		d          Verdict
	}{
		{"codex", `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`, rewriteD},
		{"codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch"}}`, rewriteD},
		{"cursor", `{"hook_event_name":"beforeShellExecution","command":"ls"}`, rewriteD},
		{"windsurf", `{"agent_action_name":"pre_run_command","tool_info":{"command_line":"ls"}}`, rewriteD},
		{"cline", `{"hookName":"PreToolUse","preToolUse":{"toolName":"execute_command","parameters":{"command":"ls"}}}`, rewriteD},
		{"claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a"}}`, rewriteD},
		{"claude-code", `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`, rewriteD},
		{"copilot", `{"toolName":"powershell","toolArgs":{"command":"ls"}}`, rewriteD},
		{"claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, Verdict{Outcome: "deny", Verdict: "deny", Rule: "x", Rewrite: "admit run --handle h"}},
		{"claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, Verdict{Outcome: "allow", Verdict: "allow", Allowed: true, Rule: "allowed", Rewrite: "  "}},
	} {
		a, _ := Lookup(tc.host)
		ev, err := a.Parse([]byte(tc.data), "")
		if err != nil {
			t.Fatal(err)
		}
		r := a.Answer(ev, tc.d)
		if hostReads(ev, r) != hostDeny || !strings.Contains(string(r.Stdout)+r.Stderr, "hook-failed") {
			t.Errorf("%s %s: a rewrite it cannot carry is read as %s: %s %s", tc.host, ev.Tool, hostReads(ev, r), r.Stdout, r.Stderr)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      Verdict
		want   kind
		reason string
	}{
		{"allowed", allowD, kindAllow, "admit: allowed (allowed)"},
		{"legacy allowed", Verdict{Verdict: "allow", Allowed: true, Mode: "enforce", Rule: "human-approved"}, kindAllow, "admit: allowed (human-approved)"},
		{"refused", denyD, kindDeny, "REFUSED by admit"},
		{"legacy refused without body", Verdict{Verdict: "deny", Mode: "enforce", Rule: "x", Reason: "because"}, kindDeny, `"reason":"because"`},
		{"legacy warn", Verdict{Verdict: "deny", Allowed: true, Mode: "warn", Rule: "dynamic-word", Reason: "r"}, kindWarn, "(warn mode) would refuse this call, rule dynamic-word: r"},
		{"asked", askedD, kindAsk, "a person must approve this call (rule needs-human)"},
		{"off", offD, kindDefer, ""},
		{"alone", Verdict{Verdict: "deny", Mode: "enforce", Rule: "x", ToolError: "{}", Alone: "no admit server is reachable at /s"}, kindDeny, "admit decided alone (no admit server is reachable at /s): {}"},
		{"zero value", Verdict{}, kindDeny, "REFUSED"},
		{"allowed but not", Verdict{Outcome: "allow", Verdict: "allow", Allowed: false, Mode: "enforce"}, kindDeny, "inconsistent"},
		{"allowed with deny verdict", Verdict{Outcome: "allow", Verdict: "deny", Allowed: true, Mode: "enforce"}, kindDeny, "inconsistent"},
		{"unknown outcome", Verdict{Outcome: "maybe", Verdict: "allow", Allowed: true, Mode: "enforce"}, kindDeny, "inconsistent"},
		{"denied yet allowed in enforce", Verdict{Outcome: "deny", Verdict: "deny", Allowed: true, Mode: "enforce"}, kindDeny, "inconsistent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := resolve(tc.d)
			if r.kind != tc.want || !strings.Contains(r.reason, tc.reason) {
				t.Fatalf("resolve = %s %q, want %s containing %q", r.kind, r.reason, tc.want, tc.reason)
			}
		})
	}
	if r := resolve(askedD); !strings.Contains(r.refusal, "REFUSED") {
		t.Errorf("an ask nobody could answer has no refusal for hosts without ask: %q", r.refusal)
	}
}

func TestStrictest(t *testing.T) {
	rw := allowD
	rw.Rewrite = "admit run --handle h"
	for _, tc := range []struct {
		name string
		ds   []Verdict
		want kind
	}{
		{"none", nil, kindDeny},
		{"one", []Verdict{allowD}, kindAllow},
		{"a deny wins", []Verdict{allowD, denyD, askedD}, kindDeny},
		{"an ask beats an allow", []Verdict{allowD, askedD}, kindAsk},
		{"a warning beats an allow", []Verdict{allowD, warnD}, kindWarn},
	} {
		if got := resolve(Strictest(tc.ds...)).kind; got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if Strictest(rw).Rewrite == "" || Strictest(rw, rw).Rewrite != "" {
		t.Error("a rewrite must stand for one call only")
	}
}

func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		host string
		in   string
		want string
	}{
		{"claude-code", "0s", "9m50s"},
		{"gemini-cli", "0s", "54s"},
		{"copilot", "0s", "27s"},
		{"copilot", "120s", "1m50s"},
		{"codex", "0s", "9m50s"},
		{"cline", "0s", "27s"},
		{"windsurf", "3s", "1s"},
	} {
		a, _ := Lookup(tc.host)
		in, _ := timeParse(tc.in)
		if got := a.Budget(in).String(); got != tc.want {
			t.Errorf("%s Budget(%s) = %s, want %s", tc.host, tc.in, got, tc.want)
		}
		if a.Budget(in) >= max(in, a.Timeout) && in == 0 {
			t.Errorf("%s: the budget does not end before the host's timeout", tc.host)
		}
	}
	a, _ := Lookup("copilot")
	if r := a.LateReason(a.Budget(0)); !strings.Contains(r, "27s") || !strings.Contains(r, "30s") {
		t.Errorf("LateReason: %s", r)
	}
}

func TestPatchPaths(t *testing.T) {
	for _, tc := range []struct {
		name, patch string
		want        []string
		err         string
	}{
		{"add update delete move", "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.go\n*** Move to: c.go\n@@\n-x\n+y\n*** Delete File: d\n*** End Patch\n", []string{"a.txt", "b.go", "c.go", "d"}, ""},
		{"indented headers, CRLF", "*** Begin Patch\r\n   *** Update File: b.go\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n", []string{"b.go"}, ""},
		{"a hunk line that looks like a header is content", "*** Begin Patch\n*** Update File: b.go\n@@\n+*** Delete File: /etc/passwd\n*** End Patch", []string{"b.go"}, ""},
		{"a context line that looks like a header is judged too", "*** Begin Patch\n*** Update File: b.go\n@@\n *** Delete File: x\n*** End Patch", []string{"b.go", "x"}, ""},
		{"unknown header", "*** Begin Patch\n*** Rename File: a -> b\n*** End Patch", nil, "does not know"},
		{"header without a path", "*** Begin Patch\n*** Add File:   \n*** End Patch", nil, "names no file"},
		{"no files", "*** Begin Patch\n*** End Patch", nil, "names no file"},
		{"not a patch", "rm -rf /", nil, "names no file"},
	} {
		got, err := patchPaths(tc.patch)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && (err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|")):
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestClineCommandsApart: Cline runs every command of run_commands on its
// own, so they are judged apart; joined, "echo \" would swallow the next
// line into an echo.
func TestClineCommandsApart(t *testing.T) {
	a, _ := Lookup("cline")
	ev, err := a.Parse([]byte(`{"hookName":"PreToolUse","preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"echo \\\\\",\"rm -rf ~\"]"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	calls, err := a.Map(ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].Command != `echo \` || calls[1].Command != "rm -rf ~" {
		t.Fatalf("calls %+v", calls)
	}
	ds := []Verdict{allowD, denyD}
	if r := a.Answer(ev, Strictest(ds...)); hostReads(ev, r) != hostDeny || !strings.Contains(string(r.Stdout), "start a new task") {
		t.Errorf("one refused command must refuse the call and say what to do: %s", r.Stdout)
	}
}

// TestClineContentStaysText: a file's content that is JSON is not read
// back as an object, whose keys would pass for paths.
func TestClineContentStaysText(t *testing.T) {
	a, _ := Lookup("cline")
	ev, err := a.Parse([]byte(`{"hookName":"PreToolUse","preToolUse":{"toolName":"write_to_file","parameters":{"path":"package.json","content":"{\"files\": [\"/etc\"], \"source\": \"https://x\"}"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	calls, err := a.Map(ev)
	if err != nil {
		t.Fatal(err)
	}
	var args map[string]any
	if err := json.Unmarshal(calls[0].Args, &args); err != nil {
		t.Fatal(err)
	}
	if _, ok := args["content"].(string); !ok {
		t.Errorf("content was read back as %T", args["content"])
	}
}

func TestCopilotShapes(t *testing.T) {
	a, _ := Lookup("copilot")
	for _, fx := range fixtures(t, "copilot") {
		ev := mustParse(t, a, fx)
		want := shapeVSCode
		switch {
		case strings.Contains(fx.name, "-cli-"):
			want = shapeCLI
		case strings.Contains(fx.name, "-pascal-"):
			want = shapeCLIVSCode
		}
		if ev.Shape != want {
			t.Errorf("%s: shape %s, want %s", fx.name, ev.Shape, want)
		}
	}
	// Bash from a Windows folder is the Copilot CLI's powershell: not
	// judged as a bash line, not rewritten.
	ev, _ := a.Parse([]byte(`{"hook_event_name":"PreToolUse","cwd":"C:\\w","tool_name":"Bash","tool_input":{"command":"ls"}}`), "")
	if c, _ := a.Map(ev); c[0].Tool != "powershell" || c[0].Command != "" || a.CanRewrite(ev) {
		t.Errorf("windows Bash: %+v", c)
	}
}

func TestCursorNoDecisionSaysAllow(t *testing.T) {
	// An entry that fails closed refuses an empty answer, so "no decision"
	// (mode off) must be an explicit allow.
	a, _ := Lookup("cursor")
	ev, _ := a.Parse([]byte(`{"hook_event_name":"beforeShellExecution","command":"ls"}`), "")
	if r := a.Answer(ev, offD); string(r.Stdout) != `{"permission":"allow"}`+"\n" {
		t.Errorf("off: %s", r.Stdout)
	}
}

func TestNamesAndTimeouts(t *testing.T) {
	want := "claude-code cline codex copilot cursor gemini-cli kiro opencode windsurf"
	if got := strings.Join(Names(), " "); got != want {
		t.Fatalf("Names = %s", got)
	}
	for _, n := range Names() {
		a, _ := Lookup(n)
		if a.Timeout <= 0 || a.TimeoutSource == "" || len(a.Events) == 0 || a.Host == "" {
			t.Errorf("%s: incomplete %+v", n, a)
		}
	}
	if _, ok := Lookup("claud-code"); ok {
		t.Error("a misspelt host was found")
	}
}

func timeParse(s string) (time.Duration, error) { return time.ParseDuration(s) }

// TestConsentIsNeverAllowed: on every host and event, a tool whose approval
// is the person's consent (leaving plan mode, answering a question) is
// never answered allow: an allow becomes no decision, so the host's own
// prompt asks; a refusal and an ask stand. The hosts that have such tools
// are those with a prompt of their own (Claude Code, Gemini CLI, the
// Copilot CLI); Cursor's, Windsurf's, Kiro's and Cline's hooks never see
// them.
func TestConsentIsNeverAllowed(t *testing.T) {
	for _, name := range []string{"claude-code", "gemini-cli", "copilot", "codex"} {
		a, _ := Lookup(name)
		for _, fx := range fixtures(t, name) {
			ev := mustParse(t, a, fx)
			for tool := range consentTools {
				ev.Tool = tool
				if got := hostReads(ev, a.Answer(ev, allowD)); got == hostAllow {
					t.Errorf("%s %s: %s allowed is answered allow", name, fx.name, tool)
				}
				if got := hostReads(ev, a.Answer(ev, denyD)); got != hostDeny {
					t.Errorf("%s %s: %s denied is read as %s", name, fx.name, tool, got)
				}
			}
		}
	}
}
