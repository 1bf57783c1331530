package hook

import (
	"encoding/json"
	"time"
)

// codex is OpenAI Codex's hooks (openai/codex codex-rs/hooks/src:
// events/pre_tool_use.rs, events/permission_request.rs,
// engine/output_parser.rs, schema.rs, engine/discovery.rs). Its outputs
// are parsed with deny_unknown_fields, and a PreToolUse answer it cannot
// use is marked failed and the call runs: ask and a bare allow are
// "unsupported", so PreToolUse is answered with a deny, with nothing at
// all, or, for an allowed Bash line, with allow and updatedInput, which
// current releases run in its place (output_parser.rs @0ea8381, test
// permission_decision_allow_can_update_input) and older ones take for an
// unsupported answer, running the line as it was (which the gate judged
// as Codex's shell reads it: hook/shell.go). PermissionRequest, which fires when Codex would
// ask for approval (a command outside its sandbox, network access), is
// answered allow or deny. Exit 2 blocks PreToolUse only with a reason on
// stderr; any other exit, and a timeout, lets the call run.
var codex = &Adapter{
	Name:          "codex",
	Host:          "Codex",
	Events:        []string{"PreToolUse", "PermissionRequest"},
	Timeout:       600 * time.Second,
	TimeoutSource: "discovery.rs: timeout_sec.unwrap_or(600)",
	impl:          codexHost{},
}

type codexHost struct{}

func (codexHost) parse(data []byte, event string) (Event, error) {
	s, err := parseSnake(data, event, codex.Events)
	s.ev.Permission = s.ev.Name == "PermissionRequest"
	return s.ev, err
}

// calls: Bash gives its command line (tool_input.command, run from the
// event's cwd); apply_patch gives the files its patch names; MCP tools
// arrive as mcp__SERVER__TOOL with their arguments; NetworkAccess (a
// PermissionRequest for the network) keeps its name and input.
func (codexHost) calls(ev Event) ([]Call, error) {
	c := newCall(ev, ev.Tool, false)
	switch ev.Tool {
	case "Bash":
		c, err := shellCall(c, ev.Input, "command", "")
		return []Call{c}, err
	case "apply_patch":
		c, err := patchCall(c, firstString(ev.Input, "command", "input", "patch"))
		return []Call{c}, err
	}
	return []Call{withArgs(c, ev)}, nil
}

// rewrites: Bash's command line, on PreToolUse.
func (codexHost) rewrites(ev Event) bool { return !ev.Permission && ev.Tool == "Bash" }
func (codexHost) ask(ev Event) bool      { return ev.Permission }

// codexNote is a message Codex shows without taking it for a decision
// (universal systemMessage); an older release that refused it would run
// the call, which is what a note in warn mode means anyway.
type codexNote struct {
	SystemMessage string `json:"systemMessage"`
}

func codexAnswer(ev Event, r resolved, rewrite json.RawMessage) []byte {
	if ev.Permission {
		switch r.kind {
		case kindAllow, kindDeny:
			return permissionAnswer(r)
		}
		return nil // Codex's own approval prompt asks
	}
	switch r.kind {
	case kindDeny:
		return codexDeny(r.reason)
	case kindAsk:
		return codexDeny(r.refusal)
	case kindWarn:
		return line(codexNote{SystemMessage: r.reason})
	case kindAllow:
		if rewrite != nil {
			// Exactly the fields of Codex's own test: a reason beside an
			// allow is not one it documents.
			return line(hookOutput{HookSpecificOutput: &specific{HookEventName: "PreToolUse", PermissionDecision: "allow", UpdatedInput: rewrite}})
		}
	}
	return nil // no objection: a bare allow is unsupported
}

// codexDeny is the one PreToolUse answer Codex honours: exactly these
// fields, with a reason that is not empty.
func codexDeny(reason string) []byte {
	return line(hookOutput{HookSpecificOutput: &specific{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: reason}})
}

func (codexHost) answer(ev Event, r resolved, rewrite json.RawMessage) Reply {
	return Reply{Stdout: codexAnswer(ev, r, rewrite)}
}

// failure: PreToolUse (or an event that could not be read) exits 2 with
// the reason on stderr, the blocking form Codex reads first, and nothing
// on stdout; PermissionRequest denies in its decision object.
func (codexHost) failure(ev Event, reason string) Reply {
	if ev.Permission {
		return Reply{Stdout: permissionAnswer(resolved{kind: kindDeny, reason: reason})}
	}
	return Reply{Stderr: reason, Exit: exitBlock}
}
