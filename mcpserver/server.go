// Package mcpserver is admit's own MCP server (`admit mcp serve`): any MCP
// client gets tools that admit judges, confines and tapes: read, edit,
// write, run and search (tools.go). Each call goes through the door the
// command line opened (the editor's server over its socket, else a gate
// of admit's own), in one session that lasts as long as the client; a
// refusal comes back as a tool result with isError set and the verdict's
// toolError as its text, so the model reads why and what to do instead.
//
// The transport is MCP's stdio one: JSON-RPC 2.0, one message a line, in
// protocol version 2025-06-18 (2025-03-26 and 2024-11-05 too, as the
// lifecycle negotiates). Start with Serve.
package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"admit/gate"
	"admit/internal/mcpwire"
)

// Door is the gate admit's tools act through: *rpc.Client (the editor's
// server over its socket) or *gate.Gate (a gate in this process).
type Door interface {
	OpenSession(ctx context.Context, p gate.OpenSessionParams) (string, error)
	CloseSession(ctx context.Context, id string) error
	Read(ctx context.Context, p gate.ReadParams) (gate.FileResult, error)
	Edit(ctx context.Context, p gate.EditParams) (gate.FileResult, error)
	Write(ctx context.Context, p gate.WriteParams) (gate.FileResult, error)
	Run(ctx context.Context, p gate.RunParams, o gate.RunOptions) (gate.RunResult, error)
	// Check decides a call the server does not carry out: a request sent
	// without an id, put to the door so that its refusal is taped.
	Check(ctx context.Context, p gate.CheckParams) (gate.Verdict, error)
}

// Config holds a server's dependencies.
type Config struct {
	Door    Door
	Label   string // the session's label; the client's name is added to it
	Cwd     string // the session's working folder: relative paths resolve against it
	Version string // admit's version, in serverInfo
	// Alone says why admit decides alone (no editor's server answered),
	// or is "" when the editor's server decides. It is said in the
	// instructions and beside every refusal.
	Alone string
	// Env is the environment a run's scrubbed one is built from, when
	// the door is a gate of its own (the editor's server uses its own).
	Env []string
	// Bounds are the session's bounds by their JSON names; nil takes
	// the door's. The session is long-lived (no step total).
	Bounds map[string]int64
	Logger *slog.Logger
}

// maxLine is the longest message the server reads: an edit's text fits.
const maxLine = 64 << 20

type server struct {
	cfg Config
	out io.Writer
	log *slog.Logger

	// outMu serializes whole lines to the client.
	outMu sync.Mutex

	// sessMu is held while the session opens.
	sessMu  sync.Mutex
	session string

	// mu guards the fields below.
	mu          sync.Mutex
	version     string            // the negotiated protocol version; "" before initialize
	client      string            // the client's name, for the session's label
	initialized bool              // notifications/initialized came
	hashes      map[string]string // the hash this session last read or wrote, by path

	calls mcpwire.Inflight // the tool calls being answered
	wg    sync.WaitGroup   // the batches being collected
}

// Serve answers MCP requests from in on out until in ends, then waits for
// the calls still running and closes the session.
func Serve(ctx context.Context, in io.Reader, out io.Writer, cfg Config) error {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Label == "" {
		cfg.Label = "mcp admit"
	}
	s := &server{cfg: cfg, out: out, log: cfg.Logger, hashes: map[string]string{}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		line = append([]byte(nil), line...)
		if line[0] == '[' {
			s.batch(ctx, line)
			continue
		}
		if resp := s.handle(ctx, line, nil); resp != nil {
			s.send(resp)
		}
	}
	err := sc.Err()
	s.calls.Wait()
	s.wg.Wait()
	s.closeSession()
	if err != nil {
		return fmt.Errorf("mcp serve: reading the client: %w", err)
	}
	return nil
}

