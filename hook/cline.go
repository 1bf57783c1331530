package hook

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"admit/internal/strictjson"
)

// cline is Cline's PreToolUse hook: an executable file named PreToolUse
// in ~/Documents/Cline/Hooks/ (cline/cline .clinerules/hooks/README.md),
// given {clineVersion, hookName, taskId, workspaceRoots, preToolUse:
// {toolName, parameters}} with every parameter flattened to a string
// (apps/vscode/src/sdk/hooks-adapter.ts, toStringRecord), and answered
// with {cancel, errorMessage, contextModification}. The SDK runtime also
// sends tool_call {id, name, input} with the input unflattened, under
// hookName tool_call. A cancel ends the whole task, not the one call, and
// there is no ask. Valid JSON is honoured whatever the exit code; a hook
// that fails or takes longer than 30 s (HookProcess, hook-factory.ts
// HOOK_EXECUTION_TIMEOUT_MS) is logged and the call runs.
var cline = &Adapter{
	Name:          "cline",
	Host:          "Cline",
	Events:        []string{"PreToolUse"},
	Timeout:       30 * time.Second,
	TimeoutSource: "apps/vscode/src/core/hooks/hook-factory.ts: HOOK_EXECUTION_TIMEOUT_MS = 30000",
	impl:          clineHost{},
}

type clineHost struct{}

func (clineHost) parse(data []byte, event string) (Event, error) {
	ev := Event{Name: "PreToolUse"}
	o, err := parseObject(data, "the event on stdin")
	if err != nil {
		return ev, err
	}
	name, err := o.str("hookName")
	if err != nil {
		return ev, err
	}
	if name != "PreToolUse" && name != "tool_call" {
		return ev, fmt.Errorf("hook: hookName is %q; admit hook cline answers PreToolUse only", name)
	}
	roots, err := o.strList("workspaceRoots")
	if err != nil {
		return ev, err
	}
	if len(roots) > 0 {
		ev.Cwd = roots[0]
	}
	if ev.Session, err = o.str("taskId"); err != nil {
		return ev, err
	}
	pre, err := o.obj("preToolUse", false)
	if err != nil {
		return ev, err
	}
	call, err := o.obj("tool_call", false)
	if err != nil {
		return ev, err
	}
	if pre == nil && call == nil {
		return ev, fmt.Errorf("hook: the event carries no preToolUse")
	}
	if pre != nil {
		if ev.Tool, err = pre.str("toolName"); err != nil {
			return ev, err
		}
		params, err := pre.obj("parameters", false)
		if err != nil {
			return ev, err
		}
		ev.Input = params
	}
	if call != nil {
		// The unflattened input, where the runtime sends it, is the
		// truth; it must be the same tool as preToolUse's.
		name, err := call.str("name")
		if err != nil {
			return ev, err
		}
		if ev.Tool != "" && name != ev.Tool {
			return ev, fmt.Errorf("hook: tool_call.name %q and preToolUse.toolName %q differ", name, ev.Tool)
		}
		ev.Tool = name
		if ev.ToolUseID, err = call.str("id"); err != nil {
			return ev, err
		}
		if call.has("input") {
			in, err := call.obj("input", false)
			if err != nil {
				return ev, fmt.Errorf("hook: tool_call.input of %q must be a JSON object: %v", name, err)
			}
			ev.Input, ev.rawInput = in, call["input"]
		}
	}
	if ev.Tool = strings.TrimSpace(ev.Tool); ev.Tool == "" {
		return ev, fmt.Errorf("hook: the event names no tool (preToolUse.toolName)")
	}
	return ev, nil
}

