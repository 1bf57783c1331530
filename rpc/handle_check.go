package rpc

import (
	"context"

	"go.lsp.dev/jsonrpc2"

	"admit/gate"
)

// handleCheck answers admit/check. It starts on the read loop; the gate
// releases the loop before it waits for a person or the disk.
func (s *Server) handleCheck(ctx context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.CheckParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if p.DryRun && s.hub != nil {
		return nil, &gate.ParamError{Field: "dryRun", Msg: "only the editor's own connection may ask without deciding"}
	}
	d, err := g.Decide(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	if d.Wire != nil {
		return jsonrpc2.RawMessage(d.Wire), nil // as admit/didDecide carried it
	}
	return d.Verdict, nil
}

// handleObserve answers admit/observe.
func (s *Server) handleObserve(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.ObserveParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	n, err := g.Observe(p)
	if err != nil {
		return nil, err
	}
	return map[string]int{"observed": n}, nil
}
