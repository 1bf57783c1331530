package rpc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"

	"admit/gate"
	"admit/hook/connect"
)

// AgentsResult is admit/agents' answer: the binary the proposed changes
// point at (and why it cannot be, if it cannot), and each host's status.
type AgentsResult struct {
	Binary        string           `json:"binary"`
	BinaryProblem string           `json:"binaryProblem,omitempty"`
	Agents        []connect.Status `json:"agents"`
}

// handleAgents answers admit/agents: which agents are installed for this
// user, whether admit is connected to each, and the change connecting
// would make.
func (s *Server) handleAgents(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	var p struct {
		Binary string `json:"binary,omitempty"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	o, err := s.connectOptions(g, p.Binary)
	if err != nil {
		return nil, err
	}
	r := AgentsResult{Binary: o.Binary, Agents: connect.Survey(connect.OS{}, o)}
	if err := connect.CheckBinary(connect.OS{}, o.Binary, o.Home, o.Place); err != nil {
		r.BinaryProblem = err.Error()
	}
	return r, nil
}

// agentParams are admit/connectAgent's and admit/disconnectAgent's.
type agentParams struct {
	Host   string `json:"host"`
	Binary string `json:"binary,omitempty"`
	// Sum is the Sum of the change the person was shown (the status's
	// change, or undo): when the change to make now differs, nothing is
	// written.
	Sum string `json:"sum,omitempty"`
}

// handleConnectAgent answers admit/connectAgent: it writes the change
// admit/agents showed for the host, once the person said yes.
func (s *Server) handleConnectAgent(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	return s.changeAgent(g, raw, connect.Connect)
}

// handleDisconnectAgent answers admit/disconnectAgent: admit's entries
// come out of the host's configuration.
func (s *Server) handleDisconnectAgent(_ context.Context, g *gate.Gate, raw []byte) (any, error) {
	return s.changeAgent(g, raw, connect.Disconnect)
}

func (s *Server) changeAgent(g *gate.Gate, raw []byte, do func(connect.System, connect.Writer, connect.Options, *connect.Host, string) (connect.Result, error)) (any, error) {
	var p agentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	h, ok := connect.Lookup(p.Host)
	if !ok {
		return nil, &gate.ParamError{Field: "host", Msg: fmt.Sprintf("unknown agent %q (see admit/agents)", p.Host)}
	}
	o, err := s.connectOptions(g, p.Binary)
	if err != nil {
		return nil, err
	}
	r, err := do(connect.OS{}, connect.OS{}, o, h, p.Sum)
	var be *connect.BinaryError
	switch {
	case err == nil:
		return r, nil
	case errors.As(err, &be):
		return nil, &gate.ParamError{Field: "binary", Msg: be.Reason + " (" + be.Path + ")"}
	case errors.Is(err, connect.ErrChanged):
		return nil, &gate.ParamError{Field: "sum", Msg: "the configuration changed since the change was shown: show it again (admit/agents)"}
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
}

// connectOptions are the person's home (the server's), the binary to
// point at (the server's own when none is named) and the places it must
// not be: the workspace folders.
func (s *Server) connectOptions(g *gate.Gate, binary string) (connect.Options, error) {
	if s.cfg.Home == "" || !filepath.IsAbs(s.cfg.Home) {
		return connect.Options{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server knows no home folder, so it cannot find the agents' configurations")
	}
	if binary == "" {
		self, err := os.Executable()
		if err == nil {
			self, err = filepath.EvalSymlinks(self)
		}
		if err != nil {
			return connect.Options{}, &gate.ParamError{Field: "binary", Msg: "not given, and the server's own path is unknown: " + err.Error()}
		}
		binary = self
	}
	var roots []string
	if g != nil && g.Roots() != nil {
		roots = g.Roots().List()
	}
	return connect.Options{Home: s.cfg.Home, Binary: binary, Place: connect.Place{Workspaces: roots}}, nil
}