// clineTools maps Cline's tools, legacy (execute_command, read_file,
// write_to_file, replace_in_file, ...) and the SDK's (run_commands,
// read_files, editor, apply_patch, ...), to admit's. The tools that only
// talk to the person or end the turn map to think, the built-in policy's
// no-effect tool: a refusal there would end every task.
var clineTools = toolTable{
	"write_to_file": "write_file", "replace_in_file": "edit_file", "editor": "edit_file",
	"list_files": "list_directory", "list_code_definition_names": "search_files",
	"search_codebase": "codebase_search", "fetch_web_content": "web_fetch",
	"read_files": "read_file", "run_commands": "execute_command",
	"ask_followup_question": "think", "attempt_completion": "think", "plan_mode_respond": "think",
	"ask_question": "think", "submit_and_exit": "think",
}

func (clineHost) calls(ev Event) ([]Call, error) {
	tool := clineTools.name(ev.Tool)
	in := object(ev.Input)
	// Only preToolUse.parameters is flattened to strings; tool_call.input,
	// where sent, is the input itself, and its strings are strings.
	flat := ev.rawInput == nil
	c := newCall(ev, tool, false)
	switch ev.Tool {
	case "execute_command":
		c, err := shellCall(c, in, "command", "")
		return []Call{c}, err
	case "attempt_completion":
		if in.has("command") { // legacy Cline runs it to show the result
			c.Tool = "execute_command"
			c, err := shellCall(c, in, "command", "")
			return []Call{c}, err
		}
	case "run_commands":
		return clineCommands(c, in, flat)
	case "read_files":
		paths, err := clineReadPaths(in, flat)
		if err != nil {
			return nil, err
		}
		c.Args = marshal(map[string][]string{"paths": paths})
		return []Call{c}, nil
	case "apply_patch":
		c, err := patchCall(c, firstString(in, "input"))
		return []Call{c}, err
	case "use_mcp_tool":
		var server, name string
		if err := in.strs(map[string]*string{"server_name": &server, "tool_name": &name}); err != nil {
			return nil, err
		}
		mcp, err := mcpName(server, name)
		if err != nil {
			return nil, err
		}
		args, err := in.obj("arguments", flat)
		if err != nil {
			return nil, err
		}
		c.Tool = mcp
		return []Call{withInput(c, args)}, nil
	}
	if !flat {
		return []Call{withArgs(c, ev)}, nil
	}
	return []Call{withInput(c, clineUnflatten(in))}, nil
}

// clineJSON decodes a parameter. Where flat (Cline flattened it to a
// string), a list or an object that was JSON-encoded comes back as
// itself; any other string is the string.
func clineJSON(raw json.RawMessage, flat bool) any {
	var s string
	if !flat || json.Unmarshal(raw, &s) != nil {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			return v
		}
		return nil
	}
	t := strings.TrimSpace(s)
	if (strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{")) && strictjson.Check([]byte(t)) == nil {
		var v any
		if json.Unmarshal([]byte(t), &v) == nil {
			return v
		}
	}
	return s
}

// clineStructured are the parameters whose lists and objects Cline
// flattens to JSON text. Only these are read back: a file's content or a
// diff that happens to be JSON is text, and read as an object its keys
// ("files", "source", ...) would pass for paths.
var clineStructured = map[string]bool{"commands": true, "files": true, "file_paths": true, "paths": true,
	"requests": true, "queries": true, "arguments": true, "edits": true, "replacements": true, "operations": true}

// clineUnflatten decodes the flattened lists and objects of a tool's
// parameters, so that the policy finds the paths inside them.
func clineUnflatten(in object) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(in))
	for k, raw := range in {
		if clineStructured[k] {
			out[k] = marshal(clineJSON(raw, true))
		} else {
			out[k] = raw
		}
	}
	return out
}

