package rpc

import (
	"context"

	"admit/gate"
	"admit/workspace/run"
)

// handleState answers admit/state.
func (s *Server) handleState(_ context.Context, _ *gate.Gate, raw []byte) (any, error) {
	if err := decode(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return s.fullState(), nil
}

// fullState is the gate's state with what only the server knows: the
// watcher's health, the socket, and which walls confine a run.
func (s *Server) fullState() gate.State {
	h := s.getHost()
	st := h.gate.State()
	if h.watcher != nil {
		ws := h.watcher.Status()
		st.Watch = &ws
	}
	if h.listener != nil {
		st.Socket = h.listener.path
	}
	m := run.Probe()
	st.Walls = &m
	st.Confinement = confinement(m)
	return st
}

// confinement names the walls a run stands behind, in a few words.
func confinement(m run.Machine) string { return m.Summary() }

// handleSetMode answers admit/setMode.
func (s *Server) handleSetMode(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p struct {
		Mode    string `json:"mode,omitempty"`
		Effects string `json:"effects,omitempty"`
		Shell   string `json:"shell,omitempty"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := g.SetMode(p.Mode, p.Effects, p.Shell); err != nil {
		return nil, err
	}
	return s.fullState(), nil
}

// handleTape answers admit/tape; reading a long tape must not hold the
// read loop.
func (s *Server) handleTape(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p gate.TapeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	recs, err := g.Tape(p)
	if err != nil {
		return nil, err
	}
	return map[string]any{"records": recs}, nil
}
