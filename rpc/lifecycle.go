package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"admit/approvals"
	"admit/gate"
	"admit/policy"
	"admit/policy/shell"
	"admit/tape"
	"admit/workspace"
)

// InitOptions are the initializationOptions docs/protocol.md names; all
// optional. The gate's settings are gate.Settings, inline; the rest is
// the server's (the tape, the approvals' timeout, the policy file).
type InitOptions struct {
	gate.Settings
	Policy            json.RawMessage `json:"policy,omitempty"`
	Tape              string          `json:"tape,omitempty"`
	Sync              string          `json:"sync,omitempty"`
	TapeRotateBytes   int64           `json:"tapeRotateBytes,omitempty"` // rotate the tape past this size; the chain goes on across files
	ApprovalTimeoutMs int64           `json:"approvalTimeoutMs,omitempty"`
	Headless          bool            `json:"headless,omitempty"`
}

// Initialize makes the workspace folders (or rootUri) the write roots, and
// starts the gate with its tape, the watcher, the approvals broker and the
// socket for other local agents.
func (s *Server) Initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	if s.initialized.Load() {
		return nil, &gate.ParamError{Field: "initialize", Msg: "the server is already initialized"}
	}
	if s.hub != nil {
		return s.join()
	}
	var o InitOptions
	if len(p.InitializationOptions) > 0 && string(p.InitializationOptions) != "null" {
		if err := decode(p.InitializationOptions, &o); err != nil {
			return nil, prefixed("initializationOptions.", err)
		}
	}
	var file *policy.File
	if len(o.Policy) > 0 && string(o.Policy) != "null" {
		f, err := policy.ParseFile("initializationOptions.policy", o.Policy)
		if err != nil {
			return nil, &gate.ParamError{Field: "initializationOptions.policy", Msg: err.Error()}
		}
		file = f
	}
	sync, err := tape.ParseSync(o.Sync)
	if err != nil {
		return nil, &gate.ParamError{Field: "initializationOptions.sync", Msg: err.Error()}
	}
	if o.TapeRotateBytes < 0 {
		return nil, &gate.ParamError{Field: "initializationOptions.tapeRotateBytes", Msg: fmt.Sprintf("must not be negative, got %d", o.TapeRotateBytes)}
	}
	dirs, err := folders(p)
	if err != nil {
		return nil, err
	}
	tapePath := o.Tape
	if tapePath == "" {
		if tapePath, err = tape.DefaultPath(); err != nil {
			s.log.Error("no tape path", "err", err)
		}
	}
	approve, showMsg := clientRendersApprovals(p)
	st := newStateNotifier(s.conn, s.log, func() (gate.State, bool) {
		if s.getHost() == nil {
			return gate.State{}, false
		}
		return s.fullState(), true
	})
	var asker approvals.Asker
	if approve || showMsg {
		asker = &clientAsker{s: s, approve: approve}
	}
	b := approvals.New(asker, approvals.Options{Timeout: time.Duration(o.ApprovalTimeoutMs) * time.Millisecond, Now: s.cfg.Now, Logger: s.log, OnChange: st.changed})
	settings := o.Settings
	settings.Mode = orDefault(settings.Mode, "warn") // the editor's default
	g, err := gate.Open(gate.Options{
		Dirs: dirs, Settings: settings, Policy: file,
		TapePath: tapePath, Tape: tape.Options{Sync: sync, RotateBytes: o.TapeRotateBytes},
		Headless: o.Headless, Bounds: s.cfg.Bounds, Home: s.cfg.Home, PersonShell: s.cfg.Shell, SecretValues: s.cfg.SecretValues, Trust: trustStore(s.cfg.TrustDir), Rules: ruleStore(s.cfg.RulesDir, dirs),
		Approvals: b, Notifier: &notifier{out: s.out, state: st}, Logger: s.log, Now: s.cfg.Now, Export: s.cfg.Export,
	})
	if err != nil {
		st.close()
		b.Close()
		return nil, prefixed("initializationOptions.", err)
	}
	w, err := workspace.NewWatcher(g.Roots(), s.log, s.cfg.WatchOptions)
	if err != nil {
		s.log.Error("watcher cannot start; decisions stay correct, staleness is found at decision time", "err", err)
	} else {
		w.OnChange(g.MarkChanged)
		g.CaptureWith(w)
	}
	h := &host{gate: g, watcher: w, broker: b, state: st}
	if s.cfg.Listen != "none" {
		path := s.cfg.Listen
		if roots := g.Roots().List(); path == "" && len(roots) > 0 {
			path = DefaultSocket(roots[0])
		}
		if path != "" {
			l, err := listen(path, s.log, s.cfg, &hub{h: h})
			if err != nil {
				s.log.Warn("no socket for other agents", "path", path, "err", err)
			} else {
				h.listener = l
			}
		}
	}
	s.mu.Lock()
	s.host = h
	s.mu.Unlock()
	s.initialized.Store(true)
	st.changed()
	return initializeResult(), nil
}