// clineCommands maps run_commands: every command is its own call, a
// string as a command line and {command, args} as an argv run without a
// shell. They are never joined: a trailing backslash in one would join
// it to the next, which Cline runs apart.
func clineCommands(c Call, in object, flat bool) ([]Call, error) {
	raw, ok := in["commands"]
	if !ok {
		if raw, ok = in["command"]; !ok {
			raw, ok = in["cmd"]
		}
	}
	if !ok {
		return nil, fmt.Errorf("hook: run_commands names no commands")
	}
	var list []any
	switch v := clineJSON(raw, flat).(type) {
	case []any:
		list = v
	case nil:
		return nil, fmt.Errorf("hook: run_commands: commands is null")
	default:
		list = []any{v}
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("hook: run_commands holds no command")
	}
	calls := make([]Call, 0, len(list))
	for i, item := range list {
		one := c
		switch v := item.(type) {
		case string:
			one.Command = v
		case map[string]any:
			name, _ := v["command"].(string)
			if name == "" {
				return nil, fmt.Errorf("hook: run_commands: command %d names no program", i+1)
			}
			one.Argv = []string{name}
			if args, ok := v["args"]; ok && args != nil {
				list, ok := args.([]any)
				if !ok {
					return nil, fmt.Errorf("hook: run_commands: the args of command %d are not a list", i+1)
				}
				for _, a := range list {
					s, ok := a.(string)
					if !ok {
						return nil, fmt.Errorf("hook: run_commands: an argument of command %d is not a string", i+1)
					}
					one.Argv = append(one.Argv, s)
				}
			}
		default:
			return nil, fmt.Errorf("hook: run_commands: command %d is neither a string nor {command, args}", i+1)
		}
		calls = append(calls, one)
	}
	return calls, nil
}

// clineReadPaths are the files read_files reads, in any of the shapes its
// schema accepts (a path, a list of paths, {path} requests, under files,
// file_paths or paths).
func clineReadPaths(in object, flat bool) ([]string, error) {
	var paths []string
	var add func(v any) error
	add = func(v any) error {
		switch v := v.(type) {
		case string:
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("hook: read_files names an empty path")
			}
			paths = append(paths, v)
		case []any:
			for _, x := range v {
				if err := add(x); err != nil {
					return err
				}
			}
		case map[string]any:
			for _, k := range []string{"path", "file_path", "filePath"} {
				if p, ok := v[k]; ok {
					return add(p)
				}
			}
			return fmt.Errorf("hook: read_files: a request names no path")
		default:
			return fmt.Errorf("hook: read_files: a path is a JSON %T", v)
		}
		return nil
	}
	for _, k := range []string{"files", "file_paths", "paths", "path"} {
		if raw, ok := in[k]; ok {
			if err := add(clineJSON(raw, flat)); err != nil {
				return nil, err
			}
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("hook: read_files names no file")
	}
	return paths, nil
}

func (clineHost) rewrites(Event) bool { return false }
func (clineHost) ask(Event) bool      { return false }

type clineOutput struct {
	Cancel              bool   `json:"cancel"`
	ContextModification string `json:"contextModification,omitempty"`
	ErrorMessage        string `json:"errorMessage,omitempty"`
}

// clineEnds says, in front of every refusal, what a refusal does in Cline
// and what to do instead, since the task the model was doing is over.
const clineEnds = "admit refused this call, and Cline ends the task when a hook refuses one: nothing after it ran. " +
	"To go on, start a new task that does this another way (the refusal below says what is not allowed and why), " +
	"or have the person approve it in the editor or allow it in .admit/policy.json. "

func clineAnswer(r resolved) []byte {
	switch r.kind {
	case kindDeny:
		return line(clineOutput{Cancel: true, ErrorMessage: clineEnds + r.reason})
	case kindAsk:
		return line(clineOutput{Cancel: true, ErrorMessage: clineEnds + r.refusal})
	case kindWarn:
		return line(clineOutput{ContextModification: r.reason})
	}
	return line(clineOutput{})
}

func (clineHost) answer(ev Event, r resolved, _ json.RawMessage) Reply {
	return Reply{Stdout: clineAnswer(r)}
}

// failure cancels: the only refusal Cline has. The exit status is 0
// because Cline honours valid JSON whatever it is, and nothing else.
func (clineHost) failure(ev Event, reason string) Reply {
	return Reply{Stdout: clineAnswer(resolved{kind: kindDeny, reason: reason}), Stderr: reason}
}
