// Package mcpgate is admit's MCP gateway: it starts a real MCP server as a
// child and sits between the MCP client (the agent) and it, on the stdio
// transport (newline-delimited JSON-RPC 2.0).
//
// Every request either side sends is decided by the door (the editor's
// server, or a local gate) and taped before it is relayed; only the
// lifecycle (initialize, ping), notifications (methods under
// notifications/) and responses pass without a decision (routes.go says
// which method is judged how). A request method sent without an id
// (tools/call as a notification) is never relayed; its refusal is taped. A tools/call is
// judged as the tool it names; every other method as a tool of its own
// name, mcp:METHOD, which the session grants: resources/read judges a
// file: URI as a read of that path, prompts/get and completion/complete
// judge their arguments as any tool's, and sampling/createMessage and
// elicitation/create (the server making the client's model or person act
// for it) always ask a person. A method no route knows is judged under its
// own name, which nothing grants: refused. A message that repeats a key at
// any depth (also under another case) is refused and never relayed. The
// client's answer is relayed only to a request of the server's that was
// decided and relayed to it: an answer to any other id (a guessed one, or
// one the gateway refused) would stand in for that decision. A batch from
// either side is taken apart, each request in it decided on its own; a
// line of the server's that cannot be read whole and names a method is
// not relayed.
//
// The session's capability set is built from the child's own tools/list:
// every listed tool is granted, its input schema says which arguments are
// paths, a tool not annotated readOnlyHint is a mutator (its paths are
// judged as writes), and a tool annotated destructiveHint always asks. The
// session lasts as long as the client: no step total, a rate per minute
// and the retry bound (gate.OpenSessionParams.LongLived). Start with Run.
package mcpgate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"admit/gate"
	"admit/internal/mcpwire"
	"admit/policy"
)

// Door is the gate a call goes through: *rpc.Client (the editor's server
// over its socket) or *gate.Gate (a gate in this process).
type Door interface {
	OpenSession(ctx context.Context, p gate.OpenSessionParams) (string, error)
	Check(ctx context.Context, p gate.CheckParams) (gate.Verdict, error)
	CloseSession(ctx context.Context, id string) error
}

// Config holds a gateway's dependencies.
type Config struct {
	Door   Door
	Label  string // the session's label, shown with its decisions and prompts
	Cwd    string // the working folder relative path arguments are resolved against
	Logger *slog.Logger
	// Bounds are the session's bounds by their JSON names (maxRetries,
	// maxStepsPerMinute, ...), each checked by the door; nil takes the
	// door's own. The session is long-lived, so maxSteps and timeoutMs do
	// not apply.
	Bounds map[string]int64
	// Grace is how long the child may take to exit once its input is
	// closed, before SIGTERM (and as long again before SIGKILL).
	Grace time.Duration
}

// Timeouts of the gateway's own exchanges with the child.
const (
	defaultGrace = 3 * time.Second
	listTimeout  = 30 * time.Second // one tools/list page from the child
	maxListPages = 100              // a child that pages forever is not believed
	ourIDPrefix  = "admit-mcp-"     // ids of the requests the gateway itself sends the child
	maxLine      = 256 << 20        // the longest message either side may send (a resource of images, say)
)

type gateway struct {
	cfg   Config
	out   io.Writer      // to the client
	child io.WriteCloser // to the child's stdin
	log   *slog.Logger

	// outMu serializes whole lines to the client; childMu to the child.
	outMu   sync.Mutex
	childMu sync.Mutex

	// sessMu is held while the session is built, so concurrent calls wait
	// for one tools/list instead of sending several.
	sessMu  sync.Mutex
	session string

	// mu guards the fields below.
	mu    sync.Mutex
	stale bool                            // the child said its tool list changed
	ours  map[string]chan json.RawMessage // the gateway's own requests to the child, by id
	seq   int64
	// relayed are the ids (IDKey) of the server's requests relayed to the
	// client and not yet answered: only those may the client answer.
	relayed map[string]bool

	pending mcpwire.Inflight // requests being decided, by side and id
}

