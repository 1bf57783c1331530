package hook

import (
	"fmt"

	"admit/policy"
	"admit/policy/rule"
)

// Outcome is what the gate decided for a call: the three outcomes of the
// design, in the field of the verdict that carries them.
type Outcome string

const (
	// Allowed: the call runs, by a rule or because a person approved it.
	Allowed Outcome = "allowed"
	// Asked: a person must decide, and none has. A host with its own
	// prompt (Claude Code, Gemini CLI, Copilot, Cursor) asks its user; a
	// host without one (Codex's PreToolUse, Windsurf, Kiro, Cline) can
	// only refuse, so the command asks in the editor before it answers
	// and passes Asked only when nobody could be asked.
	Asked Outcome = "asked"
	// Denied: the call is refused.
	Denied Outcome = "denied"
)

// Decision is the gate's verdict as an adapter needs it. Its fields carry
// the wire's strings (the values of rule.Verdict, rule.Mode and rule.Rule),
// as the verdict the adapter read holds them.
type Decision struct {
	// Outcome is allowed, asked or denied. Empty: taken from Verdict and
	// Allowed (allow and allowed is Allowed, anything else Denied), as
	// before the gate said its outcome itself.
	Outcome Outcome
	Verdict string // "allow" or "deny"
	Allowed bool   // what the agent must do: true when allowed, or in warn mode
	Mode    string // "off", "warn" or "enforce"
	Rule    string
	Reason  string
	// ToolError is, on a refusal, the text the model reads.
	ToolError string
	// DecidedBy is who decided ("rule", "person", "grant", "timeout", ...).
	DecidedBy string
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

// resolve reduces a decision to the host's answer. Anything it cannot
// read as allowed is refused: an unknown outcome, or one the other fields
// contradict (allowed with allowed false).
func resolve(d Decision) resolved {
	prefix := ""
	if d.Alone != "" {
		prefix = "admit decided alone (" + d.Alone + "): "
	}
	r := resolved{rule: d.Rule}
	refusal := func() string {
		if d.ToolError != "" {
			return d.ToolError
		}
		return policy.ToolError(rule.Rule(d.Rule), d.Reason, "")
	}
	if rule.Rule(d.Rule) == rule.CapsOff || rule.Mode(d.Mode) == rule.Off {
		return r // kindDefer
	}
	outcome := d.Outcome
	if outcome == "" {
		if rule.Verdict(d.Verdict) == rule.Allow && d.Allowed {
			outcome = Allowed
		} else {
			outcome = Denied
		}
	}
	switch {
	case outcome == Allowed && d.Allowed && rule.Verdict(d.Verdict) != rule.Deny:
		r.kind, r.reason = kindAllow, prefix+"admit: allowed ("+d.Rule+")"
	case (outcome == Denied || outcome == Asked) && d.Allowed && rule.Mode(d.Mode) == rule.Warn:
		r.kind = kindWarn
		r.reason = prefix + "admit (warn mode) would refuse this call, rule " + d.Rule + ": " + d.Reason
	case outcome == Asked && !d.Allowed:
		r.kind = kindAsk
		r.reason = prefix + "admit: a person must approve this call (rule " + d.Rule + "): " + d.Reason
		if d.ToolError != "" {
			r.refusal = prefix + d.ToolError
		} else {
			r.refusal = prefix + policy.ToolError(rule.Rule(d.Rule), "this call needs a person's approval and nobody could be asked in the editor: "+d.Reason, "Ask the person to open the editor with admit running, or to allow it in .admit/policy.json.")
		}
	case outcome == Denied && !d.Allowed:
		r.kind, r.reason = kindDeny, prefix+refusal()
	default:
		r.kind = kindDeny
		r.rule = string(rule.HookFailed)
		r.reason = prefix + failureBody(fmt.Sprintf("the decision is inconsistent (outcome %q, verdict %q, allowed %v, mode %q)", d.Outcome, d.Verdict, d.Allowed, d.Mode))
	}
	return r
}

// Strictest is the decision that stands for several calls made by one
// tool use: the first that refuses, else the first that asks, else the
// first warning, else the first allow. A rewrite never stands for several
// calls, so it is dropped. Zero decisions are refused.
func Strictest(ds ...Decision) Decision {
	if len(ds) == 0 {
		return Decision{Outcome: Denied, Rule: string(rule.HookFailed), ToolError: failureBody("no decision was made")}
	}
	best, bestKind := ds[0], resolve(ds[0]).kind
	for _, d := range ds[1:] {
		if k := resolve(d).kind; k > bestKind {
			best, bestKind = d, k
		}
	}
	if len(ds) > 1 {
		best.Rewrite = ""
	}
	return best
}

// failureBody is the refusal the model reads when the adapter could not
// decide: rule hook-failed, what went wrong.
func failureBody(what string) string {
	return policy.ToolError(rule.HookFailed, "admit could not decide this call, so it is refused: "+what, "")
}
