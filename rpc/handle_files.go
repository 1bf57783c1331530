package rpc

import (
	"context"

	"admit/gate"
)

// handleRead answers admit/read.
func (s *Server) handleRead(ctx context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.ReadParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return g.Read(ctx, p)
}

// handleEdit answers admit/edit.
func (s *Server) handleEdit(ctx context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.EditParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return g.Edit(ctx, p)
}

// handleWrite answers admit/write.
func (s *Server) handleWrite(ctx context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.WriteParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return g.Write(ctx, p)
}
