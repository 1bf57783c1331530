// Package hook maps the pre-tool hooks of command-line coding agents
// (Claude Code's PreToolUse, Gemini CLI's BeforeTool) to admit calls, and
// formats the gate's answer the way each agent reads it.
//
// It is pure: no I/O, no clock, no connection. The command `admit hook`
// (cmd_hook.go) reads the event, asks the gate (the editor's server over
// its socket, or a local gate when none is reachable) and prints what
// Answer returns. Start with ParseEvent, Map and Answer.
//
// Whatever goes wrong, the answer is a deny with a reason, never an allow:
// an agent that runs a hook which fails open is not gated at all.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The agents this package speaks for, as named on the command line.
const (
	ClaudeCode = "claude-code"
	GeminiCLI  = "gemini-cli"
)

// Agents lists the agent names Answer and Map accept.
var Agents = []string{ClaudeCode, GeminiCLI}

// eventName is the hook event each agent fires before a tool runs.
var eventName = map[string]string{ClaudeCode: "PreToolUse", GeminiCLI: "BeforeTool"}

// MaxEventBytes bounds the event read from stdin. A Write of a large file
// carries its content; the gate's own bound on arguments (256 times
// ADMIT_MAX_REQUEST_CHARS, 1 MiB by default) refuses it long before this.
const MaxEventBytes = 16 << 20

// Event is a pre-tool hook event as both agents send it on stdin. Fields
// neither agent documents are ignored, so a newer agent version that adds
// some still gets a decision.
type Event struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`     // Claude Code
	PermissionMode string          `json:"permission_mode,omitempty"` // Claude Code
	Timestamp      string          `json:"timestamp,omitempty"`       // Gemini CLI
	MCPContext     json.RawMessage `json:"mcp_context,omitempty"`     // Gemini CLI, for MCP tools
	AgentID        string          `json:"agent_id,omitempty"`        // Claude Code subagents
	AgentType      string          `json:"agent_type,omitempty"`      // Claude Code subagents
}

// ParseEvent decodes and checks one event for agent. The event must be the
// agent's pre-tool event, name a tool, and carry its input as an object.
func ParseEvent(agent string, data []byte) (Event, error) {
	want, ok := eventName[agent]
	if !ok {
		return Event{}, fmt.Errorf("hook: unknown agent %q (want %s)", agent, strings.Join(Agents, " or "))
	}
	var ev Event
	if len(bytes.TrimSpace(data)) == 0 {
		return ev, errors.New("hook: the event on stdin is empty")
	}
	if len(data) > MaxEventBytes {
		return ev, fmt.Errorf("hook: the event is %d bytes, over the %d byte bound", len(data), MaxEventBytes)
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, fmt.Errorf("hook: the event is not a JSON object: %v", err)
	}
	if ev.HookEventName != want {
		return ev, fmt.Errorf("hook: hook_event_name is %q; admit hook %s answers %s events only", ev.HookEventName, agent, want)
	}
	if strings.TrimSpace(ev.ToolName) == "" {
		return ev, errors.New("hook: the event names no tool (tool_name)")
	}
	in := bytes.TrimSpace(ev.ToolInput)
	if len(in) == 0 || string(in) == "null" {
		ev.ToolInput = json.RawMessage(`{}`)
	} else if in[0] != '{' {
		return ev, fmt.Errorf("hook: tool_input of %q must be a JSON object", ev.ToolName)
	}
	return ev, nil
}

// Call is what an adapter puts to the gate: admit/check's params, without
// the session, which the caller chooses.
type Call struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Command string          `json:"command,omitempty"`
	Cwd     string          `json:"cwd,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`
}

// CallContext is the context recorded on the tape with each hooked call,
// so a decision can be traced to the agent's session and tool use.
type CallContext struct {
	Agent     string `json:"agent"`
	Task      string `json:"task,omitempty"`      // the agent's session id
	ToolUseID string `json:"toolUseId,omitempty"` // Claude Code's tool_use_id
}

// Map turns an event into the gate's call. Tool names stay the agent's
// own (the built-in policy and policy files name them), with one
// exception: Gemini CLI's legacy search_file_content is its grep_search.
// A shell tool's command line goes in Command, and its working folder
// (Gemini's dir_path) in args.cwd, which the command policy checks. Every
// other tool keeps its input as args: the policy finds path arguments
// (file_path, path, notebook_path, dir_path, ...) by name.
func Map(agent string, ev Event) (Call, error) {
	c := Call{Tool: strings.TrimSpace(ev.ToolName), Cwd: ev.Cwd}
	ctx, _ := json.Marshal(CallContext{Agent: agent, Task: ev.SessionID, ToolUseID: ev.ToolUseID})
	c.Context = ctx
	var in map[string]json.RawMessage
	if err := json.Unmarshal(ev.ToolInput, &in); err != nil {
		return c, fmt.Errorf("hook: tool_input of %q: %v", c.Tool, err)
	}
	switch agent {
	case ClaudeCode:
		if c.Tool == "Bash" {
			return shellCall(c, in, "")
		}
	case GeminiCLI:
		switch c.Tool {
		case "run_shell_command":
			return shellCall(c, in, firstString(in, "dir_path", "directory"))
		case "search_file_content":
			c.Tool = "grep_search"
		}
	default:
		return c, fmt.Errorf("hook: unknown agent %q", agent)
	}
	c.Args = ev.ToolInput
	return c, nil
}

// shellCall maps a shell tool: the command line, and the folder it runs in
// when the tool names one.
func shellCall(c Call, in map[string]json.RawMessage, dir string) (Call, error) {
	raw, ok := in["command"]
	if !ok {
		return c, fmt.Errorf("hook: %s names no command (tool_input.command)", c.Tool)
	}
	if err := json.Unmarshal(raw, &c.Command); err != nil {
		return c, fmt.Errorf("hook: %s: tool_input.command must be a string", c.Tool)
	}
	if dir != "" {
		c.Args, _ = json.Marshal(map[string]string{"cwd": dir})
	}
	return c, nil
}

func firstString(in map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := in[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
