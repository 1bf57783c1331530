package hook

import (
	"fmt"

	"admit/policy"
	"admit/policy/rule"
)

// Verdict is the gate's answer about one call (gate.Verdict), with what
// only the hook knows: that admit decided alone, and the line to run in
// place of the call. Its values are the gate's own (policy/rule's types),
// carried to each host's answer as they are.
type Verdict struct {
	Verdict rule.Verdict // allow or deny
	Allowed bool         // what the agent must do: true when allowed, or in warn mode
	Mode    rule.Mode
	Rule    rule.Rule
	// Outcome is the policy's answer class (allow, ask, deny); "" from a
	// server that does not say, read from Verdict and Allowed.
	Outcome   rule.Outcome
	DecidedBy rule.DecidedBy
	Reason    string
	// Question, for a call that needed a person and had nobody to ask in
	// the editor (Outcome ask, DecidedBy headless), is why it asks, as a
	// person reads it: a host with a prompt of its own asks its person
	// that, and refuses where it has none.
	Question string
	// ToolError is, on a refusal, the text the model reads.
	ToolError string
	// Alone, when set, says the gate decided without the editor's server
	// and why (no server was reachable); it is put in front of the reason.
	Alone string
	// Rewrite, when set, is the command line the host runs instead of the
	// agent's (admit run --handle H), for an allowed shell call of an
	// event the adapter CanRewrite.
	Rewrite string
}

// kind is what a decision asks of the host, weakest first.
type kind int

const (
	kindDefer kind = iota // no decision: the host's own rules apply
	kindAllow             // run it
	kindWarn              // warn mode: the gate would refuse; ask where the host can, else run it
	kindAsk               // a person must decide: the host asks, or the call is refused
	kindDeny              // refused
)

func (k kind) String() string {
	return [...]string{"no decision", "allowed", "a warning", "asked", "denied"}[k]
}

// resolved is a decision reduced to what the host is told.
type resolved struct {
	kind   kind
	reason string // what the model or the person reads
	// refusal is the refusal body for hosts that cannot ask, when kind
	// is kindAsk (the call needed a person and none could be asked).
	refusal string
	rule    string
}

// word is the pre-tool answer's word for r in the hosts that take one:
// allow, ask (a question, or warn mode's allow, which leaves the call to
// the host's own prompt) or deny. kindDefer has none: each host answers
// it with its empty reply.
func (r resolved) word() string {
	switch r.kind {
	case kindAllow:
		return "allow"
	case kindWarn, kindAsk:
		return "ask"
	}
	return "deny"
}

// resolve reduces a verdict to the host's answer. Anything it cannot read
// as allowed is refused: an unknown outcome, or one the other fields
// contradict (allowed with allowed false).
func resolve(v Verdict) resolved {
	prefix := ""
	if v.Alone != "" {
		prefix = "admit decided alone (" + v.Alone + "): "
	}
	r := resolved{rule: string(v.Rule)}
	if v.Rule == rule.CapsOff || v.Mode == rule.Off {
		return r // kindDefer
	}
	// asksHost: a person must decide and nobody could be asked in the
	// editor; the host's own person is asked that question.
	asksHost := v.Outcome == rule.OutcomeAsk && v.DecidedBy == rule.ByHeadless
	reason := v.Reason
	if asksHost && v.Question != "" {
		reason = v.Question
	}
	refusal := func() string {
		if v.ToolError != "" {
			return v.ToolError
		}
		return policy.ToolError(v.Rule, reason, "")
	}
	switch {
	case v.Outcome != "" && v.Outcome != rule.OutcomeAllow && v.Outcome != rule.OutcomeAsk && v.Outcome != rule.OutcomeDeny:
		// an outcome admit does not know: the default below refuses it
	case v.Verdict == rule.Allow && v.Allowed && !asksHost && v.Outcome != rule.OutcomeDeny:
		r.kind, r.reason = kindAllow, prefix+"admit: allowed ("+string(v.Rule)+")"
		return r
	case v.Verdict == rule.Deny && v.Allowed && v.Mode == rule.Warn:
		r.kind = kindWarn
		r.reason = prefix + "admit (warn mode) would refuse this call, rule " + string(v.Rule) + ": " + reason
		return r
	case v.Verdict == rule.Deny && !v.Allowed && asksHost:
		r.kind = kindAsk
		r.reason = prefix + "admit: a person must approve this call (rule " + string(v.Rule) + "): " + reason
		if v.ToolError != "" {
			r.refusal = prefix + v.ToolError
		} else {
			r.refusal = prefix + policy.ToolError(v.Rule, "this call needs a person's approval and nobody could be asked in the editor: "+reason, "Ask the person to open the editor with admit running, or to allow it in .admit/policy.json.")
		}
		return r
	case v.Verdict != rule.Allow && !v.Allowed:
		r.kind, r.reason = kindDeny, prefix+refusal()
		return r
	}
	r.kind = kindDeny
	r.rule = string(rule.HookFailed)
	r.reason = prefix + failureBody(fmt.Sprintf("the decision is inconsistent (outcome %q, verdict %q, allowed %v, mode %q)", v.Outcome, v.Verdict, v.Allowed, v.Mode))
	return r
}

// Strictest is the verdict that stands for several calls made by one
// tool use: the first that refuses, else the first that asks, else the
// first warning, else the first allow. A rewrite never stands for several
// calls, so it is dropped. Zero decisions are refused.
func Strictest(vs ...Verdict) Verdict {
	if len(vs) == 0 {
		return Verdict{Outcome: rule.OutcomeDeny, Rule: rule.HookFailed, ToolError: failureBody("no decision was made")}
	}
	best, bestKind := vs[0], resolve(vs[0]).kind
	for _, v := range vs[1:] {
		if k := resolve(v).kind; k > bestKind {
			best, bestKind = v, k
		}
	}
	if len(vs) > 1 {
		best.Rewrite = ""
	}
	return best
}

// failureBody is the refusal the model reads when the adapter could not
// decide: rule hook-failed, what went wrong.
func failureBody(what string) string {
	return policy.ToolError(rule.HookFailed, "admit could not decide this call, so it is refused: "+what, "")
}
