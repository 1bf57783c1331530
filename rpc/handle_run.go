package rpc

import (
	"context"
	"os"

	"admit/gate"
)

// handleRun answers admit/run: decide, run without a system shell, verify.
// It is released from the read loop at once: a run takes as long as its
// command.
func (s *Server) handleRun(ctx context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.RunParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return g.Run(ctx, p, gate.RunOptions{Env: os.Environ()})
}