// Run starts cmd and relays between in/out (the MCP client) and the child
// until either side closes: the client's end of input closes the child's
// input and waits for it to exit (then SIGTERM, then SIGKILL); the child's
// exit ends the relay. The child's stderr is cmd.Stderr, as the caller set
// it. Run returns the child's exit error, if any. The goroutine reading in
// returns when in is closed or yields an error, which may be after Run.
func Run(ctx context.Context, cmd *exec.Cmd, in io.Reader, out io.Writer, cfg Config) error {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Grace <= 0 {
		cfg.Grace = defaultGrace
	}
	if cfg.Label == "" {
		cfg.Label = "mcp " + cmd.Path
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("mcp: starting %s: %w", cmd.Path, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &gateway{cfg: cfg, out: out, child: stdin, log: cfg.Logger, ours: map[string]chan json.RawMessage{}, relayed: map[string]bool{}}

	childDone := make(chan struct{})
	go func() {
		defer close(childDone)
		g.read(stdout, func(line []byte) { g.childLine(ctx, line) })
	}()
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		g.read(in, func(line []byte) { g.clientLine(ctx, line) })
	}()

	select {
	case <-clientDone:
		// The client is gone: let decided calls finish, then close the
		// child's input and give it time to exit.
		g.pending.Wait()
		g.childMu.Lock()
		_ = g.child.Close()
		g.childMu.Unlock()
		select {
		case <-childDone:
		case <-time.After(cfg.Grace):
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-childDone:
			case <-time.After(cfg.Grace):
				_ = cmd.Process.Kill()
				<-childDone
			}
		}
	case <-childDone:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-childDone
	}
	cancel() // requests still being decided are dropped: nobody can act on them
	g.pending.Wait()
	werr := cmd.Wait()
	g.closeSession()
	return werr
}

// read hands each non-blank line of r to handle, until r ends. A line
// longer than maxLine ends the stream: it cannot be judged whole.
func (g *gateway) read(r io.Reader, handle func([]byte)) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), maxLine)
	for s.Scan() {
		if line := bytes.TrimSpace(s.Bytes()); len(line) > 0 {
			handle(append([]byte(nil), line...))
		}
	}
	if err := s.Err(); err != nil {
		g.log.Warn("mcp: a stream ended", "err", err)
	}
}

// side is who sent a message: the client (the agent) or the child (the
// MCP server).
type side int

const (
	fromClient side = iota
	fromServer
)

func (s side) String() string { return [...]string{"client", "server"}[s] }

// clientLine handles one line from the client.
func (g *gateway) clientLine(ctx context.Context, line []byte) {
	if line[0] == '[' {
		// A batch (MCP 2025-03-26): each element is handled on its own,
		// so every request in it is decided like any other.
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			g.toClient(mcpwire.Response(nil, nil, &mcpwire.Error{Code: mcpwire.ParseError, Message: "parse error: " + err.Error()}))
			return
		}
		for _, m := range batch {
			if m = bytes.TrimSpace(m); len(m) > 0 {
				g.clientLine(ctx, m)
			}
		}
		return
	}
	m, err := mcpwire.Parse(line)
	if err != nil {
		// What cannot be read cannot be judged: it is not relayed.
		g.toClient(mcpwire.Response(requestID(line), nil, parseError(err)))
		return
	}
	switch {
	case m.IsResponse():
		g.clientAnswer(line, m)
	case m.IsNotification() && !notificationMethod(m.Method):
		g.refuseNotification(ctx, fromClient, m)
	case m.IsNotification():
		if m.Method == "notifications/cancelled" {
			g.withdraw(fromClient, m.Params)
		}
		g.relay(fromClient, m)
	case bytes.Contains(m.ID, []byte(ourIDPrefix)):
		// The server's answer to it would be taken for the answer to the
		// gateway's own request of that id (its tool list).
		g.toClient(mcpwire.Response(m.ID, nil, &mcpwire.Error{Code: mcpwire.InvalidRequest, Message: "ids holding " + ourIDPrefix + " are the gateway's own; use another id"}))
	default:
		g.request(ctx, fromClient, m)
	}
}

// clientAnswer relays the client's answer to a request of the server's,
// which was decided and relayed: an answer to any other id (a request the
// gateway refused, or one never sent: a sampling result or an elicitation
// accepted that nobody was shown) is dropped, so an answer cannot stand in
// for the decision of a request.
func (g *gateway) clientAnswer(line []byte, m *mcpwire.Message) {
	key := mcpwire.IDKey(m.ID)
	g.mu.Lock()
	ok := m.ID != nil && g.relayed[key]
	delete(g.relayed, key)
	g.mu.Unlock()
	if !ok {
		g.log.Warn("mcp: the client answered a request the server's side never relayed to it; it is not relayed", "id", string(m.ID))
		return
	}
	g.toChild(line)
}

