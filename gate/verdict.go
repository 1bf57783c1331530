package gate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"admit/policy/rule"

	"admit/policy"
	"admit/tape"
)

// Verdict is the door's answer to one call, as docs/protocol.md has it.
type Verdict struct {
	ID        string         `json:"id"`
	Verdict   rule.Verdict   `json:"verdict"` // allow or deny
	Allowed   bool           `json:"allowed"` // what the agent must do: true when allowed, or when the mode is not enforce
	Mode      rule.Mode      `json:"mode"`
	Rule      rule.Rule      `json:"rule"`
	Reason    string         `json:"reason"`
	Kind      string         `json:"kind,omitempty"`
	Targets   []string       `json:"targets,omitempty"`
	ToolError string         `json:"toolError,omitempty"`
	DecidedBy rule.DecidedBy `json:"decidedBy,omitempty"`
	Session   string         `json:"session,omitempty"`
	Agent     string         `json:"agent,omitempty"` // the agent the call's context names
	Tool      string         `json:"tool,omitempty"`
	Summary   string         `json:"summary,omitempty"`
	// PolicyTrust is the trust of the workspace policy file that took
	// part in the decision (policy.Trust), or "" for the built-in policy.
	PolicyTrust string `json:"policyTrust,omitempty"`
	// Outcome is the policy's answer class: allow (by rule), ask (a person
	// decided, or would have: DecidedBy says who), deny (refused by a rule,
	// never put to a person). Verdict is the final answer.
	Outcome rule.Outcome `json:"outcome,omitempty"`
	// Remedy is what the agent or the person can do instead, on a
	// refusal: the decision's own hint, else the rule's (rule.Remedy).
	Remedy string `json:"remedy,omitempty"`
	// Handle is the single-use handle the call was answered with, when
	// one was asked and the call is allowed: the host runs
	// `admit run --handle HANDLE` in place of the line.
	Handle string `json:"handle,omitempty"`
	// Question, for a call that needed a person and had nobody to ask, is
	// why it asks, as a person reads it: Reason adds that nobody could be
	// asked. A host with a prompt of its own puts Question to its person.
	Question string `json:"question,omitempty"`
	// WouldAsk, on a dry run, says the call would be put to the person now
	// (no grant of the session answers it).
	WouldAsk bool `json:"wouldAsk,omitzero"`
}

// CheckParams is one call put to the door.
type CheckParams struct {
	Session string          `json:"session,omitempty"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Command string          `json:"command,omitempty"`
	Argv    []string        `json:"argv,omitempty"` // a command as literal words, judged without a shell
	Cwd     string          `json:"cwd,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`
	// Shell is the profile of the shell that will run the line, when the
	// caller knows it (an interactive terminal: bash-interactive, zsh,
	// fish). It counts only where the gate judges as bash -c (analyze):
	// each of those profiles refuses more than analyze does, never less.
	Shell string `json:"shell,omitempty"`
	// HostShell, with Handle, is the profile of the shell the host runs
	// the line in when admit does not run it (the host asks its own
	// person, then runs the line; no handle could be given): such a line
	// is refused when that shell would read it otherwise than judged. An
	// allowed line with its handle is judged as admit runs it.
	HostShell string `json:"hostShell,omitempty"`
	// HostMayIgnore, with Handle: the host may run the line as it is even
	// when answered with a handle (Codex's releases before allow took
	// updatedInput; VS Code's Local harness drops an input its schema
	// refuses). The handle is still given, but nothing is admitted only
	// because admit's runner would run it (code confined, words judged
	// again once known).
	HostMayIgnore bool `json:"hostMayIgnore,omitempty"`
	// DryRun decides without acting on the decision: nobody is asked,
	// nothing is taped, counted, spent or observed (the editor's tools use
	// it to know, before they show their own confirmation, whether a call
	// would be put to the person). The editor's connection only.
	DryRun bool `json:"dryRun,omitempty"`
	// Handle asks, for a shell call that is allowed, a single-use handle
	// that admit run redeems to run the judged line itself (a hook whose
	// host rewrites the call asks it; see handle.go).
	Handle bool `json:"handle,omitempty"`
	// Env is the environment the command will run with, as far as the
	// judgment depends on it: the PATH its program names are looked up
	// on. A hook passes its host's (the agent's) environment.
	Env *CallEnv `json:"env,omitempty"`
	// Background says the host runs the command in the background: the
	// call returns while it runs. The paths it may write are then in flux
	// for the session (flux.go) for TimeoutMs, or until Ended.
	Background bool `json:"background,omitempty"`
	// TimeoutMs is how long the host lets the command run; for a
	// background command, how long its paths stay in flux (default
	// DefaultBackgroundTimeout, at most a day).
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// Terminal names the terminal the line is typed into, which keeps
	// its folder between lines (VS Code's run_in_terminal): the line is
	// judged in the folder the gate tracked for it (terminal.go), and a
	// cd whose effect the policy cannot follow is refused. Any string the
	// host keeps for the terminal's life.
	Terminal string `json:"terminal,omitempty"`
	// StayInFolder: the line is typed into a shell the host may keep
	// from call to call, and may or may not put back in the call's folder
	// before the next line (Cline's VS Code terminals; Windsurf's and
	// Kiro's shells, which they do not document): as in a terminal, a cd
	// whose effect is not certain is refused, and so is a line that may
	// leave the shell in another folder than the call's, so that the
	// shell is always where the next call says.
	StayInFolder bool `json:"stayInFolder,omitempty"`
	// heldBy names the background hold (the verdict id) the call is the
	// run of, which its own judgment does not count as in flux: a
	// rewritten background call redeemed by admit run.
	heldBy string
	// approved is the question (the rule that asked) a person answered
	// yes to for the call whose handle this run redeems (Handle.Approved).
	approved rule.Rule
}

