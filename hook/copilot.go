package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// copilot is GitHub Copilot: VS Code's Local harness and the Copilot CLI,
// which is also VS Code's Copilot harness. One user-level file in the
// Copilot CLI's format (~/.copilot/hooks/admit.json) reaches both harnesses
// (microsoft/vscode-docs docs/agent-customization/migrate-customizations.md),
// so the adapter tells three payloads apart by their fields and tools:
//
//   - "vscode": the Local harness (microsoft/vscode-copilot-chat
//     src/extension/chat/vscode-node/chatHookService.ts): snake_case
//     envelope, VS Code's tool names (run_in_terminal, read_file,
//     create_file, replace_string_in_file, ...) with camelCase keys
//     (filePath). It reads only hookSpecificOutput; exit 2 denies; any
//     other exit, a spawn failure or a timeout lets the call run.
//   - "cli": the Copilot CLI's camelCase preToolUse (github/docs
//     content/copilot/reference/hooks-reference.md): sessionId, toolName,
//     toolArgs (an object, or a JSON string), answered with a top-level
//     permissionDecision and modifiedArgs. A crash or any non-zero exit
//     denies; a timeout lets the call run.
//   - "cli-vscode": the Copilot CLI's PascalCase PreToolUse ("VS Code
//     compatible"): snake_case fields and Claude's tool names. Whether it
//     reads hookSpecificOutput is not documented, so its answers carry the
//     decision both ways, as the Local harness's do.
//
// permissionRequest fires before the Copilot CLI's permission service and
// is answered with behavior allow or deny.
var copilot = &Adapter{
	Name:          "copilot",
	Host:          "GitHub Copilot",
	Events:        []string{"preToolUse", "PreToolUse", "permissionRequest", "PermissionRequest"},
	Timeout:       30 * time.Second,
	TimeoutSource: "hookExecutor.ts: DEFAULT_TIMEOUT_SEC = 30 (VS Code); hooks-reference.md: timeoutSec default 30 (Copilot CLI)",
	impl:          copilotHost{},
}

type copilotHost struct{}

// Copilot shapes.
const (
	shapeVSCode    = "vscode"
	shapeCLI       = "cli"
	shapeCLIVSCode = "cli-vscode"
)

// copilotTools maps every name the three payloads use to admit's: VS
// Code's model-facing names and the contributed copilot_* names
// (src/extension/tools/common/toolNames.ts), the Copilot CLI's runtime
// names (to the Claude names its PascalCase payload reports, per
// hooks-reference.md's table) and those Claude names. The three tables
// share no name with different meanings, so one table serves all shapes.
var copilotTools = toolTable{
	"runTerminalCommand": "run_in_terminal", "runInTerminal": "run_in_terminal",
	"multi_replace_string_in_file": "replace_string_in_file",
	"semantic_search":              "codebase_search",
	"fetch_webpage":                "fetch",
	"editFiles":                    "edit_file", "edit_files": "edit_file",
	"copilot_readFile": "read_file", "copilot_listDirectory": "list_dir", "copilot_findFiles": "file_search",
	"copilot_findTextInFiles": "grep_search", "copilot_createFile": "create_file",
	"copilot_replaceString": "replace_string_in_file", "copilot_multiReplaceString": "replace_string_in_file",
	"copilot_insertEdit": "insert_edit_into_file", "copilot_applyPatch": "apply_patch",
	"copilot_fetchWebPage": "fetch", "copilot_createDirectory": "create_directory",
	"copilot_searchCodebase": "codebase_search", "copilot_editFiles": "edit_file",
	"bash": "Bash", "view": "Read", "create": "Write", "edit": "Edit", "str_replace_editor": "Edit",
	"grep": "Grep", "rg": "Grep", "glob": "Glob", "web_fetch": "WebFetch", "web_search": "WebSearch",
	"update_todo": "TodoWrite", "task": "Task", "Agent": "Task",
	// The Copilot CLI's str_replace and insert edit a file by path. Its
	// write_bash, read_bash and stop_bash talk to a program a bash call
	// started (mode async), which was judged then: a shell or interpreter
	// that would run the text written to it is a program that runs code,
	// which only a person lets start.
	"str_replace": "Edit", "insert": "Edit",
	"write_bash": "think", "read_bash": "think", "stop_bash": "think",
	// VS Code: the todo list is bookkeeping, a subagent's calls come
	// through this hook, a notebook edit is a file edit. run_task,
	// create_and_run_task, run_notebook_cell, run_vscode_command and
	// install_extension keep their names: the built-in policy asks a
	// person (they run code no rule of admit's can read).
	"manage_todo_list": "TodoWrite", "runSubagent": "Task", "edit_notebook_file": "NotebookEdit",
}

