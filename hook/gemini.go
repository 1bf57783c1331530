package hook

import (
	"encoding/json"
	"time"
)

// geminiCLI is Gemini CLI's BeforeTool hook (google-gemini/gemini-cli
// docs/hooks/reference.md, packages/core/src/hooks/hookRunner.ts). Its
// output is read as JSON whatever the exit code; plain text with an exit
// code of 2 or more is a deny, so a missing binary (127, with the shell's
// message on stderr) denies too. A timeout gives no decision: the call
// runs.
var geminiCLI = &Adapter{
	Name:          "gemini-cli",
	Host:          "Gemini CLI",
	Events:        []string{"BeforeTool"},
	Timeout:       60 * time.Second,
	TimeoutSource: "hookRunner.ts: DEFAULT_HOOK_TIMEOUT = 60000 ms",
	CrashBlocks:   true,
	impl:          geminiHost{},
}

type geminiHost struct{}

func (geminiHost) parse(data []byte, event string) (Event, error) {
	s, err := parseSnake(data, event, geminiCLI.Events)
	if err != nil {
		return s.ev, err
	}
	// mcp_context names an MCP tool's server and its own name apart.
	mcp, err := s.o.obj("mcp_context", false)
	if err != nil {
		return s.ev, err
	}
	if mcp != nil {
		if err := mcp.strs(map[string]*string{"server_name": &s.ev.MCPServer, "tool_name": &s.ev.MCPTool}); err != nil {
			return s.ev, err
		}
	}
	return s.ev, nil
}

// calls keeps Gemini's tool names, except the legacy search_file_content,
// which is grep_search, and MCP tools, named mcp__SERVER__TOOL from
// mcp_context. run_shell_command gives its command line and, as args.cwd,
// the folder it runs in (dir_path).
func (geminiHost) calls(ev Event) ([]Call, error) {
	tool := ev.Tool
	switch {
	case ev.MCPServer != "" || ev.MCPTool != "":
		name, err := mcpName(ev.MCPServer, ev.MCPTool)
		if err != nil {
			return nil, err
		}
		tool = name
	case tool == "search_file_content":
		tool = "grep_search"
	}
	c := newCall(ev, tool, false)
	if tool == "run_shell_command" {
		c, err := shellCall(c, ev.Input, "command", firstString(ev.Input, "dir_path", "directory"))
		return []Call{c}, err
	}
	return []Call{withArgs(c, ev)}, nil
}

func (geminiHost) rewrites(ev Event) bool { return ev.Tool == "run_shell_command" }
func (geminiHost) ask(ev Event) bool      { return !ev.NoPrompt }

// geminiOutput is Gemini CLI's BeforeTool answer. decision "ask" forces
// its confirmation (scheduler.ts, forcedDecision ask_user); "allow" does
// not skip its policy engine.
type geminiOutput struct {
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// SystemMessage is what Gemini CLI shows its user (for an ask, in
	// place of the reason: scheduler/hook-utils.ts).
	SystemMessage      string          `json:"systemMessage,omitempty"`
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

// geminiSpecific carries the rewritten input: hook-utils.ts builds the
// tool from it, so the whole input is sent with the command replaced.
type geminiSpecific struct {
	HookEventName string          `json:"hookEventName"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

func geminiAnswer(ev Event, r resolved, rewrite json.RawMessage) []byte {
	if r.kind == kindDefer {
		return line(geminiOutput{})
	}
	o := geminiOutput{Decision: r.word(), Reason: r.reason}
	switch {
	case r.kind == kindAllow && rewrite != nil:
		o.HookSpecificOutput = &geminiSpecific{HookEventName: "BeforeTool", ToolInput: rewrite}
	case ev.NoPrompt && r.kind == kindAsk:
		// Nobody at Gemini's prompt: an ask would end the run with no
		// result. A deny the model reads, saying a person must approve.
		o.Decision, o.Reason, o.SystemMessage = "deny", r.refusal, r.reason
	case ev.NoPrompt && r.kind == kindWarn:
		o.Decision, o.SystemMessage = "allow", r.reason // warn mode runs it
	case r.kind == kindAsk || r.kind == kindWarn:
		o.SystemMessage = r.reason // what the person is shown beside the question
	}
	return line(o)
}

func (geminiHost) answer(ev Event, r resolved, rewrite json.RawMessage) Reply {
	return Reply{Stdout: geminiAnswer(ev, r, rewrite)}
}

// failure denies in JSON, which Gemini reads whatever the exit code, and
// exits 2, which denies even if the JSON is lost.
func (geminiHost) failure(ev Event, reason string) Reply {
	return Reply{Stdout: geminiAnswer(ev, resolved{kind: kindDeny, reason: reason}, nil), Stderr: reason, Exit: exitBlock}
}
