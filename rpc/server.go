package rpc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"admit/approvals"
	"admit/gate"
	"admit/internal/strictjson"
	"admit/managed"
	"admit/policy"
	"admit/workspace"
)

// Version is the server's version, reported in serverInfo.
const Version = "0.1.0"

// closeGrace bounds how long exit waits for replies still being written.
const closeGrace = time.Second

// ServerConfig holds what a server is started with, before the client says
// anything.
type ServerConfig struct {
	Logger *slog.Logger
	Now    func() time.Time
	Home   string
	// Shell is the person's shell ($SHELL), which the editor's terminals
	// run (gate.Options.PersonShell).
	Shell string
	// SecretValues name the variables of the editor's environment, which
	// its terminals inherit, whose values are credentials
	// (gate.Options.SecretValues).
	SecretValues []string
	Bounds       policy.Bounds
	// WatchOptions are handed to the watcher (tests lower its limits).
	WatchOptions workspace.WatchOptions
	// Listen is the unix socket other local agents reach the same gate
	// through: "" for the default per-workspace path, "none" for no socket.
	Listen string
	// TrustDir holds the person's trust records of policy files; "" is
	// gate.DefaultTrustDir.
	TrustDir string
	// RulesDir holds the person's rules; "" is gate.DefaultRulesDir.
	RulesDir string
	// Export is the person's export of decisions (their settings file);
	// the managed layer's wins over it.
	Export *managed.Export
}

// Server is one connection's server. It holds no global state: every
// connection gets its own value.
type Server struct {
	protocol.UnimplementedServer
	cfg  ServerConfig
	conn jsonrpc2.Conn
	out  *outbox // conn writes through it; notifications wait in it for a reply
	log  *slog.Logger

	initialized atomic.Bool
	shutdown    atomic.Bool
	exited      chan struct{}
	exitOnce    sync.Once
	hub         *hub // nil for the editor's connection, which builds the host
	calls       calls

	// mu guards the fields below.
	mu     sync.Mutex
	host   *host
	closed bool
}

// host is what every connection to one server shares: the gate and what
// feeds it. The editor's connection builds it at initialize; the agents
// that reach the server through its socket join it.
type host struct {
	gate     *gate.Gate
	watcher  *workspace.Watcher
	broker   *approvals.Broker
	state    *stateNotifier
	listener *listener // nil: no socket
}

// hub hands the editor's host to socket connections.
type hub struct {
	mu sync.Mutex
	h  *host
}

func (h *hub) get() *host {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h
}

// Serve runs a server on rwc until the client sends exit or the stream
// ends. It returns the process exit code LSP prescribes: 0 after shutdown,
// 1 without.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, cfg ServerConfig) int {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, log: cfg.Logger, exited: make(chan struct{})}
	return s.serve(ctx, rwc)
}

// serve runs one connection. When the peer goes away every request still
// running sees its context cancelled, so a pending approval is refused at
// once rather than at its deadline.
func (s *Server) serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	ctx, lost := context.WithCancel(ctx)
	defer lost()
	s.out = newOutbox(rwc)
	defer s.out.close()
	wire := struct {
		io.Reader
		io.Writer
		io.Closer
	}{&lossWatch{Reader: rwc, lost: lost}, s.out, rwc}
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(wire), jsonrpc2.WithCodec(codec{}))
	dispatch := protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler)
	s.conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		return s.handle(ctx, req, dispatch)
	})
	select {
	case <-s.conn.Done():
	case <-s.exited:
	}
	lost()
	s.close()
	// Close waits for the read loop, and a read blocked on a stdin pipe is
	// not interrupted by closing it: give the connection a moment to drain,
	// then let the process exit with the code LSP prescribes.
	go func() { _ = s.conn.Close() }()
	select {
	case <-s.conn.Done():
	case <-time.After(closeGrace):
	}
	if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		s.log.Debug("connection ended", "err", err)
	}
	if s.shutdown.Load() {
		return 0
	}
	return 1
}

// handle enforces the lifecycle before any method runs: nothing but
// initialize before initialize, nothing but exit after shutdown.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	if req.IsCall() {
		// A call starts on the read loop only if it can be decided there;
		// any other is released at once. Notifications stay in order on
		// the read loop.
		r := &releaser{calls: &s.calls, id: req.ID(), ctx: ctx}
		ctx = gate.WithWait(ctx, r.release)
		defer r.done()
		if !methods[req.Method()].readLoop && !lifecycleOnReadLoop[req.Method()] {
			ctx = r.release()
		}
	}
	// The method and params borrow the read buffer until a release copies
	// them: read them after it.
	m := req.Method()
	if m == protocol.MethodCancelRequest {
		if err := s.calls.cancelRequest(req.Params()); err != nil {
			s.log.Warn("$/cancelRequest ignored", "err", err)
		}
		return nil, nil
	}
	if !s.initialized.Load() && m != protocol.MethodInitialize && m != protocol.MethodExit {
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s: the server is not initialized; send initialize first", m)
		}
		return nil, nil
	}
	if s.shutdown.Load() && m != protocol.MethodExit && req.IsCall() {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: the server is shutting down", m)
	}
	var res any
	var err error
	if strings.HasPrefix(m, "admit/") {
		res, err = s.Request(ctx, m, protocol.LSPAny(req.Params()))
	} else {
		res, err = next(ctx, req)
	}
	if !req.IsCall() && err != nil {
		// A notification's error would close the connection: log it instead.
		s.log.Warn("notification failed", "method", m, "err", err)
		return nil, nil
	}
	return res, wireError(err)
}