// childLine handles one line from the child.
func (g *gateway) childLine(ctx context.Context, line []byte) {
	if line[0] == '[' {
		// A batch: each element is handled on its own, so a request in
		// it is decided like any other, never relayed whole.
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			g.log.Warn("mcp: the server sent a batch that is not valid JSON; it is not relayed", "err", err)
			return
		}
		for _, m := range batch {
			if m = bytes.TrimSpace(m); len(m) > 0 {
				g.childLine(ctx, m)
			}
		}
		return
	}
	m, err := mcpwire.Parse(line)
	if err != nil {
		id := requestID(line)
		var dup *mcpwire.DuplicateError
		switch {
		case g.deliver(id, line):
			// an answer to the gateway's own request: ask refuses it
		case id != nil && hasMethod(line):
			// A request the gateway cannot read is refused, not relayed.
			g.toChild(mcpwire.Response(id, nil, parseError(err)))
		case errors.As(err, &dup):
			g.log.Warn("mcp: the server sent a message that repeats a key; it is not relayed", "err", err)
		case hasMethod(line):
			// A request or notification not read whole (text after the
			// object, an id not read): a lenient client could still act
			// on it, so it is not relayed.
			g.log.Warn("mcp: the server sent a method the gateway cannot read; it is not relayed", "err", err)
		default:
			g.toClient(line) // not JSON-RPC: the client reads it as it can
		}
		return
	}
	switch {
	case m.IsResponse():
		if !g.deliver(m.ID, line) {
			g.toClient(line)
		}
	case m.IsNotification() && !notificationMethod(m.Method):
		g.refuseNotification(ctx, fromServer, m)
	case m.IsNotification():
		switch m.Method {
		case "notifications/tools/list_changed":
			g.mu.Lock()
			g.stale = true
			g.mu.Unlock()
		case "notifications/cancelled":
			g.withdraw(fromServer, m.Params)
		}
		g.relay(fromServer, m)
	default:
		g.request(ctx, fromServer, m)
	}
}

// deliver hands an answer to the gateway's own request to its waiter; it
// reports whether id was one of the gateway's.
func (g *gateway) deliver(id json.RawMessage, line []byte) bool {
	if id == nil || !bytes.Contains(id, []byte(ourIDPrefix)) {
		return false
	}
	g.mu.Lock()
	ch := g.ours[pendingKey(fromServer, id)]
	g.mu.Unlock()
	if ch == nil {
		return true // late, or not ours to relay: the client never sent it
	}
	select {
	case ch <- line:
	default:
	}
	return true
}

// notificationMethod reports a method MCP sends as a notification: every
// one is under notifications/. Any other method without an id (tools/call
// sent as a notification) is a request that skipped its decision.
func notificationMethod(method string) bool {
	return strings.HasPrefix(method, "notifications/")
}

// refuseNotification drops a request method sent without an id: it is
// never relayed (the other side could act on it, and no answer could
// carry a refusal). It is put to the door as mcp:notification/METHOD, a
// name no session grants, so the refusal is on the tape with its
// arguments.
func (g *gateway) refuseNotification(ctx context.Context, from side, m *mcpwire.Message) {
	g.mu.Lock()
	g.seq++
	key := from.String() + ":notification:" + strconv.FormatInt(g.seq, 10)
	g.mu.Unlock()
	tool := methodToolPrefix + "notification/" + strings.TrimSpace(m.Method)
	g.pending.Go(ctx, key, func(ctx context.Context) {
		v, err := g.decide(ctx, from, tool, m.Params)
		switch {
		case err != nil:
			g.log.Warn("mcp: a request sent without an id was not relayed, and admit could not record it", "from", from, "method", m.Method, "err", err)
		case v.Allowed && v.Mode != "off":
			// Nothing grants the name; should a session ever, the message
			// is still not relayed: a request needs an id to be answered.
			g.log.Warn("mcp: a request sent without an id was not relayed", "from", from, "method", m.Method)
		default:
			g.log.Warn("mcp: a request sent without an id was refused and not relayed", "from", from, "method", m.Method, "rule", v.Rule)
		}
	})
}

// request routes one request: relayed as it is, or decided first.
func (g *gateway) request(ctx context.Context, from side, m *mcpwire.Message) {
	r := routeOf(from, m.Method)
	if r.kind == pass {
		g.relay(from, m)
		return
	}
	g.pending.Go(ctx, pendingKey(from, m.ID), func(ctx context.Context) { g.decideAndRelay(ctx, from, m, r) })
}

