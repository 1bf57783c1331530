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

// ask: Cursor asks nobody on a hook's ask. On preToolUse it is "accepted
// by the schema but not enforced" (the call runs), and on
// beforeShellExecution and beforeMCPExecution it was seen to act as a
// deny with no prompt (testdata/cursor/SOURCES.md); beforeReadFile takes
// allow or deny alone. So a call that needs a person is asked in the
// editor first, and refused when nobody could be.
func (cursorHost) ask(Event) bool { return false }

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
	case kindWarn:
		// Warn mode lets the call run: an ask would run it on preToolUse
		// and refuse it elsewhere, so it is an allow that says why.
		o.Permission, o.UserMessage, o.AgentMessage = "allow", r.reason, r.reason
	case kindAsk:
		// Nobody can be asked through Cursor: refused, saying a person
		// must approve it (in the editor, or in the policy).
		msg := plainRefusal(r.refusal)
		o.Permission, o.UserMessage, o.AgentMessage = "deny", msg, msg
	default:
		// The model has been seen to read user_message and not
		// agent_message: both carry the refusal, as text.
		msg := plainRefusal(r.reason)
		o.Permission, o.UserMessage, o.AgentMessage = "deny", msg, msg
	}
	if ev.Name == "beforeReadFile" {
		o.UserMessage, o.AgentMessage = "", ""
	}
	return line(o)
}

// plainRefusal is a refusal body (policy.ToolError's JSON) as one line of
// text, for hosts that show a message as it is; a text that is not such a
// body is kept.
func plainRefusal(body string) string {
	prefix := ""
	if i := strings.Index(body, "{"); i > 0 {
		prefix, body = body[:i], body[i:]
	}
	var e struct {
		Error, Rule, Reason, Hint string
	}
	if json.Unmarshal([]byte(body), &e) != nil || e.Reason == "" {
		return prefix + body
	}
	msg := prefix + "admit refused this call (rule " + e.Rule + "), so nothing was executed: " + e.Reason
	if e.Hint != "" {
		msg += ". " + e.Hint
	}
	return msg
}

func (cursorHost) answer(ev Event, r resolved, _ json.RawMessage) Reply {
	return Reply{Stdout: cursorAnswer(ev, r)}
}

// failure denies at exit 0 with a readable message: at exit 2 Cursor
// shows the JSON on stdout as raw text. An entry that fails closed
// refuses whatever admit could not answer at all.
func (cursorHost) failure(ev Event, reason string) Reply {
	return Reply{Stdout: cursorAnswer(ev, resolved{kind: kindDeny, rule: string(rule.HookFailed), reason: reason}), Stderr: plainRefusal(reason)}
}