// trustStore is the store in dir, or nil for the default one.
func trustStore(dir string) *gate.TrustStore {
	if dir == "" {
		return nil
	}
	return gate.NewTrustStore(dir)
}

// ruleStore is the store in dir for the first of dirs, or nil for the
// default one.
func ruleStore(dir string, dirs []string) *gate.RuleStore {
	if dir == "" {
		return nil
	}
	first := ""
	if len(dirs) > 0 {
		first = dirs[0]
	}
	return gate.NewRuleStore(dir, first)
}

// prefixed names a ParamError's field from the params' root (the roots
// become workspaceFolders); any other error passes unchanged.
func prefixed(prefix string, err error) error {
	var pe *gate.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	if pe.Field == "roots" {
		return &gate.ParamError{Field: "workspaceFolders", Msg: pe.Msg}
	}
	return &gate.ParamError{Field: prefix + pe.Field, Msg: pe.Msg}
}

func initializeResult() *protocol.InitializeResult {
	caps, _ := json.Marshal(map[string]any{"admit": map[string]any{
		"version": Version, "modes": []string{"off", "warn", "enforce"}, "effects": []string{"read-only", "workspace-write"},
		"shell": shellProfiles(),
	}})
	return &protocol.InitializeResult{
		ServerInfo:   protocol.ServerInfo{Name: "admit", Version: protocol.NewOptional(Version)},
		Capabilities: protocol.ServerCapabilities{Experimental: caps},
	}
}

// shellProfiles names the shell profiles a client may choose.
func shellProfiles() []string {
	var out []string
	for _, p := range shell.Profiles() {
		out = append(out, string(p))
	}
	return out
}

// join attaches a socket connection to the editor's gate: same policy, same
// tape, and its approvals are asked in the editor.
func (s *Server) join() (*protocol.InitializeResult, error) {
	h := s.hub.get()
	if h == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "initialize: the editor has not initialized this server yet")
	}
	s.mu.Lock()
	s.host = h
	s.mu.Unlock()
	s.initialized.Store(true)
	return initializeResult(), nil
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// folders lists the workspace folders, else rootUri, else rootPath.
func folders(p *protocol.InitializeParams) ([]string, error) {
	var out []string
	if fs, ok := p.WorkspaceFolders.Get(); ok {
		for i, f := range fs {
			d, err := uriPath(f.URI)
			if err != nil {
				return nil, &gate.ParamError{Field: fmt.Sprintf("workspaceFolders[%d].uri", i), Msg: err.Error()}
			}
			out = append(out, d)
		}
		return out, nil
	}
	if p.RootURI != nil && *p.RootURI != "" {
		d, err := uriPath(*p.RootURI)
		if err != nil {
			return nil, &gate.ParamError{Field: "rootUri", Msg: err.Error()}
		}
		return []string{d}, nil
	}
	if rp, ok := p.RootPath.Get(); ok && rp != "" {
		return []string{rp}, nil
	}
	return nil, nil
}

