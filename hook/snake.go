package hook

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// snakeEvent is the envelope Claude Code introduced and Codex, Kiro and
// the Copilot CLI's PascalCase payload copy: hook_event_name, tool_name,
// tool_input, session_id, cwd, tool_use_id (Codex adds turn_id).
type snakeEvent struct {
	o     object
	ev    Event
	input object
}

// parseSnake decodes that envelope. names are the events accepted, as
// spelled in hook_event_name; event, when not "", is the one named on the
// command line, which the payload must agree with.
func parseSnake(data []byte, event string, names []string) (snakeEvent, error) {
	var s snakeEvent
	o, err := parseObject(data, "the event on stdin")
	if err != nil {
		return s, err
	}
	s.o = o
	name, err := o.str("hook_event_name")
	if err != nil {
		return s, err
	}
	s.ev.Name = name
	switch {
	case name == "":
		return s, fmt.Errorf("hook: the event names no hook_event_name (want %s)", strings.Join(names, " or "))
	case !slices.Contains(names, name):
		return s, fmt.Errorf("hook: hook_event_name is %q; this hook answers %s events only", name, strings.Join(names, " and "))
	case event != "" && !strings.EqualFold(event, name):
		return s, fmt.Errorf("hook: hook_event_name is %q but the hook was configured for %q", name, event)
	}
	if err := o.strs(map[string]*string{"tool_name": &s.ev.Tool, "session_id": &s.ev.Session, "cwd": &s.ev.Cwd, "tool_use_id": &s.ev.ToolUseID, "turn_id": &s.ev.Turn}); err != nil {
		return s, err
	}
	s.ev.Tool = strings.TrimSpace(s.ev.Tool)
	if s.ev.Tool == "" {
		return s, fmt.Errorf("hook: the event names no tool (tool_name)")
	}
	if s.input, err = o.obj("tool_input", false); err != nil {
		return s, fmt.Errorf("hook: tool_input of %q must be a JSON object: %v", s.ev.Tool, err)
	}
	if s.input == nil {
		s.input = object{}
	} else {
		s.ev.rawInput = o["tool_input"]
	}
	s.ev.Input = s.input
	return s, nil
}

// specific is the hookSpecificOutput of Claude Code's answer, which
// VS Code, Codex and the Copilot CLI read too.
type specific struct {
	HookEventName            string              `json:"hookEventName"`
	PermissionDecision       string              `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string              `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage     `json:"updatedInput,omitempty"`
	Decision                 *permissionDecision `json:"decision,omitempty"`
}

// permissionDecision is a PermissionRequest answer's decision.
type permissionDecision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}

type hookOutput struct {
	HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
}
