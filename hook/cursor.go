package hook

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"admit/policy/rule"
)

// cursor is Cursor's agent hooks (cursor.com/docs/hooks; field names
// confirmed against third-party adapters, see testdata/cursor/SOURCES.md):
// beforeShellExecution {command, cwd}, beforeMCPExecution {tool_name,
// tool_input (a JSON string), url or command}, beforeReadFile {file_path,
// content}, and preToolUse {tool_name, tool_input} for every tool, all
// answered with {permission, user_message, agent_message}. Exit 2 blocks;
// any other exit, a missing binary and (presumably) a timeout let the
// action run unless the entry sets "failClosed": true, which the
// configuration admit writes does. Cursor documents no default timeout
// that could be confirmed here, so Timeout is the shortest of its peers'.
var cursor = &Adapter{
	Name:          "cursor",
	Host:          "Cursor",
	Events:        []string{"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"},
	Timeout:       30 * time.Second,
	TimeoutSource: "not documented where it could be confirmed: assumed 30 s, the shortest default of the other hosts; set the entry's timeout",
	CrashBlocks:   true, // with failClosed, which admit's configuration sets
	impl:          cursorHost{},
}

type cursorHost struct{}

// cursorTools maps Cursor's preToolUse tool names to admit's.
var cursorTools = toolTable{"Shell": "shell", "Delete": "delete_file", "StrReplace": "Edit", "LS": "LS", "Read": "Read", "Write": "Write", "Edit": "Edit", "Grep": "Grep", "Glob": "Glob"}

func (cursorHost) parse(data []byte, event string) (Event, error) {
	ev := Event{}
	o, err := parseObject(data, "the event on stdin")
	if err != nil {
		return ev, err
	}
	if ev.Name, err = o.str("hook_event_name"); err != nil {
		return ev, err
	}
	if !cursor.answers(ev.Name) {
		return ev, fmt.Errorf("hook: hook_event_name is %q; admit hook cursor answers %s only", ev.Name, strings.Join(cursor.Events, ", "))
	}
	if event != "" && event != ev.Name {
		return ev, fmt.Errorf("hook: hook_event_name is %q but the hook was configured for %q", ev.Name, event)
	}
	var roots []string
	if roots, err = o.strList("workspace_roots"); err != nil {
		return ev, err
	}
	if err := o.strs(map[string]*string{"conversation_id": &ev.Session, "generation_id": &ev.Turn, "tool_use_id": &ev.ToolUseID, "cwd": &ev.Cwd}); err != nil {
		return ev, err
	}
	if ev.Cwd == "" && len(roots) > 0 {
		ev.Cwd = roots[0]
	}
	switch ev.Name {
	case "beforeShellExecution":
		ev.Tool = "Shell"
		cmd, err := o.str("command")
		if err != nil {
			return ev, err
		}
		if !o.has("command") {
			return ev, fmt.Errorf("hook: beforeShellExecution names no command")
		}
		ev.Input = map[string]json.RawMessage{"command": marshal(cmd)}
	case "beforeReadFile":
		ev.Tool = "Read"
		p, err := o.str("file_path")
		if err != nil {
			return ev, err
		}
		if p == "" {
			return ev, fmt.Errorf("hook: beforeReadFile names no file_path")
		}
		// The file's content is not passed on: the gate judges the path.
		ev.Input = map[string]json.RawMessage{"file_path": marshal(p)}
	default: // preToolUse, beforeMCPExecution
		if ev.Tool, err = o.str("tool_name"); err != nil {
			return ev, err
		}
		if ev.Tool = strings.TrimSpace(ev.Tool); ev.Tool == "" {
			return ev, fmt.Errorf("hook: the event names no tool (tool_name)")
		}
		in, err := o.obj("tool_input", true)
		if err != nil {
			return ev, fmt.Errorf("hook: tool_input of %q must be a JSON object: %v", ev.Tool, err)
		}
		ev.Input = in
		if raw := o["tool_input"]; in != nil && raw[0] == '{' {
			ev.rawInput = raw
		}
		if ev.Name == "beforeMCPExecution" {
			// The server is named by how it is reached, not by a name.
			if ev.MCPServer = firstString(o, "url", "command"); ev.MCPServer == "" {
				ev.MCPServer = "?"
			}
		}
	}
	return ev, nil
}

// calls: a shell command (beforeShellExecution, or preToolUse's Shell)
// gives its command line and folder; a file read its path; MCP tools keep
// Cursor's name, MCP:TOOL (beforeMCPExecution names no server, so there
// is no mcp__SERVER__TOOL to give).
func (cursorHost) calls(ev Event) ([]Call, error) {
	tool := cursorTools.name(ev.Tool)
	switch {
	case ev.Name == "beforeMCPExecution":
		tool = "MCP:" + ev.Tool
	case ev.Name == "beforeReadFile":
		tool = "read_file"
	}
	c := newCall(ev, tool, true)
	if tool == "shell" {
		c, err := shellCall(c, ev.Input, "command", firstString(ev.Input, "cwd", "working_directory"))
		return []Call{c}, err
	}
	return []Call{withArgs(c, ev)}, nil
}

// Cursor's preToolUse updated_input is known only from third parties.
func (cursorHost) rewrites(Event) bool { return false }

// ask: beforeReadFile takes permission alone, documented without ask.
func (cursorHost) ask(ev Event) bool { return ev.Name != "beforeReadFile" }

type cursorOutput struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
}

func cursorAnswer(ev Event, r resolved) []byte {
	o := cursorOutput{}
	switch r.kind {
	case kindDefer:
		// An entry that fails closed refuses an empty answer: say allow.
		o.Permission = "allow"
	case kindAllow:
		o.Permission = "allow"
	case kindWarn, kindAsk:
		if ev.Name == "beforeReadFile" {
			if r.kind == kindWarn {
				o.Permission = "allow"
			} else {
				o.Permission = "deny"
			}
		} else {
			o.Permission, o.UserMessage = "ask", r.reason
		}
	default:
		o.Permission, o.UserMessage, o.AgentMessage = "deny", "admit refused this call (rule "+r.rule+")", r.reason
	}
	if ev.Name == "beforeReadFile" {
		o.UserMessage, o.AgentMessage = "", ""
	}
	return line(o)
}

func (cursorHost) answer(ev Event, r resolved, _ json.RawMessage) Reply {
	return Reply{Stdout: cursorAnswer(ev, r)}
}

func (cursorHost) failure(ev Event, reason string) Reply {
	return Reply{Stdout: cursorAnswer(ev, resolved{kind: kindDeny, rule: string(rule.HookFailed), reason: reason}), Stderr: reason, Exit: exitBlock}
}
