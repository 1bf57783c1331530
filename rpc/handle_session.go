package rpc

// handleOpenSession answers admit/openSession.
func (s *Server) handleOpenSession(g *Gate, raw []byte) (any, error) {
	var p OpenSessionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	id, err := g.OpenSession(p)
	if err != nil {
		return nil, err
	}
	return map[string]string{"session": id}, nil
}

// handleCloseSession answers admit/closeSession.
func (s *Server) handleCloseSession(g *Gate, raw []byte) (any, error) {
	var p struct {
		Session string `json:"session"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := g.CloseSession(p.Session); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// handleRevoke answers admit/revoke with the state after the grants went.
func (s *Server) handleRevoke(g *Gate, raw []byte) (any, error) {
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
	return s.fullState(g), nil
}
