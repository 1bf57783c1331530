package rpc

import (
	"context"

	"admit/gate"
)

// handleRules answers admit/rules: every rule in force and where the
// person's are kept.
func (s *Server) handleRules(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	if err := decode(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return g.Rules(), nil
}

// handleAddRule answers admit/addRule with the rules after the change.
func (s *Server) handleAddRule(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.RuleParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := g.AddRule(p); err != nil {
		return nil, err
	}
	return g.Rules(), nil
}

// handleRemoveRule answers admit/removeRule with the rules after the
// change.
func (s *Server) handleRemoveRule(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.RuleParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := g.RemoveRule(p); err != nil {
		return nil, err
	}
	return g.Rules(), nil
}

// handleSuggestRules answers admit/suggestRules from the tape.
func (s *Server) handleSuggestRules(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p struct {
		Since string `json:"since,omitempty"`
		Limit int    `json:"limit,omitempty"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	list, err := g.SuggestRules(gate.TapeParams{Since: p.Since, Limit: p.Limit})
	if err != nil {
		return nil, err
	}
	return map[string]any{"suggestions": list}, nil
}
