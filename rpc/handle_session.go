package rpc

import (
	"context"

	"admit/gate"
)

// handleOpenSession answers admit/openSession.
func (s *Server) handleOpenSession(ctx context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.OpenSessionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	id, err := g.OpenSession(ctx, p)
	if err != nil {
		return nil, err
	}
	return map[string]string{"session": id}, nil
}

// handleCloseSession answers admit/closeSession.
func (s *Server) handleCloseSession(ctx context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p struct {
		Session string `json:"session"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := g.CloseSession(ctx, p.Session); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// handleRevoke answers admit/revoke with the state after the grants went.
func (s *Server) handleRevoke(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p struct {
		Session string `json:"session"`
		Grant   string `json:"grant,omitempty"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if _, err := g.Revoke(p.Session, p.Grant); err != nil {
		return nil, err
	}
	return s.fullState(), nil
}
