package rpc

import (
	"context"
	"strconv"
	"time"

	"admit/policy/rule"
	"admit/policy/tape"
	"admit/workspace/run"
)

// handleState answers admit/state.
func (s *Server) handleState(g *Gate, raw []byte) (any, error) {
	if err := decode(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return s.fullState(g), nil
}

// fullState is the gate's state with what only the server knows: the watcher's
// health and which walls confine a run.
func (s *Server) fullState(g *Gate) State {
	st := g.State()
	if w := s.getHost().watcher; w != nil {
		ws := w.Status()
		st.Watch = &ws
	}
	st.Confinement = confinement()
	return st
}

// confinement names the kernel wall a run stands behind.
func confinement() string {
	kind, abi := run.Confinement()
	if kind == "landlock" {
		return "landlock (ABI " + strconv.Itoa(abi) + ")"
	}
	return kind
}

// handleSetMode answers admit/setMode.
func (s *Server) handleSetMode(g *Gate, raw []byte) (any, error) {
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
	return s.fullState(g), nil
}

// TapeParams filter admit/tape.
type TapeParams struct {
	Since   string `json:"since,omitempty"` // RFC 3339
	Limit   int    `json:"limit,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Session string `json:"session,omitempty"`
}

// Filter turns the params into a tape filter; a bad since names the field.
func (p TapeParams) Filter() (tape.Filter, error) {
	f := tape.Filter{Limit: p.Limit, Verdict: rule.Verdict(p.Verdict), Rule: rule.Rule(p.Rule), Tool: p.Tool, Session: p.Session}
	if p.Since != "" {
		t, err := time.Parse(time.RFC3339Nano, p.Since)
		if err != nil {
			return f, &ParamError{"since", "must be an RFC 3339 time, got " + strconv.Quote(p.Since)}
		}
		f.Since = t
	}
	if p.Limit < 0 {
		return f, &ParamError{"limit", "must not be negative"}
	}
	return f, nil
}

// handleTape answers admit/tape; reading a long tape must not hold the
// read loop.
func (s *Server) handleTape(ctx context.Context, g *Gate, raw []byte) (any, error) {
	var p TapeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	f, err := p.Filter()
	if err != nil {
		return nil, err
	}
	if g.cfg.Tape == nil {
		return map[string]any{"records": []tape.Record{}}, nil
	}
	recs, err := tape.Query(g.cfg.Tape.Path(), f)
	if err != nil {
		return nil, err
	}
	if recs == nil {
		recs = []tape.Record{}
	}
	return map[string]any{"records": recs}, nil
}
