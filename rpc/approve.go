package rpc

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"admit/approvals"
)

// clientAsker puts questions to the person at the editor: with
// admit/approve when the client renders it, else with the standard
// window/showMessageRequest, so any LSP editor can answer.
type clientAsker struct{ s *Server }

// approveParams are the params of the admit/approve request.
type approveParams struct {
	ID        string `json:"id"`
	Session   string `json:"session"`
	Tool      string `json:"tool"`
	Summary   string `json:"summary"`
	Reason    string `json:"reason"`
	TimeoutMs int64  `json:"timeoutMs"`
}

// The actions of the showMessageRequest fallback, in the order shown.
var fallbackActions = map[string]approvals.Answer{
	"Allow once":             approvals.AllowOnce,
	"Allow for this session": approvals.AllowSession,
	"Deny":                   approvals.Deny,
}

func (a *clientAsker) Ask(ctx context.Context, q approvals.Question) (approvals.Answer, error) {
	s := a.s
	var timeoutMs int64
	if dl, ok := ctx.Deadline(); ok {
		timeoutMs = max(0, dl.Sub(s.cfg.Now()).Milliseconds())
	}
	if s.approve {
		var res struct {
			Answer string `json:"answer"`
		}
		// protocol.Call sends $/cancelRequest for the question when ctx ends.
		err := protocol.Call(ctx, s.conn, "admit/approve", approveParams{q.ID, q.Session, q.Tool, q.Summary, q.Reason, timeoutMs}, &res)
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
	var item *protocol.MessageActionItem
	err := protocol.Call(ctx, s.conn, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: msg,
		Actions: []protocol.MessageActionItem{{Title: "Allow once"}, {Title: "Allow for this session"}, {Title: "Deny"}},
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
	if ans, ok := fallbackActions[strings.TrimSpace(item.Title)]; ok {
		return ans, nil
	}
	return approvals.Deny, nil
}