// decideAndRelay puts one request to the door, then relays it to the
// other side or answers the refusal to the sender.
func (g *gateway) decideAndRelay(ctx context.Context, from side, m *mcpwire.Message, r route) {
	answer := g.toClient
	if from == fromServer {
		answer = g.toChild
	}
	tool, args, perr := r.judged(m.Params)
	if perr != nil {
		answer(mcpwire.Response(m.ID, nil, perr))
		return
	}
	v, err := g.decide(ctx, from, tool, args)
	if ctx.Err() != nil {
		return // withdrawn by its sender, or the gateway is closing: no answer is wanted
	}
	switch {
	case err != nil:
		g.log.Warn("mcp: no decision", "tool", tool, "err", err)
		text := policy.ToolError("admit-unavailable", "admit could not decide this request, so it was not relayed: "+err.Error(), "")
		answer(refusal(m.ID, r, text, "admit could not decide "+tool+": "+err.Error()))
	case !v.Allowed:
		answer(refusal(m.ID, r, v.ToolError, "REFUSED by admit ("+string(v.Rule)+"): "+v.Reason))
	default:
		g.relay(from, m)
	}
}

// refusal is the answer to a refused request: a tools/call gets a tool
// result the model reads (isError, the refusal's text); any other request
// a JSON-RPC error whose data is the refusal.
func refusal(id json.RawMessage, r route, toolError, message string) []byte {
	if r.kind == toolCall {
		return mcpwire.Response(id, map[string]any{"content": []map[string]string{{"type": "text", "text": toolError}}, "isError": true}, nil)
	}
	var data any = toolError
	var parsed map[string]any
	if json.Unmarshal([]byte(toolError), &parsed) == nil {
		data = parsed
	}
	return mcpwire.Response(id, nil, &mcpwire.Error{Code: mcpwire.Refused, Message: message, Data: data})
}

// relay sends a request or notification on to the other side, encoded
// from the members that were read, so nothing unjudged rides along.
func (g *gateway) relay(from side, m *mcpwire.Message) {
	line, err := m.Encode()
	if err != nil {
		g.log.Warn("mcp: a message could not be re-encoded; it is not relayed", "from", from, "err", err)
		return
	}
	if from == fromClient {
		g.toChild(line)
		return
	}
	if m.IsRequest() {
		g.mu.Lock()
		g.relayed[mcpwire.IDKey(m.ID)] = true
		g.mu.Unlock()
	}
	g.toClient(line)
}

// withdraw stops deciding a request its sender cancelled: it is then
// neither relayed nor answered.
func (g *gateway) withdraw(from side, params json.RawMessage) {
	if id, ok := mcpwire.CancelledID(params); ok {
		g.pending.Cancel(pendingKey(from, id))
	}
}

func pendingKey(from side, id json.RawMessage) string {
	return from.String() + ":" + mcpwire.IDKey(id)
}

func (g *gateway) decide(ctx context.Context, from side, tool string, args json.RawMessage) (gate.Verdict, error) {
	sess, err := g.ensureSession(ctx)
	if err != nil {
		return gate.Verdict{}, err
	}
	callCtx, _ := json.Marshal(map[string]string{"agent": "mcp", "task": g.cfg.Label})
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		args = nil
	}
	return g.cfg.Door.Check(ctx, gate.CheckParams{Session: sess, Tool: tool, Args: args, Cwd: g.cfg.Cwd, Context: callCtx})
}

// ensureSession opens the session from the child's tool list, once, and
// again after the child says the list changed.
func (g *gateway) ensureSession(ctx context.Context) (string, error) {
	g.sessMu.Lock()
	defer g.sessMu.Unlock()
	g.mu.Lock()
	stale := g.stale
	g.stale = false
	g.mu.Unlock()
	if g.session != "" && !stale {
		return g.session, nil
	}
	tools, err := g.listTools(ctx)
	if err != nil {
		return "", fmt.Errorf("listing the MCP server's tools: %w", err)
	}
	p := gate.OpenSessionParams{CapsSpec: sessionCaps(g.cfg.Label, tools), Bounds: g.cfg.Bounds, LongLived: true}
	id, err := g.cfg.Door.OpenSession(ctx, p)
	if err != nil {
		return "", fmt.Errorf("opening the session: %w", err)
	}
	if g.session != "" {
		_ = g.cfg.Door.CloseSession(context.WithoutCancel(ctx), g.session)
	}
	g.session = id
	return id, nil
}