// claudeToolNames are the names the Copilot CLI's PascalCase payload uses
// and VS Code's Local harness never does.
var claudeToolNames = map[string]bool{
	"Bash": true, "Read": true, "Write": true, "Edit": true, "Grep": true, "Glob": true,
	"WebFetch": true, "WebSearch": true, "TodoWrite": true, "Agent": true, "Task": true, "AskUserQuestion": true,
}

func (copilotHost) parse(data []byte, event string) (Event, error) {
	ev := Event{}
	o, err := parseObject(data, "the event on stdin")
	if err != nil {
		return ev, err
	}
	if o.has("hook_event_name") {
		return parseCopilotPascal(o, event)
	}
	if !o.has("toolName") {
		return ev, fmt.Errorf("hook: the event names no tool (neither toolName nor hook_event_name and tool_name)")
	}
	// camelCase: the event is the configuration's, not the payload's.
	ev.Shape = shapeCLI
	switch strings.ToLower(event) {
	case "", "pretooluse":
		ev.Name = "preToolUse"
	case "permissionrequest":
		ev.Name, ev.Permission = "permissionRequest", true
	}
	if err := o.strs(map[string]*string{"toolName": &ev.Tool, "sessionId": &ev.Session, "cwd": &ev.Cwd}); err != nil {
		return ev, err
	}
	if ev.Tool = strings.TrimSpace(ev.Tool); ev.Tool == "" {
		return ev, fmt.Errorf("hook: the event names no tool (toolName)")
	}
	key := "toolArgs"
	if !o.has(key) && ev.Permission && o.has("toolInput") {
		key = "toolInput" // permissionRequest's input is not documented: either name
	}
	ev.Input, ev.rawInput, err = copilotArgs(o, key, ev.Tool)
	return ev, err
}

func parseCopilotPascal(o object, event string) (Event, error) {
	ev := Event{}
	if err := o.strs(map[string]*string{"hook_event_name": &ev.Name, "tool_name": &ev.Tool, "session_id": &ev.Session, "cwd": &ev.Cwd, "tool_use_id": &ev.ToolUseID}); err != nil {
		return ev, err
	}
	switch ev.Name {
	case "PreToolUse":
	case "PermissionRequest":
		ev.Permission = true
	default:
		return ev, fmt.Errorf("hook: hook_event_name is %q; admit hook copilot answers PreToolUse and PermissionRequest events only", ev.Name)
	}
	if event != "" && !strings.EqualFold(event, ev.Name) {
		return ev, fmt.Errorf("hook: hook_event_name is %q but the hook was configured for %q", ev.Name, event)
	}
	if ev.Tool = strings.TrimSpace(ev.Tool); ev.Tool == "" {
		return ev, fmt.Errorf("hook: the event names no tool (tool_name)")
	}
	// The Local harness sends VS Code's tool names and a tool_use_id; the
	// Copilot CLI sends Claude's names (or its runtime names where there
	// is no Claude one) and no tool_use_id.
	switch {
	case ev.Permission || claudeToolNames[ev.Tool]:
		ev.Shape = shapeCLIVSCode
	case ev.ToolUseID != "":
		ev.Shape = shapeVSCode
	case copilotTools[ev.Tool] != "" && !strings.Contains(ev.Tool, "_"):
		ev.Shape = shapeCLIVSCode // a runtime name: view, create, edit, ...
	default:
		ev.Shape = shapeVSCode
	}
	var err error
	ev.Input, ev.rawInput, err = copilotArgs(o, "tool_input", ev.Tool)
	return ev, err
}

// copilotArgs is a tool's input: an object, or a JSON string holding one
// (older Copilot CLI releases typed toolArgs as a string); apply_patch's
// may be the patch text itself.
// The raw input is returned when it was sent as an object.
func copilotArgs(o object, key, tool string) (map[string]json.RawMessage, json.RawMessage, error) {
	raw, ok := o[key]
	if !ok || isNull(raw) {
		return map[string]json.RawMessage{}, nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && copilotTools.name(tool) == "apply_patch" && !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return map[string]json.RawMessage{"input": raw}, nil, nil
	}
	in, err := asObject(raw, key, true)
	if err != nil {
		return nil, nil, fmt.Errorf("hook: %s of %q must be a JSON object: %v", key, tool, err)
	}
	if bytes.TrimSpace(raw)[0] == '{' {
		return in, raw, nil
	}
	return in, nil, nil
}