// batch answers a JSON-RPC batch (MCP 2025-03-26 only) with one array.
func (s *server) batch(ctx context.Context, line []byte) {
	s.mu.Lock()
	v := s.version
	s.mu.Unlock()
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil {
		s.send(mcpwire.Response(nil, nil, &mcpwire.Error{Code: mcpwire.ParseError, Message: "parse error: " + err.Error()}))
		return
	}
	if v != "2025-03-26" || len(items) == 0 {
		s.send(mcpwire.Response(nil, nil, &mcpwire.Error{Code: mcpwire.InvalidRequest, Message: "a batch is part of MCP 2025-03-26 only, and is never empty; this session speaks " + orNone(v)}))
		return
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var answers []json.RawMessage
	collect := func(b []byte) { // once per item; nil for a notification
		if b != nil {
			mu.Lock()
			answers = append(answers, b)
			mu.Unlock()
		}
		wg.Done()
	}
	for _, item := range items {
		wg.Add(1)
		if resp := s.handle(ctx, bytes.TrimSpace(item), collect); resp != nil {
			collect(resp)
		}
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		wg.Wait()
		if len(answers) > 0 {
			b, _ := json.Marshal(answers)
			s.send(b)
		}
	}()
}

func orNone(v string) string {
	if v == "" {
		return "none yet (initialize first)"
	}
	return v
}

// handle answers one message. It returns the answer, or nil when there
// is none yet: a tools/call is answered later, through reply (nil: send
// it on its own line), and a notification never. A message that has no
// answer calls reply(nil) when reply is given, for a batch's count.
func (s *server) handle(ctx context.Context, line []byte, reply func([]byte)) []byte {
	done := func() []byte {
		if reply != nil {
			reply(nil)
		}
		return nil
	}
	m, err := mcpwire.Parse(line)
	if err != nil {
		var dup *mcpwire.DuplicateError
		code := mcpwire.InvalidRequest
		switch {
		case errors.As(err, &dup) && dup.InParams():
			code = mcpwire.InvalidParams
		case strings.HasPrefix(err.Error(), "not valid JSON"):
			code = mcpwire.ParseError
		}
		return mcpwire.Response(lenientID(line), nil, &mcpwire.Error{Code: code, Message: err.Error()})
	}
	if m.IsResponse() {
		return done() // the server sends no requests: nothing waits for it
	}
	if m.IsNotification() {
		switch m.Method {
		case "notifications/initialized":
			s.mu.Lock()
			s.initialized = true
			s.mu.Unlock()
		case "notifications/cancelled":
			s.cancel(m.Params)
		default:
			if !strings.HasPrefix(m.Method, "notifications/") {
				s.refuseNotification(ctx, m)
			}
		}
		return done()
	}
	switch m.Method {
	case "initialize":
		return s.initialize(m)
	case "ping":
		return mcpwire.Response(m.ID, struct{}{}, nil)
	}
	s.mu.Lock()
	v := s.version
	s.mu.Unlock()
	if v == "" {
		return mcpwire.Response(m.ID, nil, &mcpwire.Error{Code: mcpwire.InvalidRequest, Message: m.Method + ": initialize first"})
	}
	switch m.Method {
	case "tools/list":
		return mcpwire.Response(m.ID, map[string]any{"tools": toolList()}, nil)
	case "tools/call":
		s.call(ctx, m, reply)
		return nil
	}
	return mcpwire.Response(m.ID, nil, &mcpwire.Error{Code: mcpwire.MethodNotFound, Message: m.Method + ": admit's MCP server offers tools only (tools/list, tools/call)"})
}

// notificationTool is the name a request sent without an id is put to
// the door under (mcp:notification/METHOD), the name admit's gateway
// (mcpgate) uses for the same refusal: no session grants it.
const notificationTool = "mcp:notification/"

// refuseNotification refuses a request method sent without an id
// (tools/call as a notification): nothing runs, since no answer could
// carry the verdict, and the refusal is put to the door, which tapes it
// with the arguments.
func (s *server) refuseNotification(ctx context.Context, m *mcpwire.Message) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		sess, err := s.ensureSession(ctx)
		if err != nil {
			s.log.Warn("mcp serve: a request sent without an id was not carried out, and admit could not record it", "method", m.Method, "err", err)
			return
		}
		args := m.Params
		if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
			args = nil
		}
		callCtx, _ := json.Marshal(map[string]string{"agent": "mcp", "task": s.cfg.Label})
		v, err := s.cfg.Door.Check(ctx, gate.CheckParams{Session: sess, Tool: notificationTool + strings.TrimSpace(m.Method), Args: args, Cwd: s.cfg.Cwd, Context: callCtx})
		switch {
		case err != nil:
			s.log.Warn("mcp serve: a request sent without an id was not carried out, and admit could not record it", "method", m.Method, "err", err)
		default:
			// Allowed or not, it is not carried out: a request needs an id
			// to be answered.
			s.log.Warn("mcp serve: a request sent without an id was refused and not carried out", "method", m.Method, "rule", v.Rule)
		}
	}()
}

