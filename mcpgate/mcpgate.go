// Package mcpgate is admit's MCP gateway: it starts a real MCP server as a
// child and sits between the MCP client (the agent) and it, on the stdio
// transport (newline-delimited JSON-RPC 2.0).
//
// Every message passes through line by line, untouched, except tools/call:
// each one goes through the door first (the editor's server, or a local
// gate), and a refused call is answered with an MCP tool result that has
// isError set and the refusal body as its text; it never reaches the child.
// The session's capability set is built from the child's own tools/list:
// every listed tool is granted, a tool not annotated readOnlyHint is a
// mutator (its path arguments are judged as writes), and a tool annotated
// destructiveHint always asks a person. Start with Run.
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

	"admit/policy"
	"admit/rpc/gate"
)

// Door is the gate a call goes through: *rpc.Client (the editor's server
// over its socket) or *gate.Gate (a gate in this process).
type Door interface {
	OpenSession(ctx context.Context, p gate.OpenSessionParams) (string, error)
	Check(ctx context.Context, p gate.CheckParams) (gate.Verdict, error)
	CloseSession(ctx context.Context, id string) error
}

// sessionBounds are the widest bounds of an opened session: 64 steps (the
// range's top), five identical refused retries, and a day of wall time.
func sessionBounds() map[string]int64 {
	return map[string]int64{"maxSteps": 64, "maxRetries": 5, "timeoutMs": 24 * 60 * 60 * 1000}
}

// Config holds a gateway's dependencies.
type Config struct {
	Door   Door
	Label  string // the session's label, shown with its decisions and prompts
	Cwd    string // the working folder relative path arguments are resolved against
	Logger *slog.Logger
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
	mu     sync.Mutex
	stale  bool                            // the child said its tool list changed
	ours   map[string]chan json.RawMessage // the gateway's own requests to the child, by id
	checks map[string]context.CancelFunc   // tools/call being decided, by the client's id
	seq    int64

	wg sync.WaitGroup // the goroutines deciding tools/call
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
	g := &gateway{cfg: cfg, out: out, child: stdin, log: cfg.Logger, ours: map[string]chan json.RawMessage{}, checks: map[string]context.CancelFunc{}}

	childDone := make(chan struct{})
	go func() {
		defer close(childDone)
		g.fromChild(stdout)
	}()
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		g.fromClient(ctx, in)
	}()

	select {
	case <-clientDone:
		// The client is gone: let decided calls finish, then close the
		// child's input and give it time to exit.
		g.wg.Wait()
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
	cancel() // calls still being decided are dropped: nobody can run them
	g.wg.Wait()
	werr := cmd.Wait()
	g.closeSession()
	return werr
}

// fromClient relays the client's lines; tools/call goes through the door.
func (g *gateway) fromClient(ctx context.Context, in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			g.clientLine(ctx, line)
		}
		if err != nil {
			return
		}
	}
}

func (g *gateway) clientLine(ctx context.Context, line []byte) {
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] == '[' {
		// A batch (MCP 2025-03-26): each element is relayed on its own
		// line, so every call in it is decided like any other.
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil {
			g.reply(nil, nil, &rpcError{-32700, "parse error: " + err.Error()})
			return
		}
		for _, m := range batch {
			g.clientLine(ctx, append(bytes.TrimSpace(m), '\n'))
		}
		return
	}
	// Keys are matched exactly, as the child's JSON parser matches them:
	// encoding/json's case-insensitive struct matching would let
	// {"method":"tools/call","Method":"ping"} read as ping here and as
	// tools/call in the child.
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &msg); err != nil {
		// What cannot be read cannot be judged: it is not relayed.
		g.reply(nil, nil, &rpcError{-32700, "parse error: " + err.Error()})
		return
	}
	var method string
	_ = json.Unmarshal(msg["method"], &method)
	switch {
	case strings.EqualFold(strings.TrimSpace(method), "tools/call"):
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			g.call(ctx, msg)
		}()
		return
	case method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(msg["params"], &p)
		g.mu.Lock()
		stop := g.checks[string(p.RequestID)]
		g.mu.Unlock()
		if stop != nil {
			stop()
		}
	}
	g.toChild(trimmed)
}

