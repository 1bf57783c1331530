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

	"admit/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestMapGolden maps every recorded event of each agent and compares the
// calls with testdata/<agent>.map.golden.
func TestMapGolden(t *testing.T) {
	for _, agent := range Agents {
		t.Run(agent, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("testdata", agent, "*.json"))
			if len(files) == 0 {
				t.Fatal("no events")
			}
			var out bytes.Buffer
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				ev, err := ParseEvent(agent, data)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				c, err := Map(agent, ev)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				fmt.Fprintf(&out, "%s\n", filepath.Base(f))
				enc := json.NewEncoder(&out)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(c)
				out.WriteString("\n")
			}
			golden.Check(t, filepath.Join("testdata", agent+".map.golden"), out.Bytes(), *update)
		})
	}
}

func TestParseEventRefuses(t *testing.T) {
	for _, tc := range []struct{ name, agent, event, want string }{
		{"empty", ClaudeCode, "", "empty"},
		{"not json", ClaudeCode, "{", "not a JSON object"},
		{"array", GeminiCLI, "[]", "not a JSON object"},
		{"wrong event", ClaudeCode, `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`, "PreToolUse events only"},
		{"gemini event to claude", ClaudeCode, `{"hook_event_name":"BeforeTool","tool_name":"Bash"}`, "PreToolUse events only"},
		{"no tool", GeminiCLI, `{"hook_event_name":"BeforeTool","tool_name":" "}`, "names no tool"},
		{"input not object", ClaudeCode, `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":"x"}`, "must be a JSON object"},
		{"unknown agent", "codex", `{}`, "unknown agent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseEvent(tc.agent, []byte(tc.event))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestMapShellNeedsCommand(t *testing.T) {
	for _, tc := range []struct{ agent, tool, input string }{
		{ClaudeCode, "Bash", `{}`},
		{ClaudeCode, "Bash", `{"command": ["ls"]}`},
		{GeminiCLI, "run_shell_command", `{"description": "x"}`},
	} {
		_, err := Map(tc.agent, Event{ToolName: tc.tool, ToolInput: json.RawMessage(tc.input)})
		if err == nil {
			t.Errorf("%s %s: mapped without a command", tc.tool, tc.input)
		}
	}
}

func TestPermit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      Decision
		want   Permission
		reason string
	}{
		{"allowed", Decision{Verdict: "allow", Allowed: true, Mode: "enforce", Rule: "allowed"}, Allow, "admit: allowed (allowed)"},
		{"approved", Decision{Verdict: "allow", Allowed: true, Mode: "enforce", Rule: "human-approved"}, Allow, "admit: allowed (human-approved)"},
		{"refused", Decision{Verdict: "deny", Mode: "enforce", Rule: "outside-workspace", Reason: "r", ToolError: `{"error":"REFUSED"}`}, Deny, `{"error":"REFUSED"}`},
		{"refused without body", Decision{Verdict: "deny", Mode: "enforce", Rule: "x", Reason: "because"}, Deny, `"reason":"because"`},
		{"warn", Decision{Verdict: "deny", Allowed: true, Mode: "warn", Rule: "dynamic-word", Reason: "r"}, Ask, "(warn mode) would refuse this call, rule dynamic-word: r"},
		{"off", Decision{Verdict: "allow", Allowed: true, Mode: "off", Rule: "caps-off"}, Defer, ""},
		{"alone", Decision{Verdict: "deny", Mode: "enforce", Rule: "x", ToolError: "{}", Alone: "no admit server is reachable at /s"}, Deny, "admit decided alone (no admit server is reachable at /s): {}"},
		{"zero value", Decision{}, Deny, "REFUSED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := Permit(tc.d)
			if got != tc.want || !strings.Contains(reason, tc.reason) {
				t.Fatalf("Permit = %q %q, want %q containing %q", got, reason, tc.want, tc.reason)
			}
		})
	}
}

func TestAnswerShapes(t *testing.T) {
	deny := Decision{Verdict: "deny", Mode: "enforce", Rule: "x", ToolError: "nope"}
	for _, tc := range []struct {
		agent string
		d     Decision
		want  string
	}{
		{ClaudeCode, deny, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}`},
		{GeminiCLI, deny, `{"decision":"deny","reason":"nope"}`},
		{ClaudeCode, Decision{Mode: "off", Rule: "caps-off", Verdict: "allow", Allowed: true}, `{}`},
		{GeminiCLI, Decision{Mode: "off", Rule: "caps-off", Verdict: "allow", Allowed: true}, `{}`},
		{GeminiCLI, Decision{Verdict: "allow", Allowed: true, Mode: "enforce", Rule: "allowed"}, `{"decision":"allow","reason":"admit: allowed (allowed)"}`},
	} {
		got := strings.TrimSpace(string(Answer(tc.agent, tc.d)))
		if got != tc.want {
			t.Errorf("%s: %s\nwant %s", tc.agent, got, tc.want)
		}
	}
	for _, agent := range Agents {
		var v map[string]any
		if err := json.Unmarshal(Failure(agent, "boom"), &v); err != nil {
			t.Fatal(err)
		}
		if p, _ := Permit(Decision{}); p != Deny || !strings.Contains(string(Failure(agent, "boom")), "deny") {
			t.Errorf("%s: failure is not a deny: %v", agent, v)
		}
	}
}
