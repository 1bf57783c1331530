package hook

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// windsurf is Windsurf's Cascade hooks (docs.windsurf.com/windsurf/cascade/
// hooks.md): pre_run_command, pre_write_code, pre_read_code and
// pre_mcp_tool_use, each with its details in tool_info. The answer is the
// exit status alone: 2 blocks, with stderr as the reason the agent sees;
// anything else, a missing binary included, lets the action run. There is
// no ask, no input rewriting, and no documented timeout.
var windsurf = &Adapter{
	Name:          "windsurf",
	Host:          "Windsurf",
	Events:        []string{"pre_run_command", "pre_write_code", "pre_read_code", "pre_mcp_tool_use"},
	Timeout:       30 * time.Second,
	TimeoutSource: "not documented: assumed 30 s, the shortest default of the other hosts",
	impl:          windsurfHost{},
}

// kiro is Kiro's PreToolUse command hook (kiro.dev/docs/cli/hooks): a
// Claude-like event ({hook_event_name, cwd, tool_name, tool_input}) and
// the same exit-code answer as Windsurf's: 2 blocks with stderr, 0 runs
// the call. Its hooks files give a 60 s timeout; the CLI's agent-embedded
// hooks have been documented with 30 s, so Timeout takes the shorter.
var kiro = &Adapter{
	Name:          "kiro",
	Host:          "Kiro",
	Events:        []string{"PreToolUse", "preToolUse"},
	Timeout:       30 * time.Second,
	TimeoutSource: "kiro.dev hooks docs: 60 s in .kiro/hooks files, 30 s documented for agent-embedded hooks; the shorter is taken",
	impl:          kiroHost{},
}

type windsurfHost struct{}

func (windsurfHost) parse(data []byte, event string) (Event, error) {
	ev := Event{}
	o, err := parseObject(data, "the event on stdin")
	if err != nil {
		return ev, err
	}
	if err := o.strs(map[string]*string{"agent_action_name": &ev.Name, "trajectory_id": &ev.Session, "execution_id": &ev.Turn}); err != nil {
		return ev, err
	}
	if !windsurf.answers(ev.Name) {
		return ev, fmt.Errorf("hook: agent_action_name is %q; admit hook windsurf answers %s only", ev.Name, strings.Join(windsurf.Events, ", "))
	}
	if event != "" && event != ev.Name {
		return ev, fmt.Errorf("hook: agent_action_name is %q but the hook was configured for %q", ev.Name, event)
	}
	info, err := o.obj("tool_info", false)
	if err != nil {
		return ev, err
	}
	if info == nil {
		return ev, fmt.Errorf("hook: %s carries no tool_info", ev.Name)
	}
	ev.Tool, ev.Input, ev.rawInput = ev.Name, info, o["tool_info"]
	switch ev.Name {
	case "pre_run_command":
		if ev.Cwd, err = info.str("cwd"); err != nil {
			return ev, err
		}
		if !info.has("command_line") {
			return ev, fmt.Errorf("hook: pre_run_command names no tool_info.command_line")
		}
	case "pre_write_code", "pre_read_code":
		if p, err := info.str("file_path"); err != nil || p == "" {
			return ev, fmt.Errorf("hook: %s names no tool_info.file_path", ev.Name)
		}
	case "pre_mcp_tool_use":
		if err := info.strs(map[string]*string{"mcp_server_name": &ev.MCPServer, "mcp_tool_name": &ev.MCPTool}); err != nil {
			return ev, err
		}
		args, err := info.obj("mcp_tool_arguments", true)
		if err != nil {
			return ev, err
		}
		ev.Input, ev.rawInput = args, nil
		if args == nil {
			ev.Input = object{}
		} else if raw := info["mcp_tool_arguments"]; raw[0] == '{' {
			ev.rawInput = raw
		}
	}
	return ev, nil
}