// CallEnv is the part of a command's environment the gate reads. Every
// field is optional; an unknown one is an error, so a misspelt PATH is
// never taken as no PATH.
type CallEnv struct {
	// PATH is the value of the variable, folders separated by ":" (an
	// empty one is the working folder). Given, every program name of the
	// line is resolved on it, and one that resolves inside the workspace
	// (or to nothing) is asked as a workspace program; absent, names are
	// the policy table's programs.
	PATH *string `json:"PATH,omitempty"`
	// SecretValues name the variables whose values are credentials by
	// their shape (command.SecretValueNames of the environment): printed
	// or sent, each is refused as a secret (secret-env). The caller names
	// them; no value crosses, nor is taped.
	SecretValues []string `json:"secretValues,omitempty"`
}

// secretValues are the names the call gives (each checked to be a
// variable's name) with those of the gate's own environment
// (Options.SecretValues), which the editor's terminals and a hook's host
// run with: the union, so neither can take a name away.
func (p *CheckParams) secretValues(own []string) ([]string, error) {
	if p.Env == nil || len(p.Env.SecretValues) == 0 {
		return own, nil
	}
	for _, n := range p.Env.SecretValues {
		if !envName(n) {
			return nil, &ParamError{"env.secretValues", fmt.Sprintf("%q is not a variable's name (letters, digits and _, not starting with a digit)", n)}
		}
	}
	out := append(slices.Clone(own), p.Env.SecretValues...)
	slices.Sort(out)
	return slices.Compact(out), nil
}

// envName reports whether s is a shell variable's name.
func envName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// pathList is the PATH of the call's environment split into folders, or
// nil when the call gives none.
func (p *CheckParams) pathList() []string {
	if p.Env == nil || p.Env.PATH == nil {
		return nil
	}
	return strings.Split(*p.Env.PATH, ":")
}

// ParamError is a call the gate cannot take as given: a field that is
// missing, malformed or out of range. The server answers it with -32602,
// the command line with a usage error.
type ParamError struct{ Field, Msg string }

func (e *ParamError) Error() string {
	if e.Field == "" {
		return e.Msg // the message names the field itself
	}
	return e.Field + ": " + e.Msg
}

// Decided is a verdict with what the gate learnt deciding it, for the
// tools that act on an admitted call (run, read, edit, write).
type Decided struct {
	Verdict  Verdict
	Decision policy.Decision
	// Wire is the Verdict as the notifier put it on the wire, or nil: the
	// server replies with the same bytes.
	Wire    []byte
	session *session
	cwd     string
	roots   []string
	record  *tape.Record // &rec once taped, else nil
	rec     tape.Record
}
