package rpc

import (
	"context"
)

// handleCheck answers admit/check. It releases the read loop first: the
// decision may wait for a person and always waits for the tape.
func (s *Server) handleCheck(ctx context.Context, g *Gate, raw []byte) (any, error) {
	var p CheckParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return g.Check(ctx, p)
}

// handleObserve answers admit/observe.
func (s *Server) handleObserve(g *Gate, raw []byte) (any, error) {
	var p ObserveParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	n, err := g.Observe(p)
	if err != nil {
		return nil, err
	}
	return map[string]int{"observed": n}, nil
}
