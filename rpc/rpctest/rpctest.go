// Package rpctest is admit's one fake editor: it runs the real server
// (rpc.Serve) in the test's process, on one end of a net.Pipe or of two os
// pipes, and drives it from the other end as an editor would: it
// initializes it, calls its methods, answers its questions to the person
// (admit/approve, or the window/showMessageRequest fallback) as the test
// scripts them, and hands the test every notification on a channel, to
// wait for with a deadline (Within, Until), never a fixed sleep. Start is
// the entry point; rpc's own tests, mcpgate's and internal/cli's use it.
package rpctest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"admit/approvals"
	"admit/gate"
	"admit/policy"
	"admit/policy/rules"
	"admit/rpc"
	"admit/workspace"
)

// WaitFor is how long a test waits for something the server must do. It
// is a deadline, not a sleep: a passing test never waits for it.
const WaitFor = 10 * time.Second

// Options configure the server and the editor driving it.
type Options struct {
	Roots []string       // workspace folders, absolute
	Init  map[string]any // initializationOptions; "tape" defaults to a file in a temporary folder
	Home  string         // the server's home folder; "" is a fresh temporary one
	// Approve declares capabilities.experimental.admit.approve, so the
	// server asks the person with admit/approve; ShowMessage declares
	// window.showMessage, the fallback it asks with otherwise. With
	// neither, nobody can be asked (headless).
	Approve, ShowMessage bool
	// Answer is the person's answer to every question; nil holds each
	// open (see Answer). SetAnswer changes it while the test runs.
	Answer Answer
	// Listen is the socket other local agents reach the server through
	// (Socket makes one); "" is none.
	Listen string
	// OSPipes connects the editor over two os pipes, real file
	// descriptors as an editor's child process has, instead of net.Pipe.
	OSPipes bool
	Watch   workspace.WatchOptions
	// TrustDir and RulesDir hold the person's trust records and rules;
	// "" is a fresh temporary folder each, so no test reads the real ones.
	TrustDir, RulesDir string
	// SecretValues name the variables of the editor's environment whose
	// values are credentials (rpc.ServerConfig.SecretValues).
	SecretValues []string
}

