package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"admit/policy"
	"admit/rpc/gate"
	"admit/workspace"
)

// waitFor is how long a test waits for something the server must do. It
// is a deadline, not a sleep: a passing test never waits for it.
const waitFor = 10 * time.Second

// fakeEditor is a small client driving the real server over a pipe, with
// scripted answers to approval requests.
type fakeEditor struct {
	t         *testing.T
	conn      jsonrpc2.Conn
	pipe      net.Conn      // the editor's end of the wire
	gone      chan struct{} // closed when the test ends: questions held open give up
	decided   chan gate.Verdict
	states    chan gate.State
	cancelled chan string
	asked     chan approveParams
	exitCode  chan int

	// mu guards answer.
	mu     sync.Mutex
	answer func(p approveParams) (string, bool) // the answer, and whether to answer at all
}

type editorOptions struct {
	init    map[string]any // initializationOptions
	approve bool           // declare capabilities.experimental.admit.approve
	showMsg bool           // declare window.showMessage
	roots   []string
	listen  string // socket path; "" for none
	watch   workspace.WatchOptions
	// trustDir holds the trust records; "" is a temporary folder.
	trustDir string
}

// startEditor starts a server on one end of a pipe and a fake editor on
// the other, and initializes it.
func startEditor(t *testing.T, o editorOptions) *fakeEditor {
	t.Helper()
	if o.init == nil {
		o.init = map[string]any{}
	}
	if _, ok := o.init["tape"]; !ok {
		o.init["tape"] = filepath.Join(t.TempDir(), "tape.jsonl")
	}
	if o.trustDir == "" {
		o.trustDir = filepath.Join(t.TempDir(), "trust")
	}
	e := newEditorWith(t, o.listen, o.watch, o.trustDir)
	var folders []map[string]string
	for _, r := range o.roots {
		folders = append(folders, map[string]string{"uri": "file://" + r, "name": filepath.Base(r)})
	}
	caps := map[string]any{}
	if o.approve {
		caps["experimental"] = map[string]any{"admit": map[string]any{"approve": true}}
	}
	if o.showMsg {
		caps["window"] = map[string]any{"showMessage": map[string]any{}}
	}
	var res json.RawMessage
	e.call("initialize", map[string]any{"processId": os.Getpid(), "workspaceFolders": folders, "capabilities": caps, "initializationOptions": o.init}, &res)
	e.notify("initialized", map[string]any{})
	return e
}

// newEditor starts a server on one end of a pipe and a fake editor on the
// other, without initializing.
func newEditor(t *testing.T) *fakeEditor {
	return newEditorWith(t, "", workspace.WatchOptions{}, filepath.Join(t.TempDir(), "trust"))
}

func newEditorWith(t *testing.T, listen string, watch workspace.WatchOptions, trustDir string) *fakeEditor {
	t.Helper()
	if listen == "" {
		listen = "none"
	}
	cli, srv := net.Pipe()
	e := &fakeEditor{t: t, decided: make(chan gate.Verdict, 4096), states: make(chan gate.State, 4096), cancelled: make(chan string, 256), asked: make(chan approveParams, 256), exitCode: make(chan int, 1)}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	go func() {
		e.exitCode <- Serve(context.Background(), srv, ServerConfig{Logger: logger, Home: t.TempDir(), Bounds: policy.DefaultBounds(), Listen: listen, WatchOptions: watch, TrustDir: trustDir})
	}()
	e.pipe = cli
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(cli))
	e.conn.Go(context.Background(), protocol.CancelHandler(e.handle))
	e.gone = make(chan struct{})
	t.Cleanup(func() {
		close(e.gone)
		_ = e.pipe.Close()
		_ = e.conn.Close()
	})
	return e
}

func (e *fakeEditor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "admit/didDecide":
		var v gate.Verdict
		_ = json.Unmarshal(req.Params(), &v)
		e.decided <- v
	case "admit/didChangeState":
		var s gate.State
		_ = json.Unmarshal(req.Params(), &s)
		select {
		case e.states <- s:
		default:
		}
	case "admit/approvalCancelled":
		var p struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		e.cancelled <- p.ID
	case "admit/approve":
		var p approveParams
		_ = json.Unmarshal(req.Params(), &p)
		jsonrpc2.Async(ctx)
		e.asked <- p
		return e.reply(ctx, p)
	case "window/showMessageRequest":
		var p protocol.ShowMessageRequestParams
		_ = protocol.Unmarshal(req.Params(), &p)
		jsonrpc2.Async(ctx)
		ap := approveParams{Summary: p.Message}
		e.asked <- ap
		ans, err := e.reply(ctx, ap)
		if err != nil || ans == nil {
			return nil, err
		}
		title := map[string]string{"allow-once": "Allow once", "allow-session": "Allow for this session", "deny": "Deny"}[ans.(map[string]string)["answer"]]
		return protocol.MessageActionItem{Title: title}, nil
	}
	return nil, nil
}

// reply answers a question as scripted, or holds it until the server
// takes it back.
func (e *fakeEditor) reply(ctx context.Context, p approveParams) (any, error) {
	e.mu.Lock()
	f := e.answer
	e.mu.Unlock()
	if f == nil {
		return e.hold(ctx)
	}
	ans, ok := f(p)
	if !ok {
		return e.hold(ctx)
	}
	return map[string]string{"answer": ans}, nil
}

// hold keeps a question open until the server takes it back or the test ends.
func (e *fakeEditor) hold(ctx context.Context) (any, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-e.gone:
		return nil, context.Canceled
	}
}

func (e *fakeEditor) setAnswer(f func(p approveParams) (string, bool)) {
	e.mu.Lock()
	e.answer = f
	e.mu.Unlock()
}

func (e *fakeEditor) call(method string, params, result any) {
	e.t.Helper()
	if err := e.try(method, params, result); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

func (e *fakeEditor) try(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	_, err := e.conn.Call(ctx, method, params, result)
	return err
}

func (e *fakeEditor) notify(method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), method, params); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

func (e *fakeEditor) check(p map[string]any) gate.Verdict {
	e.t.Helper()
	var v gate.Verdict
	e.call("admit/check", p, &v)
	return v
}

// errCode is the JSON-RPC code of err, or 0.
func errCode(err error) jsonrpc2.Code {
	var we *jsonrpc2.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

// workspaceDir makes a workspace folder with a few files.
func workspaceDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	for _, p := range []string{"src/a.go", "README.md", "notes.txt"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(ws, p), []byte("hello "+p+"\n"), 0o644))
	}
	return ws
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitFor):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// policyCaps is a capability set granting tools.
func policyCaps(label string, tools ...string) policy.CapsSpec {
	return policy.CapsSpec{Label: label, Allow: tools}
}