// call decides one tools/call and relays it, or answers the refusal.
func (g *gateway) call(ctx context.Context, msg map[string]json.RawMessage) {
	id, hasID := msg["id"]
	var p struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(msg["params"], &params); err == nil {
		_ = json.Unmarshal(params["name"], &p.Name)
		p.Arguments = params["arguments"]
	}
	if p.Name == nil || strings.TrimSpace(*p.Name) == "" {
		if hasID {
			g.reply(id, nil, &rpcError{-32602, "tools/call: params.name must name a tool"})
		}
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := string(id)
	if hasID {
		g.mu.Lock()
		g.checks[key] = cancel
		g.mu.Unlock()
		defer func() {
			g.mu.Lock()
			delete(g.checks, key)
			g.mu.Unlock()
		}()
	}
	v, err := g.decide(ctx, *p.Name, p.Arguments)
	if ctx.Err() != nil {
		return // cancelled by the client, or the gateway is closing: no answer is wanted
	}
	switch {
	case err != nil:
		g.log.Warn("mcp: no decision", "tool", *p.Name, "err", err)
		if hasID {
			g.refuse(id, policy.ToolError("admit-unavailable", "admit could not decide this call, so it was not run: "+err.Error(), ""))
		}
	case !v.Allowed:
		if hasID {
			g.refuse(id, v.ToolError)
		}
	default:
		// Relay what was judged: the top-level object as decoded, so no
		// duplicate or look-alike key reaches the child.
		canon, err := json.Marshal(msg)
		if err != nil {
			if hasID {
				g.refuse(id, policy.ToolError("admit-unavailable", "the call could not be re-encoded: "+err.Error(), ""))
			}
			return
		}
		g.toChild(canon)
	}
}

func (g *gateway) decide(ctx context.Context, tool string, args json.RawMessage) (gate.Verdict, error) {
	sess, err := g.ensureSession(ctx)
	if err != nil {
		return gate.Verdict{}, err
	}
	callCtx, _ := json.Marshal(map[string]string{"agent": "mcp", "task": g.cfg.Label})
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
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
	// The session lives as long as the MCP client does, not one agent
	// task: it gets the widest bounds a session may have.
	p := gate.OpenSessionParams{CapsSpec: policy.CapsSpec{Label: g.cfg.Label, Tools: tools, NeedsHuman: destructive(tools)}, Bounds: sessionBounds()}
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

// destructive names the tools annotated destructiveHint: true. MCP's
// default for a tool that is not read-only is destructive too, but a
// missing annotation already makes a tool a mutator; asking a person is
// kept for the tools that say so.
func destructive(tools []json.RawMessage) []string {
	var out []string
	for _, raw := range tools {
		var t struct {
			Name        string `json:"name"`
			Annotations struct {
				DestructiveHint *bool `json:"destructiveHint"`
				ReadOnlyHint    *bool `json:"readOnlyHint"`
			} `json:"annotations"`
		}
		if json.Unmarshal(raw, &t) != nil || t.Name == "" {
			continue
		}
		ro := t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
		if !ro && t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint {
			out = append(out, t.Name)
		}
	}
	return out
}

// listTools asks the child for its whole tool list, page by page.
func (g *gateway) listTools(ctx context.Context) ([]json.RawMessage, error) {
	var tools []json.RawMessage
	var cursor *string
	for page := 0; page < maxListPages; page++ {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		raw, err := g.ask(ctx, "tools/list", params)
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
// result; the answer is not relayed to the client.
func (g *gateway) ask(ctx context.Context, method string, params any) (json.RawMessage, error) {
	g.mu.Lock()
	g.seq++
	id := ourIDPrefix + strconv.FormatInt(g.seq, 10)
	ch := make(chan json.RawMessage, 1)
	key, _ := json.Marshal(id)
	g.ours[string(key)] = ch
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.ours, string(key))
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
		var m struct {
			Result json.RawMessage `json:"result"`
			Error  *rpcError       `json:"error"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %d %s", method, m.Error.Code, m.Error.Message)
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// fromChild relays the child's lines to the client, keeping back the
// answers to the gateway's own requests.
func (g *gateway) fromChild(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 && !g.childLine(t) {
			g.toClient(t)
		}
		if err != nil {
			return
		}
	}
}

// childLine handles what the gateway itself must see; it reports whether
// the line is consumed.
func (g *gateway) childLine(line []byte) bool {
	if !bytes.Contains(line, []byte(ourIDPrefix)) && !bytes.Contains(line, []byte("list_changed")) {
		return false // the common case, without decoding
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	if m.Method == "notifications/tools/list_changed" {
		g.mu.Lock()
		g.stale = true
		g.mu.Unlock()
		return false
	}
	if m.Method != "" || len(m.ID) == 0 {
		return false
	}
	g.mu.Lock()
	ch := g.ours[string(m.ID)]
	g.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- append([]byte(nil), line...)
	return true
}

func (g *gateway) toChild(line []byte) error {
	g.childMu.Lock()
	defer g.childMu.Unlock()
	_, err := g.child.Write(append(append([]byte(nil), line...), '\n'))
	return err
}

func (g *gateway) toClient(line []byte) {
	g.outMu.Lock()
	defer g.outMu.Unlock()
	_, _ = g.out.Write(append(append([]byte(nil), line...), '\n'))
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// reply answers the client directly with a result or an error.
func (g *gateway) reply(id json.RawMessage, result any, e *rpcError) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if e != nil {
		m["error"] = e
	} else {
		m["result"] = result
	}
	b, _ := json.Marshal(m)
	g.toClient(b)
}

// refuse answers a tools/call with the refusal as a tool result: the model
// reads it, and nothing reached the child.
func (g *gateway) refuse(id json.RawMessage, text string) {
	g.reply(id, map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": true}, nil)
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
