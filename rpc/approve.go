package rpc

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"admit/approvals"
	"admit/gate"
	"admit/policy/rules"
)

// clientAsker puts questions to the person at the editor: with
// admit/approve when the client renders it, else with the standard
// window/showMessageRequest, so any LSP editor can answer.
type clientAsker struct {
	s       *Server
	approve bool // the client renders admit/approve; else window/showMessageRequest
}

// approveParams are the params of the admit/approve request.
type approveParams struct {
	ID          string       `json:"id"`
	Session     string       `json:"session"`
	Tool        string       `json:"tool"`
	Summary     string       `json:"summary"`
	Reason      string       `json:"reason"`
	TimeoutMs   int64        `json:"timeoutMs"`
	Agent       string       `json:"agent,omitempty"`
	Command     string       `json:"command,omitempty"`
	Cwd         string       `json:"cwd,omitempty"`
	Targets     []string     `json:"targets,omitempty"`
	Confinement string       `json:"confinement,omitempty"`
	Rule        *offeredRule `json:"rule,omitempty"`
	// NoRule says why "always allow" is not offered, when it is not.
	NoRule string `json:"noRule,omitempty"`
	// What is approved, shown: a write's content, an edit's diff, what
	// the protected file can do, a structured call's arguments.
	Content  string `json:"content,omitempty"`
	Diff     string `json:"diff,omitempty"`
	Protects string `json:"protects,omitempty"`
	// Proposed is the whole file as the call leaves it, for the
	// editor's diff view of proposedFor against the file on disk.
	Proposed    string            `json:"proposed,omitempty"`
	ProposedFor string            `json:"proposedFor,omitempty"`
	Fields      []approvals.Field `json:"fields,omitempty"`
}

// offeredRule is the rule an "always allow" answer writes.
type offeredRule struct {
	Match    string         `json:"match"`
	Decision string         `json:"decision"`
	Scope    string         `json:"scope"`
	Effects  *rules.Effects `json:"effects,omitempty"`
	Covers   string         `json:"covers,omitempty"`
}

// fallbackActions are the buttons of the showMessageRequest fallback, in
// the order shown, with the answer each gives.
var fallbackActions = []struct {
	title  string
	answer approvals.Answer
}{
	{"Allow once", approvals.AllowOnce},
	{"Allow for this session", approvals.AllowSession},
	{"Deny", approvals.Deny},
}

func (a *clientAsker) Ask(ctx context.Context, q approvals.Question) (approvals.Answer, error) {
	s := a.s
	var timeoutMs int64
	if dl, ok := ctx.Deadline(); ok {
		timeoutMs = max(0, dl.Sub(s.cfg.Now()).Milliseconds())
	}
	if a.approve {
		var res struct {
			Answer string `json:"answer"`
		}
		// protocol.Call sends $/cancelRequest for the question when ctx ends.
		p := approveParams{ID: q.ID, Session: q.Session, Tool: q.Tool, Summary: q.Summary, Reason: q.Reason, TimeoutMs: timeoutMs,
			Agent: q.Agent, Command: q.Command, Cwd: q.Cwd, Targets: q.Targets, Confinement: q.Confinement,
			NoRule: q.NoRule, Content: q.Content, Diff: q.Diff, Protects: q.Protects, Proposed: q.Proposed, ProposedFor: q.ProposedFor, Fields: q.Fields}
		if q.Rule != "" {
			p.Rule = &offeredRule{Match: q.Rule, Decision: "allow", Scope: gate.ScopeWorkspace, Effects: q.RuleEffects, Covers: q.RuleCovers}
		}
		err := protocol.Call(ctx, s.conn, "admit/approve", p, &res)
		if ctx.Err() != nil {
			// The question no longer stands: let the client take it down.
			_ = s.conn.Notify(context.WithoutCancel(ctx), "admit/approvalCancelled", map[string]string{"id": q.ID})
			return "", ctx.Err()
		}
		if err != nil {
			return "", fmt.Errorf("admit/approve: %w", err)
		}
		return approvals.ParseAnswer(res.Answer)
	}
	msg := fmt.Sprintf("admit: %s wants to run: %s. %s", q.Tool, q.Summary, q.Reason)
	actions := make([]protocol.MessageActionItem, len(fallbackActions))
	for i, f := range fallbackActions {
		actions[i].Title = f.title
	}
	var item *protocol.MessageActionItem
	err := protocol.Call(ctx, s.conn, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: msg, Actions: actions,
	}, &item)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		return "", fmt.Errorf("window/showMessageRequest: %w", err)
	}
	if item == nil {
		return approvals.Deny, nil // dismissed
	}
	for _, f := range fallbackActions {
		if f.title == strings.TrimSpace(item.Title) {
			return f.answer, nil
		}
	}
	return approvals.Deny, nil
}