// windowsPath says whether dir is a Windows path (C:\...).
func windowsPath(dir string) bool {
	return len(dir) >= 3 && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/') &&
		(dir[0] >= 'a' && dir[0] <= 'z' || dir[0] >= 'A' && dir[0] <= 'Z')
}

// copilotTool is admit's name for ev's tool. The Copilot CLI reports its
// powershell tool as Bash in the PascalCase payload; a PowerShell line is
// not judged as bash, so on Windows Bash stays the tool it is.
func copilotTool(ev Event) string {
	if ev.Tool == "powershell" || ev.Tool == "Bash" && ev.Shape != shapeVSCode && windowsPath(ev.Cwd) {
		return "powershell"
	}
	return copilotTools.name(ev.Tool)
}

func (copilotHost) calls(ev Event) ([]Call, error) {
	tool := copilotTool(ev)
	c := newCall(ev, tool, false)
	switch tool {
	case "run_in_terminal", "Bash":
		c, err := shellCall(c, ev.Input, "command", "")
		if ev.Shape == shapeVSCode && tool == "run_in_terminal" && !c.Background {
			// VS Code types each line of a chat into the same terminal,
			// which keeps its folder: "cd .git", then "echo x > config".
			// The event's cwd is the workspace, not where that terminal is.
			c.Terminal = "vscode:" + ev.Session
		}
		return []Call{c}, err
	case "apply_patch":
		text := firstString(ev.Input, "input", "patch")
		c, err := patchCall(c, text)
		return []Call{c}, err
	}
	return []Call{withArgs(c, ev)}, nil
}

func (copilotHost) rewrites(ev Event) bool {
	t := copilotTool(ev)
	return !ev.Permission && (t == "run_in_terminal" || t == "Bash")
}

func (copilotHost) ask(ev Event) bool { return true }

// copilotOutput is the Copilot CLI's answer (top-level fields) with the
// same decision in hookSpecificOutput, which VS Code's Local harness reads.
type copilotOutput struct {
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	ModifiedArgs             json.RawMessage `json:"modifiedArgs,omitempty"`
	Behavior                 string          `json:"behavior,omitempty"`
	Message                  string          `json:"message,omitempty"`
	HookSpecificOutput       *specific       `json:"hookSpecificOutput,omitempty"`
}

func copilotAnswer(ev Event, r resolved, rewrite json.RawMessage) []byte {
	both := ev.Shape != shapeCLI // the PascalCase shapes, or not known
	if ev.Permission {
		var o copilotOutput
		switch r.kind {
		case kindAllow:
			o.Behavior = "allow"
		case kindDeny:
			o.Behavior, o.Message = "deny", r.reason
		default:
			return line(copilotOutput{}) // the CLI's own prompt asks
		}
		if both {
			o.HookSpecificOutput = &specific{HookEventName: "PermissionRequest", Decision: &permissionDecision{Behavior: o.Behavior, Message: o.Message}}
		}
		return line(o)
	}
	if r.kind == kindDefer {
		return line(copilotOutput{})
	}
	o := copilotOutput{PermissionDecision: r.word(), PermissionDecisionReason: r.reason}
	if r.kind == kindAllow {
		o.ModifiedArgs = rewrite
	}
	if both {
		o.HookSpecificOutput = &specific{HookEventName: "PreToolUse", PermissionDecision: o.PermissionDecision,
			PermissionDecisionReason: o.PermissionDecisionReason, UpdatedInput: rewrite}
	}
	return line(o)
}

func (copilotHost) answer(ev Event, r resolved, rewrite json.RawMessage) Reply {
	return Reply{Stdout: copilotAnswer(ev, r, rewrite)}
}

// failure exits 2, which denies in both harnesses (the Local harness reads
// only the exit code then, the Copilot CLI merges stdout with the deny).
func (copilotHost) failure(ev Event, reason string) Reply {
	return Reply{Stdout: copilotAnswer(ev, resolved{kind: kindDeny, reason: reason}, nil), Stderr: reason, Exit: exitBlock}
}