func uriPath(u uri.URI) (string, error) {
	if !strings.HasPrefix(string(u), "file://") {
		return "", fmt.Errorf("%q is not a file URI", u)
	}
	p := u.FsPath()
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not an absolute file URI", u)
	}
	return p, nil
}

// clientRendersApprovals reads what the client can show: admit/approve
// (capabilities.experimental.admit.approve) or window/showMessageRequest.
func clientRendersApprovals(p *protocol.InitializeParams) (approve, showMsg bool) {
	var exp struct {
		Admit struct {
			Approve bool `json:"approve"`
		} `json:"admit"`
	}
	if len(p.Capabilities.Experimental) > 0 {
		_ = json.Unmarshal(p.Capabilities.Experimental, &exp)
	}
	w := p.Capabilities.Window
	return exp.Admit.Approve, w != nil && w.ShowMessage != nil
}

// Initialized needs nothing more: initialize did the work.
func (s *Server) Initialized(context.Context, *protocol.InitializedParams) error { return nil }

// Shutdown refuses every pending approval at once; exit follows.
func (s *Server) Shutdown(context.Context) error {
	s.shutdown.Store(true)
	if h := s.getHost(); h != nil && s.hub == nil {
		h.broker.Close()
	}
	return nil
}

// Exit ends the server; Serve returns the exit code.
func (s *Server) Exit(context.Context) error {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil
}

// DidChangeWorkspaceFolders adds and removes write roots while running.
func (s *Server) DidChangeWorkspaceFolders(ctx context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	h := s.getHost()
	if s.hub != nil {
		return nil // the editor's folders are the roots, not a socket client's
	}
	roots, w := h.gate.Roots(), h.watcher
	for _, f := range p.Event.Removed {
		if d, err := uriPath(f.URI); err == nil {
			if w != nil {
				w.RemoveRoot(d) // the watcher keeps the roots it watches
			} else {
				roots.Remove(d)
			}
		}
	}
	for _, f := range p.Event.Added {
		d, err := uriPath(f.URI)
		if err != nil {
			s.log.Warn("workspace folder ignored", "uri", f.URI, "err", err)
			continue
		}
		if w != nil {
			_, err = w.AddRoot(d)
		} else {
			_, err = roots.Add(d)
		}
		if err != nil {
			s.log.Warn("workspace folder ignored", "uri", f.URI, "err", err)
		}
	}
	h.state.changed()
	return nil
}

// DidChangeConfiguration applies the editor's admit.* settings: mode,
// effects, shell profile, secret patterns, confined runs, weaker
// confinement and the approval timeout. Either {"admit": {...}} or the bare object.
func (s *Server) DidChangeConfiguration(ctx context.Context, p *protocol.DidChangeConfigurationParams) error {
	if s.hub != nil {
		s.log.Warn("workspace/didChangeConfiguration from a socket connection ignored: only the editor configures the gate")
		return nil
	}
	if len(p.Settings) == 0 || string(p.Settings) == "null" {
		return nil
	}
	// Strictly, like initializationOptions: a misspelt setting is an error
	// that names it, never a setting silently left as it was.
	var o InitOptions
	var wrapped struct {
		Admit *json.RawMessage `json:"admit"`
	}
	if json.Unmarshal(p.Settings, &wrapped) == nil && wrapped.Admit != nil {
		if err := decode(*wrapped.Admit, &o); err != nil {
			return prefixed("settings.admit.", err)
		}
	} else if err := decode(p.Settings, &o); err != nil {
		return prefixed("settings.", err)
	}
	h := s.getHost()
	if err := h.gate.SetSettings(o.Settings); err != nil {
		return err
	}
	if o.ApprovalTimeoutMs > 0 {
		h.broker.SetTimeout(time.Duration(o.ApprovalTimeoutMs) * time.Millisecond)
	}
	return nil
}