// sessionCaps is the capability set of a gateway's session: the child's
// tools (a name in the gateway's own mcp: space is dropped, so a server
// cannot take the name of a method), the methods every session grants,
// and what asks a person: the tools annotated destructive and the
// requests that make the client act for the server.
func sessionCaps(label string, tools []json.RawMessage) policy.CapsSpec {
	spec := policy.CapsSpec{Label: label}
	for _, raw := range tools {
		var t struct {
			Name        string `json:"name"`
			Annotations struct {
				DestructiveHint *bool `json:"destructiveHint"`
				ReadOnlyHint    *bool `json:"readOnlyHint"`
			} `json:"annotations"`
		}
		if json.Unmarshal(raw, &t) != nil || strings.TrimSpace(t.Name) == "" {
			continue
		}
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(t.Name)), methodToolPrefix) {
			continue
		}
		spec.Tools = append(spec.Tools, raw)
		// MCP's default for a tool that is not read-only is destructive
		// too, but a missing annotation already makes a tool a mutator;
		// asking a person is kept for the tools that say so.
		ro := t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
		if !ro && t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint {
			spec.NeedsHuman = append(spec.NeedsHuman, t.Name)
		}
	}
	granted, asks := methodTools()
	spec.Allow = append(spec.Allow, granted...)
	spec.NeedsHuman = append(spec.NeedsHuman, asks...)
	return spec
}

// listTools asks the child for its whole tool list, page by page. A
// server without tools (it answers method-not-found) has an empty list.
func (g *gateway) listTools(ctx context.Context) ([]json.RawMessage, error) {
	var tools []json.RawMessage
	var cursor *string
	for page := 0; page < maxListPages; page++ {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		raw, err := g.ask(ctx, "tools/list", params)
		var rerr *mcpwire.Error
		if errors.As(err, &rerr) && rerr.Code == mcpwire.MethodNotFound && page == 0 {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor *string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("tools/list result: %w", err)
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == nil || *res.NextCursor == "" {
			return tools, nil
		}
		cursor = res.NextCursor
	}
	return nil, fmt.Errorf("tools/list: more than %d pages", maxListPages)
}

// ask sends the child a request of the gateway's own and waits for the
// result; the answer is not relayed to the client. An answer that repeats
// a key is not believed.
func (g *gateway) ask(ctx context.Context, method string, params any) (json.RawMessage, error) {
	g.mu.Lock()
	g.seq++
	id := ourIDPrefix + strconv.FormatInt(g.seq, 10)
	ch := make(chan json.RawMessage, 1)
	raw, _ := json.Marshal(id)
	key := pendingKey(fromServer, raw)
	g.ours[key] = ch
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.ours, key)
		g.mu.Unlock()
	}()
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err := g.toChild(line); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	select {
	case raw := <-ch:
		m, err := mcpwire.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if e, ok := m.Members["error"]; ok {
			var rerr mcpwire.Error
			_ = json.Unmarshal(e, &rerr)
			return nil, fmt.Errorf("%s: %w", method, &rerr)
		}
		return m.Members["result"], nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (g *gateway) toChild(line []byte) error {
	g.childMu.Lock()
	defer g.childMu.Unlock()
	_, err := g.child.Write(append(append([]byte(nil), line...), '\n'))
	return err
}

func (g *gateway) toClient(line []byte) error {
	g.outMu.Lock()
	defer g.outMu.Unlock()
	_, err := g.out.Write(append(append([]byte(nil), line...), '\n'))
	return err
}

// parseError is the JSON-RPC error for a message that was not read: a
// repeated key in params is invalid params, elsewhere an invalid request.
func parseError(err error) *mcpwire.Error {
	var dup *mcpwire.DuplicateError
	switch {
	case errors.As(err, &dup) && dup.InParams():
		return &mcpwire.Error{Code: mcpwire.InvalidParams, Message: err.Error()}
	case errors.As(err, &dup):
		return &mcpwire.Error{Code: mcpwire.InvalidRequest, Message: err.Error()}
	case strings.HasPrefix(err.Error(), "not valid JSON"):
		return &mcpwire.Error{Code: mcpwire.ParseError, Message: "parse error: " + err.Error()}
	}
	return &mcpwire.Error{Code: mcpwire.InvalidRequest, Message: err.Error()}
}

// requestID is the id of a line that could not be parsed strictly, read
// leniently so the refusal can name it; nil when there is none.
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return m.ID
}

func hasMethod(line []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return bytes.Contains(bytes.ToLower(line), []byte(`"method"`))
	}
	for k := range m {
		if strings.EqualFold(k, "method") {
			return true
		}
	}
	return false
}

func (g *gateway) closeSession() {
	g.sessMu.Lock()
	defer g.sessMu.Unlock()
	if g.session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := g.cfg.Door.CloseSession(ctx, g.session); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		g.log.Debug("mcp: closing the session", "err", err)
	}
	g.session = ""
}
