package rpc

import (
	"context"

	"admit/gate"
)

// handleReplay answers admit/replay: what the workspace's policy file, or
// a suggested rule, would change in the calls on the tape, before the
// person trusts or takes it.
func (s *Server) handleReplay(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.ReplayParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return g.ReplayTape(p)
}
