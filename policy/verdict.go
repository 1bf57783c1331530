package policy

import (
	"encoding/json"
	"slices"
	"strings"

	"admit/policy/command"
	"admit/policy/rule"
	"admit/policy/rules"
)

// Decision is what Decide concludes about one call.
type Decision struct {
	Allowed bool      // admitted without a person
	Ask     bool      // admitted only if a person approves; Rule and Reason say why
	Rule    rule.Rule // rule.Allowed, or the rule that refused or asks
	Reason  string    // written so a model can act on it
	Kind    string    // "read" or "write"
	Hint    string    // what would be allowed instead, where the policy can tell
	// ArgsJSON: the call's args were read as one JSON object (or none), so
	// they are valid JSON as they stand.
	ArgsJSON bool

	Reads, Writes, Listed []string // resolved paths the call reads, writes, lists
	// Seen are the resolutions of those of Reads the policy resolved
	// itself (a file tool's own paths), as they were seen: what the gate
	// records of each read without a second stat.
	Seen    []command.Resolved
	Summary string     // one line a person can read: the command, or the tool and its paths
	Grant   string     // what an allow-session answer grants: same tool and args, or same program, subcommand and options
	Argv    [][]string // each simple command, as judged (the call's argv for an argv call); nil for one in Rejudged, then the commands of its substitutions
	// Rejudged are the commands of the line with a command substitution
	// among their words (wc -l $(git ls-files)): only their shape was
	// judged. A run judges each again as a plain argv once its words are
	// known, and starts it only if that allows it. Set only with
	// Call.AdmitRuns.
	Rejudged []Shape
	// ShellOnly names what in the line only a shell runs as judged (a
	// loop, a background job, sh -c, a here-document's text as a word):
	// admit's own runner does not run it, so the host's shell must
	// (command.Decision.ShellOnly).
	ShellOnly []string
	// Intents are what the command's admitted writes are meant to do, in
	// the command policy's reading; a run's readback checks them.
	Intents []command.Intent
	// Asks, Answerable, AllowedBy and RunsCode are the command policy's
	// (command.Decision): the commands a person's allow rule would answer,
	// whether those are the line's only questions, the allow rules that
	// answered, and the commands that run code a run confines.
	Asks       [][]string
	AskEffects []rules.Effects // each of Asks' kinds of effect
	Answerable bool
	AllowedBy  []string
	RunsCode   [][]string
	// Hidden are secret files a walk would read (resolved, absolute;
	// command.Decision.Hidden), hidden from the run admit makes of the
	// line: empty read-only files in their place. The line is allowed on
	// that condition, so only admit's own run may carry it out
	// (workspace/run Spec.Hidden).
	Hidden []string `json:"hidden,omitempty"`
	// Background: the command runs in the background and goes on after
	// the call returns; BackgroundWrites are the paths it may change
	// meanwhile, which the session holds as in flux.
	Background       bool
	BackgroundWrites []string
	// FinalCwd is the folder a command line leaves the shell in, when
	// FinalCwdKnown (command.Decision.FinalCwd).
	FinalCwd      string
	FinalCwdKnown bool
}

// Shape is a command whose words are partly known before it runs: Cmd
// its place in the line, Argv as written, and Substituted the indexes of the words of Argv that are
// a command substitution, which the shell replaces with any number of
// words (none, one, or one per name printed).
type Shape struct {
	Cmd         int // its index among the line's commands (Intent.Cmd)
	Argv        []string
	Substituted []int
}

// Fits reports whether argv, a command about to run, is what s becomes:
// every other word as written, in order, each substituted word replaced
// by any number of words.
func (s Shape) Fits(argv []string) bool {
	// fit[j]: argv[j:] is what the words of s from the one in hand on
	// become. Filled from the last word of s back to the first.
	fit := make([]bool, len(argv)+1)
	fit[len(argv)] = true
	next := make([]bool, len(argv)+1)
	for i := len(s.Argv) - 1; i >= 0; i-- {
		subst := slices.Contains(s.Substituted, i)
		for j := len(argv); j >= 0; j-- {
			switch {
			case subst:
				next[j] = fit[j] || j < len(argv) && next[j+1]
			default:
				next[j] = j < len(argv) && argv[j] == s.Argv[i] && fit[j+1]
			}
		}
		fit, next = next, fit
	}
	return fit[0]
}

// Outcome is the decision's class: allow when admitted without a person,
// ask when a person must approve, deny when a rule refused it. The class
// comes from the decision, not the rule: protected-path refuses a write
// under .admit/ and asks for one under .git/.
func (d *Decision) Outcome() rule.Outcome {
	switch {
	case d.Allowed:
		return rule.OutcomeAllow
	case d.Ask:
		return rule.OutcomeAsk
	}
	return rule.OutcomeDeny
}

// Targets lists every path the call touches, writes first.
func (d *Decision) Targets() []string {
	out := make([]string, 0, len(d.Writes)+len(d.Reads)+len(d.Listed))
	out = append(out, d.Writes...)
	out = append(out, d.Reads...)
	for _, l := range d.Listed {
		if !contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// ToolError is the JSON text handed back to the model in place of the tool's
// result when a call is refused. It says plainly that nothing ran and that
// the same call will be refused again, because a model told only "denied"
// retries, and a retry loop burns the turn budget the task needs.
func ToolError(r rule.Rule, reason, hint string) string {
	h := "This is not a transient failure: retrying the same call will be refused again. Use a tool or command you do have, or say plainly that the task needs a capability you were not given."
	if hint = strings.TrimSpace(hint); hint != "" {
		if !strings.HasSuffix(hint, ".") {
			hint += "."
		}
		h = hint + " " + h
	}
	b, _ := json.Marshal(struct {
		Error  string    `json:"error"`
		Rule   rule.Rule `json:"rule"`
		Reason string    `json:"reason"`
		Hint   string    `json:"hint"`
	}{"REFUSED by admit; NOTHING was executed", r, reason, h})
	return string(b)
}
