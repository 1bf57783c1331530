package hook

import (
	"encoding/json"

	"admit/policy"
	"admit/policy/rule"
)

// Decision is the gate's verdict as an adapter needs it. Its fields carry
// the wire's strings (the values of rule.Verdict, rule.Mode and rule.Rule),
// as the verdict the adapter read holds them.
type Decision struct {
	Verdict   string // "allow" or "deny"
	Allowed   bool   // what the agent must do: true when allowed, or in warn mode
	Mode      string // "off", "warn" or "enforce"
	Rule      string
	Reason    string
	ToolError string // on a refusal: the text the model reads
	// Alone, when set, says the gate decided without the editor's server
	// and why (no server was reachable); it is put in front of the reason.
	Alone string
}

// Permission is the hook's answer: what the agent does with the call.
type Permission string

const (
	Allow Permission = "allow"
	Deny  Permission = "deny"
	Ask   Permission = "ask" // the agent's own prompt asks its user
	Defer Permission = ""    // no decision: the agent's own permission rules apply
)

// Permit reduces a decision to the hook's answer and the reason the agent
// shows. An allow is allow. A refusal in enforce mode is a final deny
// carrying the refusal body, which the model reads. A refusal in warn mode
// (allowed, but the gate would refuse) asks the person through the agent's
// own prompt, with the reason. With the gate off, admit decides nothing and
// the agent's own rules apply.
func Permit(d Decision) (Permission, string) {
	prefix := ""
	if d.Alone != "" {
		prefix = "admit decided alone (" + d.Alone + "): "
	}
	switch {
	case rule.Rule(d.Rule) == rule.CapsOff || rule.Mode(d.Mode) == rule.Off:
		return Defer, ""
	case rule.Verdict(d.Verdict) == rule.Allow && d.Allowed:
		return Allow, prefix + "admit: allowed (" + d.Rule + ")"
	case d.Allowed:
		return Ask, prefix + "admit (warn mode) would refuse this call, rule " + d.Rule + ": " + d.Reason
	default:
		body := d.ToolError
		if body == "" {
			body = policy.ToolError(rule.Rule(d.Rule), d.Reason, "")
		}
		return Deny, prefix + body
	}
}

// Answer is the JSON line the agent reads on stdout (the exit status is
// always 0, so the agent parses it).
func Answer(agent string, d Decision) []byte {
	perm, reason := Permit(d)
	return format(agent, perm, reason)
}

// Failure is the answer when the adapter itself cannot decide (bad event,
// unreachable or failing gate, timeout): a deny, with what went wrong.
func Failure(agent, what string) []byte {
	body := policy.ToolError(rule.HookFailed, "admit could not decide this call, so it is refused: "+what, "")
	return format(agent, Deny, body)
}

// claudeOutput is Claude Code's PreToolUse answer.
type claudeOutput struct {
	HookSpecificOutput *claudeSpecific `json:"hookSpecificOutput,omitempty"`
}

type claudeSpecific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// geminiOutput is Gemini CLI's BeforeTool answer.
type geminiOutput struct {
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func format(agent string, perm Permission, reason string) []byte {
	var v any
	switch agent {
	case GeminiCLI:
		v = geminiOutput{Decision: string(perm), Reason: reason}
	default:
		// Claude Code's shape is also the answer to an unknown agent: the
		// caller refuses unknown agents before asking, and a deny in the
		// most common shape is the safest thing to print.
		o := claudeOutput{}
		if perm != Defer {
			o.HookSpecificOutput = &claudeSpecific{HookEventName: "PreToolUse", PermissionDecision: string(perm), PermissionDecisionReason: reason}
		}
		v = o
	}
	b, _ := json.Marshal(v)
	return append(b, '\n')
}
