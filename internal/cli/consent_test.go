package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"admit/rpc/rpctest"
)

// claudeEvent is a Claude Code hook event of tool with input.
func claudeEvent(t *testing.T, event, cwd, tool string, input map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"session_id": "consent", "transcript_path": "/dev/null", "cwd": cwd, "permission_mode": "plan",
		"hook_event_name": event, "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_consent",
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConsentToolsGoToTheHostsPrompt: Claude Code's ExitPlanMode is
// allowed by the built-in policy, yet the hook never
// answers allow: its approval is the person's consent to leave plan mode,
// so the answer is no decision and Claude Code's own prompt asks. A
// bookkeeping tool allowed the same way (TodoWrite) is answered allow, so
// the test sees the difference. Deciding alone and through the server.
func TestConsentToolsGoToTheHostsPrompt(t *testing.T) {
	for _, side := range []string{"alone", "server"} {
		t.Run(side, func(t *testing.T) {
			w := newHookWorkspace(t)
			t.Setenv("HOME", w.home)
			socket := w.socket
			if side == "server" {
				e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
					Init: map[string]any{"mode": "enforce", "tape": filepath.Join(t.TempDir(), "tape.jsonl")}})
				socket = e.Socket
			}
			answer := func(event, tool string, input map[string]any) string {
				var stdout, stderr bytes.Buffer
				code := hookCmd([]string{"claude-code", "--socket", socket, "--tape", w.tape, "--timeout", "10s"},
					Stdio{In: bytes.NewReader(claudeEvent(t, event, w.root, tool, input)), Out: &stdout, Err: &stderr})
				if code != 0 {
					t.Fatalf("%s %s: exit %d: %s", event, tool, code, stderr.String())
				}
				return strings.TrimSpace(stdout.String())
			}
			if out := answer("PreToolUse", "TodoWrite", map[string]any{"todos": []any{}}); !strings.Contains(out, `"permissionDecision":"allow"`) {
				t.Fatalf("TodoWrite: %s", out)
			}
			for _, tool := range []string{"ExitPlanMode"} {
				for _, event := range []string{"PreToolUse", "PermissionRequest"} {
					if out := answer(event, tool, map[string]any{"plan": "1. do it"}); out != "{}" {
						t.Errorf("%s %s: answered %s, not left to the host's prompt", event, tool, out)
					}
				}
			}
		})
	}
}
