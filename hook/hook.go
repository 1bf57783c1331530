// Package hook speaks the pre-tool hooks of the coding agents people run
// beside the editor: Claude Code, Gemini CLI, GitHub Copilot (VS Code's
// Local harness and the Copilot CLI, which is also VS Code's Copilot
// harness), OpenAI Codex, Cursor, Windsurf, Kiro, Cline and opencode (through
// a plugin of admit's). Each host is
// one Adapter, and every adapter has the same shape, so `admit hook NAME`
// has one code path:
//
//	a, ok := hook.Lookup(name)          // unknown name: exit 2, nothing else to say
//	ev, err := a.Parse(stdin, event)    // err: print a.Failure(ev, err.Error())
//	calls, err := a.Map(ev)             // err: print a.Failure(ev, err.Error())
//	v := hook.Strictest(decide(calls)...) // the gate, one verdict per call
//	print a.Answer(ev, v)               // or a.Failure(ev, why) on any error
//
// Printing a Reply means writing Stdout, writing Stderr and exiting with
// Exit. The package is pure: no I/O, no clock, no connection.
//
// Whatever goes wrong, the answer is a deny in the host's own form, with
// the exit status that blocks where the host blocks on one: every host
// lets the call run when its hook fails to answer in time, and most let
// it run when the hook crashes, so an adapter that fails open is no gate.
package hook

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// MaxEventBytes bounds the event read from stdin. A write of a large file
// carries its content; the gate's own bound on arguments (256 times
// ADMIT_MAX_REQUEST_CHARS, 1 MiB by default) refuses it long before this.
const MaxEventBytes = 16 << 20

// Adapter is one host's hook door. The fields say what the host is and
// how it fails; the methods turn its event into admit's calls and the
// gate's decision into the host's answer.
type Adapter struct {
	// Name is the host as named on the command line (admit hook NAME).
	Name string
	// Host is the product, for messages ("GitHub Copilot").
	Host string
	// Events are the hook events the adapter answers, as the host spells
	// them in its configuration. Anything else is refused.
	Events []string
	// Timeout is how long the host waits for a hook by default. Every
	// host runs the call when the hook takes longer, so admit must answer
	// first: see Budget.
	Timeout time.Duration
	// TimeoutSource says where Timeout comes from, or that the host
	// documents none and Timeout is the shortest default of its peers.
	TimeoutSource string
	// CrashBlocks says whether the host refuses the call when the hook
	// cannot run (the configured binary is missing: the shell exits 127)
	// or exits with a status other than the one that blocks. Where it is
	// false, a missing admit means no gate at all.
	CrashBlocks bool

	impl host
}

// host is what each adapter implements.
type host interface {
	// parse decodes and checks an event; on error the returned event
	// holds what was learnt (its Name, Shape), for failure to pick a form.
	parse(data []byte, event string) (Event, error)
	// calls maps a parsed event to the gate's calls.
	calls(ev Event) ([]Call, error)
	// answer formats a resolved decision; rewrite is the tool's whole
	// input with the command line replaced, or nil.
	answer(ev Event, r resolved, rewrite json.RawMessage) Reply
	// failure is the refusal when nothing could be decided.
	failure(ev Event, reason string) Reply
	// rewrites says whether an allowed call of ev may be answered with a
	// replaced command line that the host will run instead.
	rewrites(ev Event) bool
	// ask says whether the host can put ev's call to its own user.
	ask(ev Event) bool
}

// Reply is what `admit hook` prints: Stdout, then Stderr, and exit status
// Exit. An empty Stdout means no output at all.
type Reply struct {
	Stdout []byte
	Stderr string
	Exit   int
}

// exitBlock is the exit status the exit-code hosts (Claude Code, Codex,
// VS Code, Cursor, Windsurf, Kiro) read as "block this call".
const exitBlock = 2