// initialize negotiates the protocol version and says what the server is.
func (s *server) initialize(m *mcpwire.Message) []byte {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
		ClientInfo      struct {
			Name string `json:"name"`
		} `json:"clientInfo"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.ProtocolVersion == "" {
		return mcpwire.Response(m.ID, nil, &mcpwire.Error{Code: mcpwire.InvalidParams, Message: "initialize: params.protocolVersion must be a string naming a version"})
	}
	s.mu.Lock()
	if s.version != "" {
		s.mu.Unlock()
		return mcpwire.Response(m.ID, nil, &mcpwire.Error{Code: mcpwire.InvalidRequest, Message: "initialize: already initialized"})
	}
	s.version = mcpwire.Negotiate(p.ProtocolVersion)
	s.client = strings.TrimSpace(p.ClientInfo.Name)
	v := s.version
	s.mu.Unlock()
	return mcpwire.Response(m.ID, map[string]any{
		"protocolVersion": v,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
		"serverInfo":      map[string]any{"name": "admit", "title": "admit: gated tools", "version": s.cfg.Version},
		"instructions":    s.instructions(),
	}, nil)
}

func (s *server) instructions() string {
	door := "Decisions are made by the editor's admit server: what needs a person is asked there."
	if s.cfg.Alone != "" {
		door = "admit decides alone (" + s.cfg.Alone + "): nobody can be asked, so what needs a person is refused."
	}
	return "Every tool here is judged by admit before it acts, and taped: read (a file, or a folder's listing), search (grep over the workspace), edit and write (a file read first, bound to the bytes read), run (a command line, run without a system shell, confined). A refusal says NOTHING was executed, why, and what to do instead; the same call will be refused again. " + door
}

// call answers a tools/call, on a goroutine of its own: a run takes as
// long as its command, a question to a person as long as they take.
func (s *server) call(ctx context.Context, m *mcpwire.Message, reply func([]byte)) {
	s.calls.Go(ctx, mcpwire.IDKey(m.ID), func(ctx context.Context) {
		resp := s.toolCall(ctx, m)
		if ctx.Err() != nil && reply == nil {
			return // cancelled: the client wants no answer
		}
		if reply != nil {
			reply(resp)
			return
		}
		s.send(resp)
	})
}

func (s *server) cancel(params json.RawMessage) {
	if id, ok := mcpwire.CancelledID(params); ok {
		s.calls.Cancel(mcpwire.IDKey(id))
	}
}

// ensureSession opens the client's session on its first call.
func (s *server) ensureSession(ctx context.Context) (string, error) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if s.session != "" {
		return s.session, nil
	}
	s.mu.Lock()
	label := s.cfg.Label
	if s.client != "" {
		label += " (" + s.client + ")"
	}
	s.mu.Unlock()
	id, err := s.cfg.Door.OpenSession(ctx, gate.OpenSessionParams{CapsSpec: capsOf(label), Cwd: s.cfg.Cwd, Bounds: s.cfg.Bounds, LongLived: true})
	if err != nil {
		return "", fmt.Errorf("opening admit's session: %w", err)
	}
	s.session = id
	return id, nil
}

func (s *server) closeSession() {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if s.session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.cfg.Door.CloseSession(ctx, s.session); err != nil {
		s.log.Debug("mcp serve: closing the session", "err", err)
	}
	s.session = ""
}

func (s *server) send(line []byte) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	_, _ = s.out.Write(append(line, '\n'))
}

// lenientID reads the id of a line that was not read strictly, so the
// error can name it.
func lenientID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return m.ID
}