// calls: pre_run_command is admit's run_command (a shell tool) with its
// command line and cwd; pre_write_code is edit_file and pre_read_code
// read_file, judged by file_path (which may be a folder read whole);
// pre_mcp_tool_use is mcp__SERVER__TOOL with its arguments.
func (windsurfHost) calls(ev Event) ([]Call, error) {
	switch ev.Name {
	case "pre_run_command":
		c, err := shellCall(newCall(ev, "run_command", true), ev.Input, "command_line", "")
		return []Call{c}, err
	case "pre_write_code":
		return []Call{withArgs(newCall(ev, "edit_file", true), ev)}, nil
	case "pre_read_code":
		return []Call{withArgs(newCall(ev, "read_file", true), ev)}, nil
	default:
		name, err := mcpName(ev.MCPServer, ev.MCPTool)
		if err != nil {
			return nil, err
		}
		return []Call{withArgs(newCall(ev, name, true), ev)}, nil
	}
}

func (windsurfHost) rewrites(Event) bool { return false }
func (windsurfHost) ask(Event) bool      { return false }

func (windsurfHost) answer(ev Event, r resolved, _ json.RawMessage) Reply {
	return exitCodeAnswer(r)
}

func (windsurfHost) failure(ev Event, reason string) Reply {
	return Reply{Stderr: reason, Exit: exitBlock}
}

// exitCodeAnswer is the answer of a host that reads the exit status only:
// 0 runs the call (a warning goes to stderr, which the host may show), 2
// blocks it with the refusal on stderr, which the agent reads.
func exitCodeAnswer(r resolved) Reply {
	switch r.kind {
	case kindDeny:
		return Reply{Stderr: r.reason, Exit: exitBlock}
	case kindAsk:
		return Reply{Stderr: r.refusal, Exit: exitBlock}
	case kindWarn:
		return Reply{Stderr: r.reason}
	}
	return Reply{}
}

type kiroHost struct{}

// kiroTools maps Kiro's built-in tools to admit's: the current names
// (kiro.dev/docs/cli/reference/built-in-tools: read, write, shell, glob,
// grep, web_fetch, web_search, thinking, todo_list) and the legacy ones
// (fs_read, fs_write, execute_bash). aws (use_aws) keeps its name and is
// refused unless the policy allows it: it reaches AWS with the person's
// credentials, which no rule of admit's judges.
var kiroTools = toolTable{
	"execute_bash": "bash", "executeBash": "bash", "shell": "bash",
	"fs_read": "read_file", "fsRead": "read_file", "read": "read_file",
	"fs_write": "write_file", "fsWrite": "write_file", "write": "write_file",
	"glob": "Glob", "grep": "Grep", "web_fetch": "web_fetch", "web_search": "web_search",
	"thinking": "think", "todo_list": "TodoWrite",
}

func (kiroHost) parse(data []byte, event string) (Event, error) {
	s, err := parseSnake(data, event, kiro.Events)
	return s.ev, err
}

// calls: shell (execute_bash) gives its command line; read and write
// (fs_read, fs_write) their paths (found by key, inside operations too); an MCP tool, @SERVER/TOOL,
// is mcp__SERVER__TOOL.
func (kiroHost) calls(ev Event) ([]Call, error) {
	tool := kiroTools.name(ev.Tool)
	if rest, ok := strings.CutPrefix(ev.Tool, "@"); ok {
		server, name, found := strings.Cut(rest, "/")
		if !found {
			return nil, fmt.Errorf("hook: MCP tool %q is not @SERVER/TOOL", ev.Tool)
		}
		var err error
		if tool, err = mcpName(server, name); err != nil {
			return nil, err
		}
	}
	c := newCall(ev, tool, false)
	if tool == "bash" {
		c, err := shellCall(c, ev.Input, "command", firstString(ev.Input, "working_dir", "cwd"))
		return []Call{c}, err
	}
	return []Call{withArgs(c, ev)}, nil
}

func (kiroHost) rewrites(Event) bool { return false }
func (kiroHost) ask(Event) bool      { return false }

func (kiroHost) answer(ev Event, r resolved, _ json.RawMessage) Reply {
	return exitCodeAnswer(r)
}

func (kiroHost) failure(ev Event, reason string) Reply {
	return Reply{Stderr: reason, Exit: exitBlock}
}
