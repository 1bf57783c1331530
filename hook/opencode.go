package hook

import (
	"encoding/json"
	"time"
)

// opencode is opencode's plugin hook tool.execute.before (opencode-ai on
// npm; the plugin API of @opencode-ai/plugin): a plugin function that
// throws stops the call before it runs, and opencode gives the model the
// thrown message as the tool's result; the plugin may change output.args,
// which the tool then runs with. opencode runs no command hooks, so admit
// connect writes a plugin of its own (~/.config/opencode/plugins/admit.js,
// hook/connect) that hands each call to `admit hook opencode` in the
// snake-case shape Claude Code's hooks use (opencode's tool, args,
// sessionID, callID and the plugin's directory):
//
//	{"hook_event_name": "tool.execute.before", "tool_name": ..., "tool_input": {...},
//	 "session_id": ..., "tool_use_id": ..., "cwd": ...}
//
// and throws unless the answer is {"decision": "allow"} (with "args", the
// input to run instead), so anything else (a deny, no answer, a missing
// binary, a timeout) refuses the call. There is no ask: a call a person
// must approve is refused with a refusal that says so. Verified with
// opencode 1.18.33 (internal/realclients).
var opencode = &Adapter{
	Name:          "opencode",
	Host:          "opencode",
	Events:        []string{"tool.execute.before"},
	Timeout:       600 * time.Second,
	TimeoutSource: "admit's own plugin: it waits 600 s for admit, then refuses the call",
	CrashBlocks:   true,
	impl:          opencodeHost{},
}

type opencodeHost struct{}

func (opencodeHost) parse(data []byte, event string) (Event, error) {
	s, err := parseSnake(data, event, opencode.Events)
	return s.ev, err
}

// opencodeTools maps opencode's built-in tools (their names as the model
// sees them) to the built-in policy's: its file tools take filePath,
// which the gate reads as a path like file_path.
var opencodeTools = toolTable{
	"bash": "Bash", "read": "Read", "write": "Write", "edit": "Edit", "multiedit": "MultiEdit",
	"glob": "Glob", "grep": "Grep", "list": "LS", "webfetch": "WebFetch", "websearch": "WebSearch",
	"task": "Task", "todowrite": "TodoWrite", "todoread": "TodoRead",
}

// calls: bash gives its command line, run in args.workdir when set;
// apply_patch (opencode's edit tool for some models) the files its patch
// names; the rest keep their input, under admit's name for the tool.
func (opencodeHost) calls(ev Event) ([]Call, error) {
	tool := opencodeTools.name(ev.Tool)
	c := newCall(ev, tool, false)
	switch ev.Tool {
	case "bash":
		c, err := shellCall(c, ev.Input, "command", firstString(ev.Input, "workdir"))
		return []Call{c}, err
	case "apply_patch", "patch":
		c, err := patchCall(c, firstString(ev.Input, "patchText", "patch", "input"))
		return []Call{c}, err
	}
	return []Call{withArgs(c, ev)}, nil
}

func (opencodeHost) rewrites(ev Event) bool { return ev.Tool == "bash" }
func (opencodeHost) ask(Event) bool         { return false }

// opencodeAnswer is what admit's plugin reads: allow, with the input to
// run instead when the line is rewritten, or deny with what the model is
// told.
type opencodeAnswer struct {
	Decision string          `json:"decision"`
	Reason   string          `json:"reason,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
}

func (opencodeHost) answer(_ Event, r resolved, rewrite json.RawMessage) Reply {
	switch r.kind {
	case kindDefer, kindWarn:
		// No decision, or warn mode: the call runs, under opencode's own
		// permissions.
		return Reply{Stdout: line(opencodeAnswer{Decision: "allow", Reason: r.reason})}
	case kindAllow:
		return Reply{Stdout: line(opencodeAnswer{Decision: "allow", Reason: r.reason, Args: rewrite})}
	case kindAsk:
		return Reply{Stdout: line(opencodeAnswer{Decision: "deny", Reason: r.refusal})}
	}
	return Reply{Stdout: line(opencodeAnswer{Decision: "deny", Reason: r.reason})}
}

// failure denies in JSON and exits 2: the plugin refuses the call on
// either.
func (opencodeHost) failure(_ Event, reason string) Reply {
	return Reply{Stdout: line(opencodeAnswer{Decision: "deny", Reason: reason}), Stderr: reason, Exit: exitBlock}
}