// Event is one hook event, decoded. Fields the host does not send are
// empty; Input is never nil.
type Event struct {
	// Host is the adapter's Name.
	Host string
	// Name is the event as the host names it ("PreToolUse",
	// "preToolUse", "beforeShellExecution", "pre_run_command", ...).
	Name string
	// Permission marks an event the host fires when it is about to ask
	// its user (Claude Code's and Codex's PermissionRequest, Copilot's
	// permissionRequest), as opposed to one before every call.
	Permission bool
	// Shape names the payload dialect where a host has several: for
	// copilot "vscode" (VS Code's Local harness), "cli" (the Copilot
	// CLI's camelCase payload) or "cli-vscode" (its PascalCase payload).
	Shape string
	// Tool is the tool as the host names it.
	Tool string
	// Input is the tool's input, an object.
	Input map[string]json.RawMessage
	// Cwd is the folder the host says the call runs in, or "".
	Cwd string
	// Session is the host's session (conversation, task) id.
	Session string
	// Turn is the host's turn (generation, execution) id.
	Turn string
	// ToolUseID is the host's id of this tool call.
	ToolUseID string
	// MCPServer and MCPTool name an MCP tool's server and its own name,
	// when the host says them apart from Tool.
	MCPServer, MCPTool string
	// NoPrompt: the host runs with nobody at its prompt (Gemini CLI's
	// non-interactive mode, where an ask ends the run silently), so a
	// call that needs a person is refused with a reason the model reads.
	// The caller sets it; the event never says.
	NoPrompt bool

	// rawInput is the tool's input as sent, when Input is that object
	// unchanged: it is passed on (and taped) in the agent's own order.
	rawInput json.RawMessage
}

// Call is what an adapter puts to the gate: admit/check's params, without
// the session, which the caller chooses.
type Call struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Command string          `json:"command,omitempty"`
	Argv    []string        `json:"argv,omitempty"` // words run without a shell
	Cwd     string          `json:"cwd,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`
	// Background: the host runs the shell call in the background (Claude
	// Code's run_in_background, VS Code's isBackground); TimeoutMs is the
	// timeout the call gives it (Claude Code's timeout), or 0.
	Background bool  `json:"background,omitempty"`
	TimeoutMs  int64 `json:"timeoutMs,omitempty"`
	// Terminal names the terminal a host types its shell lines into and
	// keeps from one call to the next (VS Code's agent terminal), whose
	// folder the host does not report: the gate tracks it.
	Terminal string `json:"terminal,omitempty"`
}

// CallContext is the context recorded on the tape with each hooked call,
// so a decision can be traced to the agent's session and tool use.
type CallContext struct {
	Agent     string `json:"agent"`
	Task      string `json:"task,omitempty"`      // the host's session id
	Turn      string `json:"turn,omitempty"`      // the host's turn id
	ToolUseID string `json:"toolUseId,omitempty"` // the host's id of the tool call
	Event     string `json:"event,omitempty"`     // the hook event, when not the adapter's first
	HostTool  string `json:"hostTool,omitempty"`  // the host's tool name, when admit's differs
}

// consentTools are the hosts' tools whose approval is the person's consent
// rather than a permission: Claude Code's ExitPlanMode (its prompt is the
// plan's approval; a hook's allow skips it) and AskUserQuestion (the
// prompt is the person's answer), Gemini CLI's and the Copilot CLI's
// exit_plan_mode, and the Copilot CLI's ask_user. The gate may refuse
// them; it never answers allow. The built-in policy grants them, so that
// a host's plan mode can be left and its person asked at all.
var consentTools = map[string]bool{
	"ExitPlanMode": true, "AskUserQuestion": true, "exit_plan_mode": true, "ask_user": true,
}

// all are the adapters, one per host; adapters indexes them by name.
var (
	all      = []*Adapter{claudeCode, geminiCLI, copilot, codex, cursor, windsurf, kiro, cline, opencode}
	adapters = index(all)
)

func index(list []*Adapter) map[string]*Adapter {
	m := make(map[string]*Adapter, len(list))
	for _, a := range list {
		if _, dup := m[a.Name]; dup {
			panic("hook: two adapters named " + a.Name)
		}
		m[a.Name] = a
	}
	return m
}

// Lookup returns the adapter named on the command line.
func Lookup(name string) (*Adapter, bool) {
	a, ok := adapters[name]
	return a, ok
}

