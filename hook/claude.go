package hook

import (
	"encoding/json"
	"time"
)

// claudeCode is Claude Code's command hooks: PreToolUse, before every
// tool call, and PermissionRequest, when Claude Code is about to ask its
// user (thevibeworks/claude-code-docs content/en/docs/claude-code/hooks.md).
// Exit 2 blocks PreToolUse whatever stdout says; PermissionRequest ignores
// exit codes and reads only its decision object. A hook that times out,
// cannot start (exit 127) or exits otherwise is a non-blocking error.
var claudeCode = &Adapter{
	Name:          "claude-code",
	Host:          "Claude Code",
	Events:        []string{"PreToolUse", "PermissionRequest"},
	Timeout:       600 * time.Second,
	TimeoutSource: "hooks.md: command hooks time out after 600 s by default",
	impl:          claudeHost{},
}

type claudeHost struct{}

func (claudeHost) parse(data []byte, event string) (Event, error) {
	s, err := parseSnake(data, event, claudeCode.Events)
	s.ev.Permission = s.ev.Name == "PermissionRequest"
	return s.ev, err
}

// calls keeps Claude Code's tool names, which the built-in policy and the
// policy files name, but for those claudetools.go maps; Bash (and
// Monitor) give their command line, run from the event's cwd. File paths
// arrive absolute (hooks.md, PreToolUse input).
func (claudeHost) calls(ev Event) ([]Call, error) {
	c, err := claudeCall(ev) // claudetools.go
	return []Call{c}, err
}

func (claudeHost) rewrites(ev Event) bool { return ev.Name == "PreToolUse" && ev.Tool == "Bash" }
func (claudeHost) ask(ev Event) bool      { return true }

func (claudeHost) answer(ev Event, r resolved, rewrite json.RawMessage) Reply {
	if ev.Permission {
		return Reply{Stdout: permissionAnswer(r)}
	}
	return Reply{Stdout: preToolAnswer(r, rewrite)}
}

// preToolAnswer is the hookSpecificOutput answer to a PreToolUse event:
// allow (with the rewritten input), ask, deny, or {} for no decision.
func preToolAnswer(r resolved, rewrite json.RawMessage) []byte {
	if r.kind == kindDefer {
		return line(hookOutput{})
	}
	s := &specific{HookEventName: "PreToolUse", PermissionDecision: r.word(), PermissionDecisionReason: r.reason}
	if r.kind == kindAllow {
		s.UpdatedInput = rewrite
	}
	return line(hookOutput{HookSpecificOutput: s})
}

// permissionAnswer answers a PermissionRequest: allow or deny, and for a
// call a person must decide, no decision, so the host's own prompt asks.
func permissionAnswer(r resolved) []byte {
	s := &specific{HookEventName: "PermissionRequest"}
	switch r.kind {
	case kindAllow:
		s.Decision = &permissionDecision{Behavior: "allow"}
	case kindDeny:
		s.Decision = &permissionDecision{Behavior: "deny", Message: r.reason}
	default:
		return line(hookOutput{})
	}
	return line(hookOutput{HookSpecificOutput: s})
}

func (claudeHost) failure(ev Event, reason string) Reply {
	r := resolved{kind: kindDeny, reason: reason}
	if ev.Permission {
		// Exit 2 is not honoured on PermissionRequest: only the decision is.
		return Reply{Stdout: permissionAnswer(r)}
	}
	return Reply{Stdout: preToolAnswer(r, nil), Stderr: reason, Exit: exitBlock}
}
