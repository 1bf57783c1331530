package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestHookEveryHostsConsentTools: the tools whose approval is the
// person's (leaving plan mode, answering a question) reach the host's own
// prompt on every host that has them, deciding alone with the built-in
// policy: never answered allow (that would be the person's consent given
// for them), and never refused either (the agent could then never leave
// plan mode nor ask the person anything).
func TestHookEveryHostsConsentTools(t *testing.T) {
	w := newHookWorkspace(t)
	for _, c := range []struct {
		host, tool string
		event      map[string]any
	}{
		{"claude-code", "ExitPlanMode", map[string]any{"session_id": "s", "transcript_path": "/dev/null", "cwd": w.root, "hook_event_name": "PreToolUse", "tool_name": "ExitPlanMode", "tool_input": map[string]any{"plan": "1. fix"}}},
		{"claude-code", "AskUserQuestion", map[string]any{"session_id": "s", "transcript_path": "/dev/null", "cwd": w.root, "hook_event_name": "PreToolUse", "tool_name": "AskUserQuestion", "tool_input": map[string]any{"questions": []any{}}}},
		{"copilot", "exit_plan_mode", map[string]any{"sessionId": "s", "timestamp": 1, "cwd": w.root, "toolName": "exit_plan_mode", "toolArgs": map[string]any{"summary": "x"}}},
		{"copilot", "ask_user", map[string]any{"sessionId": "s", "timestamp": 1, "cwd": w.root, "toolName": "ask_user", "toolArgs": map[string]any{"question": "which branch?"}}},
		{"gemini-cli", "exit_plan_mode", map[string]any{"session_id": "s", "transcript_path": "/dev/null", "cwd": w.root, "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00Z", "tool_name": "exit_plan_mode", "tool_input": map[string]any{"plan": "x"}}},
	} {
		ev, err := json.Marshal(c.event)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		hookCmd([]string{c.host, "--socket", w.socket, "--tape", w.tape, "--timeout", "10s"}, Stdio{In: bytes.NewReader(ev), Out: &stdout, Err: &stderr})
		out := stdout.String()
		for _, word := range []string{`"allow"`, `"deny"`, `"block"`, `"ask"`} {
			if strings.Contains(out, word) {
				t.Errorf("%s %s: answered %s, want no decision (the host's own prompt): %s %s", c.host, c.tool, word, out, stderr.String())
			}
		}
	}
}
