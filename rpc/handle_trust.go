package rpc

import (
	"context"

	"admit/gate"
)

// handleReviewPolicy answers admit/reviewPolicy: the policy file in force,
// the built-in policy, and what the file would widen.
func (s *Server) handleReviewPolicy(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	if err := decode(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return g.ReviewPolicy(), nil
}

// handleTrustPolicy answers admit/trustPolicy: the person trusts the
// policy file at path in the version sum that admit/reviewPolicy showed.
func (s *Server) handleTrustPolicy(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p struct {
		Path string `json:"path"`
		Sum  string `json:"sum"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := g.TrustPolicy(p.Path, p.Sum); err != nil {
		return nil, err
	}
	return s.fullState(), nil
}

// handleDistrustPolicy answers admit/distrustPolicy: the person takes the
// trust back from the policy file in force.
func (s *Server) handleDistrustPolicy(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	if err := decode(raw, &struct{}{}); err != nil {
		return nil, err
	}
	if err := g.DistrustPolicy(); err != nil {
		return nil, err
	}
	return s.fullState(), nil
}