// wireError gives each error the JSON-RPC code the client should see.
func wireError(err error) error {
	if err == nil {
		return nil
	}
	var pe *gate.ParamError
	if errors.As(err, &pe) {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, pe.Error())
	}
	return err
}

// method is one admit/* method of the server.
type method struct {
	handle func(s *Server, ctx context.Context, g *gate.Gate, raw []byte) (any, error)
	// readLoop: the handler starts on the connection's read loop, because
	// it decides without waiting unless a rule says otherwise; the gate
	// releases the loop before it waits. Every other call is released at
	// once.
	readLoop bool
	// editorOnly: only the editor's own connection may call it. A peer on
	// the socket (an agent, or any program the gate let run) checks,
	// observes, runs and asks within the editor's settings; it never
	// configures the gate, nor reads the tape.
	editorOnly bool
}

// lifecycleOnReadLoop are the LSP lifecycle calls handled on the read
// loop: nothing may overtake them (an exit read after a shutdown must see
// it done, whether or not the client waited for its reply).
var lifecycleOnReadLoop = map[string]bool{protocol.MethodInitialize: true, protocol.MethodShutdown: true}

// methods are the admit/* methods, one handler each (handle_*.go), as
// docs/protocol.md lists them.
var methods = map[string]method{
	"admit/check":          {handle: (*Server).handleCheck, readLoop: true},
	"admit/observe":        {handle: (*Server).handleObserve, readLoop: true},
	"admit/state":          {handle: (*Server).handleState, readLoop: true},
	"admit/openSession":    {handle: (*Server).handleOpenSession},
	"admit/closeSession":   {handle: (*Server).handleCloseSession},
	"admit/setMode":        {handle: (*Server).handleSetMode, editorOnly: true},
	"admit/tape":           {handle: (*Server).handleTape, editorOnly: true},
	"admit/reviewPolicy":   {handle: (*Server).handleReviewPolicy, editorOnly: true},
	"admit/trustPolicy":    {handle: (*Server).handleTrustPolicy, editorOnly: true},
	"admit/distrustPolicy": {handle: (*Server).handleDistrustPolicy, editorOnly: true},
	"admit/rules":          {handle: (*Server).handleRules, editorOnly: true},
	"admit/addRule":        {handle: (*Server).handleAddRule, editorOnly: true},
	"admit/removeRule":     {handle: (*Server).handleRemoveRule, editorOnly: true},
	"admit/suggestRules":   {handle: (*Server).handleSuggestRules, editorOnly: true},
	"admit/replay":         {handle: (*Server).handleReplay, editorOnly: true},
	"admit/revoke":         {handle: (*Server).handleRevoke},
	"admit/read":           {handle: (*Server).handleRead},
	"admit/edit":           {handle: (*Server).handleEdit},
	"admit/write":          {handle: (*Server).handleWrite},
	"admit/run":            {handle: (*Server).handleRun},

	// Connecting the agents' hooks (handle_agents.go) writes the person's
	// own configuration files: the editor's connection alone may.
	"admit/agents":          {handle: (*Server).handleAgents, editorOnly: true},
	"admit/connectAgent":    {handle: (*Server).handleConnectAgent, editorOnly: true},
	"admit/disconnectAgent": {handle: (*Server).handleDisconnectAgent, editorOnly: true},
}

// Request routes an admit/* method to its handler.
func (s *Server) Request(ctx context.Context, name string, params any) (any, error) {
	m, ok := methods[name]
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "%s: method not found", name)
	}
	if m.editorOnly && s.hub != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: only the editor's own connection may call this; a socket connection checks, observes, runs and asks within the editor's settings", name)
	}
	raw, _ := params.(protocol.LSPAny)
	return m.handle(s, ctx, s.getGate(), raw)
}

func (s *Server) getGate() *gate.Gate {
	if h := s.getHost(); h != nil {
		return h.gate
	}
	return nil
}

func (s *Server) getHost() *host {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.host
}

// lossWatch cancels the connection's context when reading fails: the
// client is gone, and whatever waits on its behalf should stop waiting.
type lossWatch struct {
	io.Reader
	lost func()
}

func (l *lossWatch) Read(p []byte) (int, error) {
	n, err := l.Reader.Read(p)
	if err != nil {
		l.lost()
	}
	return n, err
}

// decode reads params into v strictly (strictjson): a misspelt field is
// an error rather than a silent default (a "sesion" would be the default
// session), and so are a field given twice, a name in the wrong case and
// invalid UTF-8, where parsers could disagree. Errors name the field.
func decode(raw []byte, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	err := strictjson.Decode(raw, v)
	var e *strictjson.Error
	if errors.As(err, &e) {
		field := e.Field
		if field == "" {
			field = "params"
		}
		return &gate.ParamError{Field: field, Msg: e.Msg}
	}
	return err
}

// codec marshals payloads with the protocol package's LSP-aware encoder and
// passes raw messages through, as protocol.NewServer's codec does.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if m, ok := v.(jsonrpc2.RawMessage); ok {
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// close ends everything the editor's initialize started: the socket stops
// accepting, pending approvals are refused at once, the watcher stops, the
// tape is flushed. A socket connection owns none of it.
func (s *Server) close() {
	s.mu.Lock()
	h, closed := s.host, s.closed
	s.closed = true
	s.mu.Unlock()
	if closed || h == nil || s.hub != nil {
		return
	}
	if h.listener != nil {
		h.listener.close()
	}
	h.broker.Close()
	h.state.close()
	if h.watcher != nil {
		_ = h.watcher.Close()
	}
	_ = h.gate.Close()
}
