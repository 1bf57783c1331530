package rpc

import (
	"context"
	"os"
)

// handleRun answers admit/run: decide, run without a system shell, verify.
// The read loop is released first: a run takes as long as its command.
func (s *Server) handleRun(ctx context.Context, g *Gate, raw []byte) (any, error) {
	var p RunParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return g.Run(ctx, p, RunOptions{Env: os.Environ()})
}