// Names lists the adapters' names, sorted.
func Names() []string {
	names := make([]string, 0, len(adapters))
	for n := range adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Agents lists the adapters' names (the same as Names).
var Agents = Names()

// Parse decodes and checks one event from stdin. event is the event named
// on the command line, or "" to take it from the payload; only the
// Copilot CLI's camelCase payload does not name its event, and there ""
// means preToolUse. Malformed input is an error: an empty or truncated
// event, one that is not a JSON object, has a duplicate key or invalid
// UTF-8, is not one of a.Events, names no tool, or carries a tool input
// that is not an object. On error the event holds what was learnt, for
// Failure.
func (a *Adapter) Parse(data []byte, event string) (Event, error) {
	if event != "" && !a.answers(event) {
		return Event{Host: a.Name}, fmt.Errorf("hook: admit hook %s answers %s, not %q", a.Name, strings.Join(a.Events, ", "), event)
	}
	ev, err := a.impl.parse(data, event)
	ev.Host = a.Name
	if err == nil && ev.Input == nil {
		ev.Input = map[string]json.RawMessage{}
	}
	return ev, err
}

func (a *Adapter) answers(event string) bool {
	return slices.Contains(a.Events, event)
}

// Map turns a parsed event into the gate's calls: almost always one; a
// host tool that runs several command lines gives one call per line, and
// the command judges each (see Strictest). Tool names become admit's where
// the built-in policy knows the tool under another name (the host's name
// is kept in the context as hostTool); shell tools give a command line
// and the folder it runs in, file tools their path arguments (the policy
// finds them by key: path, file_path, filePath, ...), MCP tools their
// server and tool name (mcp__SERVER__TOOL) and arguments.
func (a *Adapter) Map(ev Event) ([]Call, error) {
	calls, err := a.impl.calls(ev)
	if err != nil {
		return nil, err
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("hook: %s: the event maps to no call", ev.Tool)
	}
	return calls, nil
}

// CanRewrite says whether an allowed call of ev may be answered with a
// replacement command line (Verdict.Rewrite), which the host then runs
// instead of the agent's: true only for a shell call in a host that
// replaces the tool's input before it runs (Claude Code's and VS Code's
// updatedInput, the Copilot CLI's modifiedArgs, Gemini CLI's
// hookSpecificOutput.tool_input). The gate hands out a handle only where
// this is true, so that a handle given out is used.
func (a *Adapter) CanRewrite(ev Event) bool {
	return a.impl.rewrites(ev) && hasCommand(ev)
}

// CanAsk says whether the host can put ev's call to its own user. Where
// it cannot, a call that needs a person must be asked in the editor
// before the answer, and one nobody could be asked about is refused.
func (a *Adapter) CanAsk(ev Event) bool {
	return a.impl.ask(ev)
}

// Answer formats the gate's verdict as ev's host reads it. A Verdict
// that carries a Rewrite the host cannot use, or that is not an allowed
// shell call, is refused as a failure: a handle handed out for nothing
// would be taped as a rewrite that never happened.
func (a *Adapter) Answer(ev Event, d Verdict) Reply {
	r := resolve(d)
	if r.kind == kindAllow && consentTools[ev.Tool] && d.Rewrite == "" {
		// Approving this tool is the person's own consent (to leave plan
		// mode, to answer a question): an allow would give it for them.
		// No decision leaves it to the host's own prompt; a refusal stands.
		r = resolved{kind: kindDefer, rule: r.rule}
	}
	var rewrite json.RawMessage
	if d.Rewrite != "" {
		switch {
		case r.kind != kindAllow:
			return a.Failure(ev, fmt.Sprintf("the decision carries a rewrite but is %s, not allowed", r.kind))
		case !a.CanRewrite(ev):
			return a.Failure(ev, fmt.Sprintf("%s cannot rewrite a %s call of %s, yet the decision carries a rewrite", a.Host, ev.Tool, ev.Name))
		}
		var err error
		if rewrite, err = rewriteInput(ev, d.Rewrite); err != nil {
			return a.Failure(ev, err.Error())
		}
	}
	return a.impl.answer(ev, r, rewrite)
}

// Failure is the answer when nothing could be decided (a bad event, an
// unreachable or failing gate, a timeout): a deny in ev's host's form,
// with the reason, and the exit status that blocks. ev may be the partial
// event a failed Parse returned, or the zero Event.
func (a *Adapter) Failure(ev Event, what string) Reply {
	return a.impl.failure(ev, failureBody(what))
}

// Budget is how long `admit hook` may take to answer, a person's answer in
// the editor included, when the host gives the hook hostTimeout (0: the
// host's default). It leaves a tenth of the host's time, at least 2 s and
// at most 10 s, for starting the process and printing the answer, so a
// deny always arrives before the host gives up and runs the call.
func (a *Adapter) Budget(hostTimeout time.Duration) time.Duration {
	if hostTimeout <= 0 {
		hostTimeout = a.Timeout
	}
	margin := min(max(hostTimeout/10, 2*time.Second), 10*time.Second)
	if hostTimeout <= margin {
		return hostTimeout / 2
	}
	return hostTimeout - margin
}

// LateReason is the Failure text when no decision came within budget
// (typically a question to the person still open in the editor).
func (a *Adapter) LateReason(budget time.Duration) string {
	return fmt.Sprintf("no decision within %v, so the call is refused before %s's own hook timeout (%v by default), after which it would run the call unchecked", budget, a.Host, a.Timeout)
}
