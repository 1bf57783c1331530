package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"admit/approvals"
	"admit/policy"
	"admit/policy/tape"
	"admit/workspace"
)

// InitOptions are the initializationOptions the design names; all optional.
type InitOptions struct {
	Mode              string          `json:"mode,omitempty"`
	Effects           string          `json:"effects,omitempty"`
	Shell             string          `json:"shell,omitempty"`
	Policy            json.RawMessage `json:"policy,omitempty"`
	Tape              string          `json:"tape,omitempty"`
	Sync              string          `json:"sync,omitempty"`
	TapeRotateBytes   int64           `json:"tapeRotateBytes,omitempty"` // rotate the tape past this size; the chain goes on across files
	ApprovalTimeoutMs int64           `json:"approvalTimeoutMs,omitempty"`
	Headless          bool            `json:"headless,omitempty"`
}

// Initialize makes the workspace folders (or rootUri) the write roots, and
// starts the watcher, the tape and the approvals broker.
func (s *Server) Initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	if s.initialized.Load() {
		return nil, &ParamError{"initialize", "the server is already initialized"}
	}
	if s.hub != nil {
		return s.join()
	}
	var o InitOptions
	if len(p.InitializationOptions) > 0 && string(p.InitializationOptions) != "null" {
		if err := decode(p.InitializationOptions, &o); err != nil {
			pe := err.(*ParamError)
			return nil, &ParamError{"initializationOptions." + pe.Field, pe.Msg}
		}
	}
	o.Mode = orDefault(o.Mode, "warn")
	o.Effects = orDefault(o.Effects, s.cfg.Bounds.Effects)
	o.Effects = orDefault(o.Effects, "read-only")
	o.Shell = orDefault(o.Shell, "analyze")
	var file *policy.File
	if len(o.Policy) > 0 && string(o.Policy) != "null" {
		f, err := policy.ParseFile("initializationOptions.policy", o.Policy)
		if err != nil {
			return nil, &ParamError{"initializationOptions.policy", err.Error()}
		}
		file = f
	}
	sync, err := tape.ParseSync(o.Sync)
	if err != nil {
		return nil, &ParamError{"initializationOptions.sync", err.Error()}
	}
	dirs, err := folders(p)
	if err != nil {
		return nil, err
	}
	roots, err := workspace.NewRoots(dirs...)
	if err != nil {
		return nil, &ParamError{"workspaceFolders", err.Error()}
	}
	s.approve, s.showMsg = clientRendersApprovals(p)

	gcfg := GateConfig{Mode: o.Mode, Effects: o.Effects, Shell: o.Shell, Roots: roots, Logger: s.log, Now: s.cfg.Now, Home: s.cfg.Home, Bounds: s.cfg.Bounds, Policy: file, Headless: o.Headless}
	if err := validateSettings(o.Mode, o.Effects, o.Shell); err != nil {
		pe := err.(*ParamError)
		return nil, &ParamError{"initializationOptions." + pe.Field, pe.Msg}
	}
	tapePath := o.Tape
	if tapePath == "" {
		if tapePath, err = tape.DefaultPath(); err != nil {
			s.log.Error("no tape path", "err", err)
		}
	}
	if o.TapeRotateBytes < 0 {
		return nil, &ParamError{"initializationOptions.tapeRotateBytes", fmt.Sprintf("must not be negative, got %d", o.TapeRotateBytes)}
	}
	t, err := tape.Open(tapePath, tape.Options{Sync: sync, RotateBytes: o.TapeRotateBytes, Logger: s.log, Now: s.cfg.Now})
	if err != nil {
		// The gate still answers; in enforce every call is refused as
		// tape-unwritable until the tape can be written.
		s.log.Error("tape cannot be opened", "path", tapePath, "err", err)
		gcfg.TapeErr = err
	} else {
		gcfg.Tape = t
	}
	w, err := workspace.NewWatcher(roots, s.log, s.cfg.WatchOptions)
	if err != nil {
		s.log.Error("watcher cannot start; decisions stay correct, staleness is found at decision time", "err", err)
	}
	gcfg.Resolver = workspace.NewResolver(roots)
	st := newStateNotifier(s.conn, s.log)
	var asker approvals.Asker
	if s.approve || s.showMsg {
		asker = &clientAsker{s: s}
	}
	b := approvals.New(asker, approvals.Options{Timeout: time.Duration(o.ApprovalTimeoutMs) * time.Millisecond, Now: s.cfg.Now, Logger: s.log, OnChange: st.changed})
	gcfg.Approvals, gcfg.Notifier = b, &notifier{out: s.out, state: st}
	g := NewGate(gcfg)
	st.source = g.State
	if w != nil {
		w.OnChange(g.MarkChanged)
	}
	h := &host{gate: g, roots: roots, watcher: w, tape: t, broker: b, state: st}
	if s.cfg.Listen != "none" {
		path := s.cfg.Listen
		if path == "" && len(roots.List()) > 0 {
			path = DefaultSocket(roots.List()[0])
		}
		if path != "" {
			l, err := listen(path, s.log, s.cfg, &hub{h: h})
			if err != nil {
				s.log.Warn("no socket for other agents", "path", path, "err", err)
			} else {
				h.listener = l
				g.socket = path
			}
		}
	}
	s.mu.Lock()
	s.host = h
	s.mu.Unlock()
	s.initialized.Store(true)

	return initializeResult(), nil
}

func initializeResult() *protocol.InitializeResult {
	caps, _ := json.Marshal(map[string]any{"admit": map[string]any{
		"version": Version, "modes": []string{"off", "warn", "enforce"}, "effects": []string{"read-only", "workspace-write"},
		"shell": []string{"analyze", "refuse"},
	}})
	return &protocol.InitializeResult{
		ServerInfo:   protocol.ServerInfo{Name: "admit", Version: protocol.NewOptional(Version)},
		Capabilities: protocol.ServerCapabilities{Experimental: caps},
	}
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
				return nil, &ParamError{fmt.Sprintf("workspaceFolders[%d].uri", i), err.Error()}
			}
			out = append(out, d)
		}
		return out, nil
	}
	if p.RootURI != nil && *p.RootURI != "" {
		d, err := uriPath(*p.RootURI)
		if err != nil {
			return nil, &ParamError{"rootUri", err.Error()}
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
	roots, w, g := h.roots, h.watcher, h.gate
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
	g.stateChanged()
	return nil
}

// DidChangeConfiguration applies the editor's admit.* settings: mode,
// effects and shell profile. Either {"admit": {...}} or the bare object.
func (s *Server) DidChangeConfiguration(ctx context.Context, p *protocol.DidChangeConfigurationParams) error {
	var wrapped struct {
		Admit *InitOptions `json:"admit"`
	}
	var o InitOptions
	if len(p.Settings) == 0 || string(p.Settings) == "null" {
		return nil
	}
	if err := json.Unmarshal(p.Settings, &wrapped); err == nil && wrapped.Admit != nil {
		o = *wrapped.Admit
	} else if err := json.Unmarshal(p.Settings, &o); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	return s.getGate().SetMode(o.Mode, o.Effects, o.Shell)
}