// Question is one question the server put to the person.
type Question struct {
	ID        string `json:"id"`
	Session   string `json:"session"`
	Tool      string `json:"tool"`
	Summary   string `json:"summary"`
	Reason    string `json:"reason"`
	TimeoutMs int64  `json:"timeoutMs"`
	// What the prompt shows besides the summary.
	Agent       string   `json:"agent,omitempty"`
	Command     string   `json:"command,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	Targets     []string `json:"targets,omitempty"`
	Confinement string   `json:"confinement,omitempty"`
	// Rule is the rule "always allow" writes, when offered.
	Rule *struct {
		Match    string         `json:"match"`
		Decision string         `json:"decision"`
		Scope    string         `json:"scope"`
		Effects  *rules.Effects `json:"effects,omitempty"`
		Covers   string         `json:"covers,omitempty"`
	} `json:"rule,omitempty"`
	// NoRule says why no rule is offered; Content, Diff, Protects and
	// Fields are what is approved, shown.
	NoRule   string `json:"noRule,omitempty"`
	Content  string `json:"content,omitempty"`
	Diff     string `json:"diff,omitempty"`
	Protects string `json:"protects,omitempty"`
	// Proposed is the whole file the call leaves, for the diff view.
	Proposed    string            `json:"proposed,omitempty"`
	ProposedFor string            `json:"proposedFor,omitempty"`
	Fields      []approvals.Field `json:"fields,omitempty"`
	// Fallback: asked with window/showMessageRequest, which carries only
	// the message (in Summary).
	Fallback bool `json:"-"`
}

// Answer is what the person answers to q: "allow-once", "allow-session",
// "allow-always" or "deny". "" answers nothing: the question stays open until the server
// takes it back (its deadline, a cancellation) or the editor goes.
type Answer func(q Question) string

// Always answers every question with answer.
func Always(answer string) Answer { return func(Question) string { return answer } }

// Editor is the test's editor, connected to a running server. Every
// channel is buffered (4096); a notification that finds its channel full
// is dropped, so a test that does not read them never blocks the server.
type Editor struct {
	// Conn is the editor's connection, for calls the methods below do not
	// make (a call with its own context, to cancel it).
	Conn jsonrpc2.Conn
	// Socket is Options.Listen: the socket other local agents dial.
	Socket string

	Decided   <-chan gate.Verdict // admit/didDecide
	States    <-chan gate.State   // admit/didChangeState
	Cancelled <-chan string       // admit/approvalCancelled: the question's id
	Asked     <-chan Question     // every question, as it is asked
	Exited    <-chan int          // the server's exit code, once it returns

	t         testing.TB
	wire      io.Closer // the editor's end
	gone      chan struct{}
	goneOnce  sync.Once
	decided   chan gate.Verdict
	states    chan gate.State
	cancelled chan string
	asked     chan Question

	mu     sync.Mutex // guards answer
	answer Answer
}

// Start runs a server, connects an editor to it and initializes it with
// o (initialize, then initialized). The server stops when the test ends.
func Start(t testing.TB, o Options) *Editor {
	t.Helper()
	e := Connect(t, o)
	init := map[string]any{}
	for k, v := range o.Init {
		init[k] = v
	}
	if _, ok := init["tape"]; !ok {
		init["tape"] = filepath.Join(t.TempDir(), "tape.jsonl")
	}
	var folders []map[string]string
	for _, r := range o.Roots {
		folders = append(folders, map[string]string{"uri": "file://" + r, "name": filepath.Base(r)})
	}
	caps := map[string]any{}
	if o.Approve {
		caps["experimental"] = map[string]any{"admit": map[string]any{"approve": true}}
	}
	if o.ShowMessage {
		caps["window"] = map[string]any{"showMessage": map[string]any{}}
	}
	var res json.RawMessage
	e.Call("initialize", map[string]any{"processId": os.Getpid(), "workspaceFolders": folders, "capabilities": caps, "initializationOptions": init}, &res)
	e.Notify("initialized", map[string]any{})
	return e
}

// Connect runs a server and connects an editor to it, without
// initializing it: the test sends initialize itself. Only Home, Answer,
// Listen, OSPipes, Watch, TrustDir and RulesDir of o count.
func Connect(t testing.TB, o Options) *Editor {
	t.Helper()
	home := o.Home
	if home == "" {
		home = t.TempDir()
	}
	listen := o.Listen
	if listen == "" {
		listen = "none"
	}
	var cli, srv io.ReadWriteCloser
	if o.OSPipes {
		cli, srv = OSPipes(t)
	} else {
		cli, srv = net.Pipe()
	}
	exited := make(chan int, 1)
	e := &Editor{
		t: t, Socket: o.Listen, wire: cli, gone: make(chan struct{}), answer: o.Answer,
		decided: make(chan gate.Verdict, 4096), states: make(chan gate.State, 4096),
		cancelled: make(chan string, 4096), asked: make(chan Question, 4096),
	}
	e.Decided, e.States, e.Cancelled, e.Asked, e.Exited = e.decided, e.states, e.cancelled, e.asked, exited
	logger := slog.New(slog.DiscardHandler)
	if os.Getenv("ADMIT_TRACE") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if o.TrustDir == "" {
		o.TrustDir = filepath.Join(t.TempDir(), "trust")
	}
	if o.RulesDir == "" {
		o.RulesDir = filepath.Join(t.TempDir(), "rules")
	}
	cfg := rpc.ServerConfig{Logger: logger, Home: home, Bounds: policy.DefaultBounds(), Listen: listen, WatchOptions: o.Watch, TrustDir: o.TrustDir, RulesDir: o.RulesDir, SecretValues: o.SecretValues}
	stopped := make(chan struct{})
	go func() {
		exited <- rpc.Serve(context.Background(), srv, cfg)
		close(stopped)
	}()
	e.Conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(cli))
	e.Conn.Go(context.Background(), protocol.CancelHandler(e.handle))
	t.Cleanup(func() {
		e.Disconnect()
		select {
		case <-stopped:
		case <-time.After(WaitFor):
			t.Error("rpctest: the server did not stop after the editor went")
		}
	})
	return e
}

// Disconnect closes the editor's end of the wire, as when the editor's
// process dies, and gives up every question held open. It may be called
// more than once.
func (e *Editor) Disconnect() {
	e.goneOnce.Do(func() {
		close(e.gone)
		_ = e.wire.Close()
		_ = e.Conn.Close()
	})
}

// SetAnswer changes the person's answer from now on; nil holds every
// question open.
func (e *Editor) SetAnswer(a Answer) {
	e.mu.Lock()
	e.answer = a
	e.mu.Unlock()
}

// Call makes a request and decodes its result; an error fails the test.
func (e *Editor) Call(method string, params, result any) {
	e.t.Helper()
	if err := e.Try(method, params, result); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// Try makes a request and decodes its result, within WaitFor.
func (e *Editor) Try(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), WaitFor)
	defer cancel()
	_, err := e.Conn.Call(ctx, method, params, result)
	return err
}

// Notify sends a notification; an error fails the test.
func (e *Editor) Notify(method string, params any) {
	e.t.Helper()
	if err := e.Conn.Notify(context.Background(), method, params); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// AwaitState waits for an admit/didChangeState for which ok holds: the
// server sends one when its watcher sees the policy file change, after
// which every decision sees the change.
func (e *Editor) AwaitState(ok func(gate.State) bool) gate.State {
	e.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case s := <-e.states:
			if ok(s) {
				return s
			}
		case <-timeout:
			e.t.Fatal("rpctest: no admit/didChangeState as awaited within 10s")
		}
	}
}

// Check is admit/check with params (a gate.CheckParams, or a map for a
// call the struct cannot spell); an error fails the test.
func (e *Editor) Check(params any) gate.Verdict {
	e.t.Helper()
	var v gate.Verdict
	e.Call("admit/check", params, &v)
	return v
}

// handle is the editor's side: notifications go to their channels,
// questions are answered as scripted.
func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "admit/didDecide":
		var v gate.Verdict
		_ = json.Unmarshal(req.Params(), &v)
		offer(e.decided, v)
	case "admit/didChangeState":
		var s gate.State
		_ = json.Unmarshal(req.Params(), &s)
		offer(e.states, s)
	case "admit/approvalCancelled":
		var p struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		offer(e.cancelled, p.ID)
	case "admit/approve":
		var q Question
		_ = json.Unmarshal(req.Params(), &q)
		jsonrpc2.Async(ctx) // the answer may wait; the read loop goes on
		offer(e.asked, q)
		ans, err := e.reply(ctx, q)
		if err != nil {
			return nil, err
		}
		return map[string]string{"answer": ans}, nil
	case "window/showMessageRequest":
		var p protocol.ShowMessageRequestParams
		_ = protocol.Unmarshal(req.Params(), &p)
		jsonrpc2.Async(ctx)
		q := Question{Summary: p.Message, Fallback: true}
		offer(e.asked, q)
		ans, err := e.reply(ctx, q)
		if err != nil {
			return nil, err
		}
		title, ok := map[string]string{"allow-once": "Allow once", "allow-session": "Allow for this session", "deny": "Deny"}[ans]
		if !ok {
			return nil, fmt.Errorf("rpctest: %q is not an answer the fallback has a button for", ans)
		}
		return protocol.MessageActionItem{Title: title}, nil
	}
	return nil, nil
}

// reply is the scripted answer to q, or waits until the server takes q
// back or the editor goes.
func (e *Editor) reply(ctx context.Context, q Question) (string, error) {
	e.mu.Lock()
	a := e.answer
	e.mu.Unlock()
	if a != nil {
		if ans := a(q); ans != "" {
			return ans, nil
		}
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-e.gone:
		return "", context.Canceled
	}
}

func offer[T any](ch chan T, v T) {
	select {
	case ch <- v:
	default:
	}
}

// Within waits for the next value on ch, or fails the test after WaitFor.
func Within[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(WaitFor):
		t.Fatalf("rpctest: timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// Until waits for the first value on ch that ok accepts, skipping the
// others, or fails the test after WaitFor.
func Until[T any](t testing.TB, ch <-chan T, what string, ok func(T) bool) T {
	t.Helper()
	deadline := time.After(WaitFor)
	for {
		select {
		case v := <-ch:
			if ok(v) {
				return v
			}
		case <-deadline:
			t.Fatalf("rpctest: timed out waiting for %s", what)
		}
	}
}

// ErrCode is the JSON-RPC code of err, or 0.
func ErrCode(err error) jsonrpc2.Code {
	var we *jsonrpc2.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

// Socket is a path for a server's socket inside a temporary folder of the
// test, removed when it ends. A socket path has at most 108 bytes, so when
// t.TempDir() is too deep for one, the folder is a shorter one made in
// the system's temporary folder (and removed the same way).
func Socket(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	const name = "run/admit.sock" // in a folder the server makes
	if len(dir)+1+len(name) >= 104 {
		var err error
		if dir, err = os.MkdirTemp("", "admit-sock-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
	}
	return filepath.Join(dir, name)
}

// pipeEnd is one end of two os pipes: it reads one and writes the other.
type pipeEnd struct{ r, w *os.File }

func (p pipeEnd) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeEnd) Close() error {
	err := p.w.Close()
	if rerr := p.r.Close(); err == nil {
		err = rerr
	}
	return err
}

// OSPipes connects two ends through two os pipes, real file descriptors
// as an editor's child process has for stdio. Both are closed when the
// test ends.
func OSPipes(t testing.TB) (a, b io.ReadWriteCloser) {
	t.Helper()
	r1, w1, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	a, b = pipeEnd{r1, w2}, pipeEnd{r2, w1}
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	return a, b
}

// WaitForChild waits until a process named comm runs below parent (the
// program of an admitted run: admit's child, or the confiner's when the
// run uses one), and fails t after ten seconds. It reads /proc: Linux only.
func WaitForChild(t testing.TB, parent int, comm string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ppid := map[string]string{}
		var named []string
		dirs, _ := os.ReadDir("/proc")
		for _, d := range dirs {
			b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
			if err != nil {
				continue
			}
			s := string(b)
			open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
			f := strings.Fields(s[end+1:])
			if open < 0 || end < open || len(f) < 2 {
				continue
			}
			ppid[d.Name()] = f[1]
			if s[open+1:end] == comm {
				named = append(named, d.Name())
			}
		}
		for _, pid := range named {
			for p, hops := ppid[pid], 0; p != "" && hops < 3; p, hops = ppid[p], hops+1 {
				if p == strconv.Itoa(parent) {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s below %d started", comm, parent)
}
