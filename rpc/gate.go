package rpc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"admit/approvals"
	"admit/policy"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/policy/shell"
	"admit/policy/tape"
	"admit/workspace"
)

// Verdict is the door's answer to one call, as the design's contract has it.
type Verdict struct {
	ID        string   `json:"id"`
	Verdict   string   `json:"verdict"` // "allow" or "deny"
	Allowed   bool     `json:"allowed"` // what the agent must do: true when allowed, or when the mode is not enforce
	Mode      string   `json:"mode"`
	Rule      string   `json:"rule"`
	Reason    string   `json:"reason"`
	Kind      string   `json:"kind,omitempty"`
	Targets   []string `json:"targets,omitempty"`
	ToolError string   `json:"toolError,omitempty"`
	DecidedBy string   `json:"decidedBy,omitempty"`
	Session   string   `json:"session,omitempty"`
	Tool      string   `json:"tool,omitempty"`
	Summary   string   `json:"summary,omitempty"`
}

// Notifier tells the client what changed. The server implements it; the
// command line leaves it nil.
type Notifier interface {
	// DidDecide gets a verdict as it goes on the wire: marshalled once
	// for the notification and the reply.
	DidDecide(verdict json.RawMessage)
	StateChanged()
}

// GateConfig holds a Gate's dependencies.
type GateConfig struct {
	Mode, Effects, Shell string
	Roots                *workspace.Roots
	Resolver             *workspace.Resolver
	Tape                 *tape.Tape // nil: decisions are not taped (admit check without --tape)
	TapeErr              error      // the tape could not be opened: every decision reports it
	Approvals            *approvals.Broker
	Notifier             Notifier
	Logger               *slog.Logger
	Now                  func() time.Time
	Home                 string
	Bounds               policy.Bounds // for opened sessions and command-line runs
	Policy               *policy.File  // nil: read .admit/policy.json from the roots, else the built-in
	Headless             bool
}

// Gate is the one door: mode, policy, approvals and the tape, in order.
type Gate struct {
	cfg      GateConfig
	commands *command.Policy
	nobody   *approvals.Broker // answers for a gate with no one to ask
	idPrefix string
	seq      atomic.Int64
	counts   struct{ allowed, denied, wouldDeny atomic.Int64 }

	// mu guards the settings, the sessions and the loaded policy file below.
	mu         sync.Mutex
	mode       string
	effects    string
	shell      string
	sessions   map[string]*session
	file       loadedPolicy
	tapeErr    string
	sessionSeq int64
	socket     string // where other local agents reach this gate
}

// loadedPolicy is the workspace policy file as last read, keyed by its
// identity so a change is noticed at decision time without the watcher.
type loadedPolicy struct {
	path  string
	stamp fileStamp
	file  *policy.File
	table *command.Policy
	hash  string
	err   error
	caps  *policy.Caps // the default session's, for rootsKey
	roots string
	// shellTools are the tools whose calls carry a command line: the
	// file's (or the built-in list) and admit.run.
	shellTools []string
}

// fileStamp identifies a file's version without reading it.
type fileStamp struct {
	size, mtime, ctime int64
	ino                uint64
}

// NewGate builds a gate. Modes and effects are validated by the caller.
func NewGate(cfg GateConfig) *Gate {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	g := &Gate{
		cfg:      cfg,
		commands: command.New(nil),
		nobody:   approvals.New(nil, approvals.Options{Now: cfg.Now}),
		idPrefix: strconv.FormatInt(cfg.Now().UnixMilli(), 36),
		mode:     cfg.Mode,
		effects:  cfg.Effects,
		shell:    cfg.Shell,
		sessions: map[string]*session{},
	}
	def := newSession(defaultSession, "default", cfg.Now())
	def.bounds = cfg.Bounds // its retry bound; it has no step or time budget
	g.sessions[defaultSession] = def
	return g
}

// CheckParams is one call put to the door.
type CheckParams struct {
	Session string          `json:"session,omitempty"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Command string          `json:"command,omitempty"`
	Argv    []string        `json:"argv,omitempty"` // a command as literal words, judged without a shell
	Cwd     string          `json:"cwd,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`
}

// ParamError is a malformed request: the server answers it with -32602.
type ParamError struct{ Field, Msg string }

func (e *ParamError) Error() string {
	if e.Field == "" {
		return e.Msg // the message names the field itself
	}
	return e.Field + ": " + e.Msg
}

// Decided is a verdict with what the gate learnt deciding it, for the
// handlers that act on an admitted call (run, read, edit, write).
type Decided struct {
	Verdict  Verdict
	Decision policy.Decision
	session  *session
	cwd      string
	roots    []string
	record   *tape.Record
	wire     json.RawMessage // Verdict marshalled, when a notifier took it
}

// Check decides one call: it runs the decision order, asks a person when a
// rule says so, tapes the decision and notifies the client.
func (g *Gate) Check(ctx context.Context, p CheckParams) (Verdict, error) {
	d, err := g.Decide(ctx, p, nil)
	if err != nil {
		return Verdict{}, err
	}
	return d.Verdict, nil
}

// Decide is Check returning what the acting handlers need. amend, when
// given, may refuse a decision the policy admitted, before anyone is asked
// and before the tape: the file tools bind a change to the bytes read.
func (g *Gate) Decide(ctx context.Context, p CheckParams, amend func(d *policy.Decision)) (*Decided, error) {
	mode := g.Mode()
	if mode == "off" {
		return &Decided{Verdict: Verdict{ID: g.newID(), Verdict: "allow", Allowed: true, Mode: mode, Rule: "caps-off", Reason: "the gate is off: nothing was checked or recorded", Tool: p.Tool}}, nil
	}
	s, err := g.session(p.Session)
	if err != nil {
		return nil, err
	}
	env, hash, err := g.env(s)
	call := policy.Call{Tool: p.Tool, Args: p.Args, Command: p.Command, Argv: p.Argv}
	var d policy.Decision
	if err != nil {
		d = policy.Decision{Rule: "policy-invalid", Reason: "the workspace policy file cannot be used, so the gate stays closed: " + err.Error(), Kind: "read", Summary: p.Tool}
	} else {
		call.Cwd, err = g.cwd(s, p.Cwd, env.Roots)
		if err != nil {
			d = policy.Decision{Rule: "outside-workspace", Reason: err.Error(), Kind: "read", Summary: p.Tool}
		} else {
			env.Budget = s.spend(p, g.cfg.Now())
			d = policy.Decide(call, env)
			if amend != nil && (d.Allowed || d.Ask) {
				amend(&d)
			}
			if why := s.tainted(); why != "" && d.Kind == "write" && (d.Allowed || d.Ask) {
				// An earlier run changed what it was not admitted to: a
				// person acknowledges that before the session writes again.
				d.Allowed, d.Ask, d.Rule = false, true, "unexpected-effect"
				d.Reason = "an earlier run in this session " + why + "; a person must acknowledge it before the next change"
			}
		}
	}
	out := &Decided{Decision: d, session: s, cwd: call.Cwd}
	if env != nil {
		out.roots = env.Roots
	}
	v := Verdict{ID: g.newID(), Mode: mode, Rule: string(d.Rule), Reason: d.Reason, Kind: d.Kind, Targets: d.Targets(), Session: s.id, Tool: p.Tool, Summary: d.Summary, DecidedBy: "rule"}
	rec := &tape.Record{ID: v.ID, Session: s.id, Mode: rule.Mode(mode), Tool: p.Tool, Command: commandOf(p), Args: p.Args, Context: p.Context, Policy: hash, DecidedBy: "rule"}
	switch {
	case d.Allowed:
		v.Verdict, v.Allowed = "allow", true
	case d.Ask && mode == "enforce":
		ctx = released(ctx)
		o := g.ask(ctx, s, p, v, d)
		rec.AskedAt, rec.WaitedMs = o.AskedAt, o.Waited.Milliseconds()
		v.DecidedBy = string(o.DecidedBy)
		if o.Allowed && d.Rule == "unexpected-effect" {
			s.acknowledge()
		}
		v.Allowed = o.Allowed
		v.Verdict = map[bool]string{true: "allow", false: "deny"}[o.Allowed]
		if o.DecidedBy == rule.ByHeadless {
			v.Reason = d.Reason + "; " + o.Reason // keep the rule that asked: it says what to change
		} else {
			v.Rule, v.Reason = string(o.Rule), o.Reason
		}
	default:
		v.Verdict, v.Allowed = "deny", mode != "enforce"
	}
	rec.Verdict, rec.Allowed, rec.Rule, rec.Reason, rec.Kind, rec.Targets, rec.DecidedBy = rule.Verdict(v.Verdict), v.Allowed, rule.Rule(v.Rule), v.Reason, v.Kind, v.Targets, rule.DecidedBy(v.DecidedBy)
	if err := g.tape(ctx, rec); err != nil {
		if mode == "enforce" {
			v.Verdict, v.Allowed, v.Rule = "deny", false, "tape-unwritable"
			v.Reason = "the decision could not be written to the tape, so the call may not run: " + err.Error()
		}
	}
	if v.Verdict == "deny" {
		v.ToolError = policy.ToolError(rule.Rule(v.Rule), v.Reason, d.Hint)
		s.refused(p)
	}
	if v.Verdict == "allow" {
		s.forgetRefusals()
	}
	if v.Allowed {
		g.observe(s, d)
	}
	out.wire = g.count(v)
	out.Verdict, out.record = v, rec
	return out, nil
}

// ask puts the call to a person, or refuses it when a grant or a rule says.
func (g *Gate) ask(ctx context.Context, s *session, p CheckParams, v Verdict, d policy.Decision) approvals.Outcome {
	b := g.cfg.Approvals
	if b == nil || g.headless() {
		b = g.nobody
	}
	return b.Decide(ctx, approvals.Question{ID: v.ID, Session: s.id, Tool: p.Tool, Summary: d.Summary, Reason: d.Reason, Grant: d.Grant})
}

func (g *Gate) headless() bool {
	if g.cfg.Headless {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.file.file != nil && g.file.file.Headless
}

// tape writes the record; a failure is logged and reported in the state.
func (g *Gate) tape(ctx context.Context, rec *tape.Record) error {
	err := g.cfg.TapeErr
	if g.cfg.Tape != nil {
		if g.cfg.Tape.Sync() != tape.SyncNone {
			ctx = released(ctx) // the record waits for the disk
		}
		err = g.cfg.Tape.Append(context.WithoutCancel(ctx), rec)
	} else if err == nil {
		return nil
	}
	g.mu.Lock()
	changed := (err == nil) != (g.tapeErr == "")
	if err != nil {
		g.tapeErr = err.Error()
	} else {
		g.tapeErr = ""
	}
	g.mu.Unlock()
	if err != nil {
		g.cfg.Logger.Error("tape write failed", "err", err, "id", rec.ID)
	}
	if changed {
		g.stateChanged()
	}
	return err
}

// Retape appends a follow-up record for an acting handler (a run's
// effects, a file tool's readback), chained like any other.
func (g *Gate) Retape(ctx context.Context, d *Decided, fill func(r *tape.Record)) {
	if d.record == nil {
		return
	}
	r := *d.record
	r.Time, r.Prev = time.Time{}, ""
	fill(&r)
	_ = g.tape(ctx, &r)
}

func (g *Gate) observe(s *session, d policy.Decision) {
	for _, p := range d.Reads {
		s.obs.RecordFile(p)
	}
	for _, p := range d.Listed {
		s.obs.RecordDir(p)
	}
}

// count counts the verdict and tells the client; it returns the verdict
// marshalled for the notification (nil without a notifier).
func (g *Gate) count(v Verdict) json.RawMessage {
	switch {
	case v.Verdict == "allow":
		g.counts.allowed.Add(1)
	case v.Allowed:
		g.counts.wouldDeny.Add(1)
	default:
		g.counts.denied.Add(1)
	}
	wire := g.notifyDecided(v)
	g.stateChanged()
	return wire
}

// notifyDecided sends admit/didDecide for v and returns v marshalled.
func (g *Gate) notifyDecided(v Verdict) json.RawMessage {
	n := g.cfg.Notifier
	if n == nil {
		return nil
	}
	wire := v.appendJSON(make([]byte, 0, 512))
	n.DidDecide(wire)
	return wire
}

// appendJSON appends v as JSON, byte for byte what the protocol's encoder
// makes of it (invalid UTF-8 becomes U+FFFD), without reflection: every
// decision is marshalled once, on the read loop.
func (v *Verdict) appendJSON(b []byte) []byte {
	str := func(b []byte, key, s string) []byte {
		b = append(b, key...)
		b, _ = jsontext.AppendQuote(b, s) // the error is invalid UTF-8, already replaced
		return b
	}
	b = str(b, `{"id":`, v.ID)
	b = str(b, `,"verdict":`, v.Verdict)
	b = append(b, `,"allowed":`...)
	b = strconv.AppendBool(b, v.Allowed)
	b = str(b, `,"mode":`, v.Mode)
	b = str(b, `,"rule":`, v.Rule)
	b = str(b, `,"reason":`, v.Reason)
	if v.Kind != "" {
		b = str(b, `,"kind":`, v.Kind)
	}
	if len(v.Targets) > 0 {
		b = append(b, `,"targets":[`...)
		for i, t := range v.Targets {
			if i > 0 {
				b = append(b, ',')
			}
			b = str(b, "", t)
		}
		b = append(b, ']')
	}
	for _, f := range [...]struct{ key, val string }{
		{`,"toolError":`, v.ToolError}, {`,"decidedBy":`, v.DecidedBy}, {`,"session":`, v.Session},
		{`,"tool":`, v.Tool}, {`,"summary":`, v.Summary},
	} {
		if f.val != "" {
			b = str(b, f.key, f.val)
		}
	}
	return append(b, '}')
}

func (g *Gate) stateChanged() {
	if n := g.cfg.Notifier; n != nil {
		n.StateChanged()
	}
}

func (g *Gate) newID() string {
	return g.idPrefix + "-" + strconv.FormatInt(g.seq.Add(1), 10)
}

// callKey identifies identical calls for the retry bound.
func callKey(p CheckParams) string {
	return p.Tool + "\x00" + p.Command + "\x00" + strings.Join(p.Argv, "\x00") + "\x00" + string(p.Args) + "\x00" + p.Cwd
}

func commandOf(p CheckParams) string {
	if p.Command != "" {
		return p.Command
	}
	if len(p.Argv) > 0 {
		return strings.Join(p.Argv, " ")
	}
	if !bytes.Contains(p.Args, []byte(`"command"`)) {
		return ""
	}
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(p.Args, &a)
	return a.Command
}

// session finds a session by id; "" is the default session.
func (g *Gate) session(id string) (*session, error) {
	if id == "" {
		id = defaultSession
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.sessions[id]
	if !ok {
		return nil, &ParamError{"session", fmt.Sprintf("unknown session %q (open one with admit/openSession)", id)}
	}
	return s, nil
}

// env assembles what a decision for s depends on.
func (g *Gate) env(s *session) (*policy.Env, string, error) {
	roots := g.cfg.Roots.List()
	lp := g.loadPolicy(roots)
	g.mu.Lock()
	effects, profile := g.effects, g.shell
	g.mu.Unlock()
	if s.effects != "" {
		effects = s.effects
	}
	e := &policy.Env{
		Roots: roots, Effects: command.Effects(effects), Profile: shell.Profile(profile), Home: g.cfg.Home,
		Commands: g.commands, FS: g.cfg.Resolver, Obs: s.obs, ShellTools: lp.shellTools,
		MaxRequestChars: g.cfg.Bounds.MaxRequestChars,
	}
	if lp.err != nil {
		return e, lp.hash, lp.err
	}
	if lp.table != nil {
		e.Commands = lp.table
	}
	if s.caps != nil {
		e.Caps = s.caps
		if s.budgeted {
			e.MaxRequestChars = s.bounds.MaxRequestChars
		}
		return e, lp.hash, nil
	}
	e.Caps = g.defaultCaps(lp, roots)
	return e, lp.hash, nil
}

// defaultCaps is the default session's capability set: the policy file's
// grants, with the workspace roots as write roots. It is built once per
// policy version and set of roots.
func (g *Gate) defaultCaps(lp loadedPolicy, roots []string) *policy.Caps {
	key := strings.Join(roots, "\x00")
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.file.caps != nil && g.file.roots == key && g.file.path == lp.path && g.file.stamp == lp.stamp {
		return g.file.caps
	}
	f := lp.file
	c := &policy.Caps{
		Label: f.Label, Allow: withBuiltins(f.Allow, builtinTools), NeedsHuman: f.NeedsHuman,
		Mutators: withBuiltins(f.Mutators, builtinMutators), WriteRoots: roots,
	}
	if g.file.path == lp.path && g.file.stamp == lp.stamp {
		g.file.caps, g.file.roots = c, key
	}
	return c
}

// The gate's own tools: admit/read, admit/edit, admit/write and admit/run
// go through the door under these names, in every session.
const (
	readTool  = "admit.read"
	editTool  = "admit.edit"
	writeTool = "admit.write"
	runTool   = "admit.run"
)

var (
	builtinTools    = []string{readTool, editTool, writeTool, runTool}
	builtinMutators = []string{editTool, writeTool}
)

func withBuiltins(list, add []string) []string {
	out := slices.Clone(list)
	for _, a := range add {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// loadPolicy reads .admit/policy.json from the first root that has one, or
// the policy given in the configuration, or the built-in. The file is
// stat'ed on every decision and re-read when it changed, so a decision
// never rests on a stale policy.
func (g *Gate) loadPolicy(roots []string) loadedPolicy {
	if g.cfg.Policy != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.file.file == nil {
			g.file = compilePolicy("initializationOptions.policy", g.cfg.Policy, nil)
		}
		return g.file
	}
	path, stamp := "", fileStamp{}
	for _, r := range roots {
		p := r + "/.admit/policy.json" // roots are clean and absolute
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil {
			path, stamp = p, fileStamp{st.Size, st.Mtim.Nano(), st.Ctim.Nano(), st.Ino}
			break
		}
	}
	g.mu.Lock()
	cur := g.file
	g.mu.Unlock()
	if cur.file != nil && cur.path == path && cur.stamp == stamp || cur.err != nil && cur.path == path && cur.stamp == stamp && path != "" {
		return cur
	}
	var lp loadedPolicy
	if path == "" {
		lp = compilePolicy("built-in", policy.DefaultFile(), nil)
	} else if data, err := os.ReadFile(path); err != nil {
		lp = loadedPolicy{err: fmt.Errorf("%s: %w", path, err)}
	} else if f, err := policy.ParseFile(path, data); err != nil {
		lp = loadedPolicy{err: err}
	} else {
		lp = compilePolicy(path, f, data)
	}
	lp.path, lp.stamp = path, stamp
	g.mu.Lock()
	g.file = lp
	g.mu.Unlock()
	if lp.err != nil {
		g.cfg.Logger.Error("policy file unusable; the gate stays closed", "err", lp.err)
	}
	g.stateChanged()
	return lp
}

func compilePolicy(where string, f *policy.File, data []byte) loadedPolicy {
	if data == nil {
		data, _ = json.Marshal(f)
	}
	sum := sha256.Sum256(data)
	shellTools := f.ShellTools
	if len(shellTools) == 0 {
		shellTools = policy.DefaultShellTools()
	}
	lp := loadedPolicy{file: f, hash: hex.EncodeToString(sum[:8]), shellTools: withBuiltins(shellTools, []string{runTool})}
	if len(f.Programs) > 0 {
		t, err := command.ParseTable(f.Programs)
		if err != nil {
			return loadedPolicy{err: fmt.Errorf("%s: programs: %w", where, err), hash: lp.hash}
		}
		lp.table = command.New(t)
	}
	return lp
}

// cwd resolves the working directory of a call: the request's, else the
// session's, else the first root.
func (g *Gate) cwd(s *session, reqCwd string, roots []string) (string, error) {
	dir := reqCwd
	if dir == "" {
		dir = s.cwd
	}
	if dir == "" {
		if len(roots) == 0 {
			return "", errors.New("the workspace has no roots, so there is no working directory")
		}
		return roots[0], nil
	}
	if !filepath.IsAbs(dir) {
		base := s.cwd
		if base == "" && len(roots) > 0 {
			base = roots[0]
		}
		dir = filepath.Join(base, dir)
	}
	r, err := g.cfg.Resolver.Resolve(filepath.Clean(dir))
	if err != nil {
		return "", fmt.Errorf("cwd %q: %v", reqCwd, err)
	}
	if !g.cfg.Roots.Contains(r.Path) {
		return "", fmt.Errorf("cwd %q resolves to %q, outside the workspace roots", dir, r.Path)
	}
	return r.Path, nil
}

// Mode is the gate's current mode.
func (g *Gate) Mode() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mode
}

// State is what admit/state and admit/didChangeState carry.
type State struct {
	Mode        string                 `json:"mode"`
	Effects     string                 `json:"effects"`
	Shell       string                 `json:"shell"`
	Roots       []string               `json:"roots"`
	Counts      Counts                 `json:"counts"`
	Tape        string                 `json:"tape"`
	TapeError   string                 `json:"tapeError,omitempty"`
	PolicyError string                 `json:"policyError,omitempty"`
	Policy      string                 `json:"policy,omitempty"` // the policy file in force, or "built-in"
	Sessions    []string               `json:"sessions"`
	Grants      map[string][]string    `json:"grants,omitempty"`
	Watch       *workspace.WatchStatus `json:"watch,omitempty"`
	Socket      string                 `json:"socket,omitempty"`
	Confinement string                 `json:"confinement,omitempty"`
}

// Counts are the decisions since the server started.
type Counts struct {
	Allowed   int64 `json:"allowed"`
	Denied    int64 `json:"denied"`
	WouldDeny int64 `json:"wouldDeny"`
	Pending   int   `json:"pending"`
}

// State reports the gate's state.
func (g *Gate) State() State {
	st := State{Roots: g.cfg.Roots.List(), Counts: Counts{
		Allowed: g.counts.allowed.Load(), Denied: g.counts.denied.Load(), WouldDeny: g.counts.wouldDeny.Load(),
	}}
	if g.cfg.Tape != nil {
		st.Tape = g.cfg.Tape.Path()
	}
	if b := g.cfg.Approvals; b != nil {
		st.Counts.Pending = b.Pending()
		st.Grants = b.AllGrants()
	}
	g.mu.Lock()
	st.Mode, st.Effects, st.Shell, st.TapeError, st.Socket = g.mode, g.effects, g.shell, g.tapeErr, g.socket
	if g.file.err != nil {
		st.PolicyError = g.file.err.Error()
	}
	st.Policy = g.file.path
	if st.Policy == "" {
		st.Policy = "built-in"
	}
	for id := range g.sessions {
		st.Sessions = append(st.Sessions, id)
	}
	g.mu.Unlock()
	slices.Sort(st.Sessions)
	return st
}

// SetMode changes the mode, the effect mode or the shell profile; empty
// values keep the current ones.
func (g *Gate) SetMode(mode, effects, shellProfile string) error {
	if err := validateSettings(mode, effects, shellProfile); err != nil {
		return err
	}
	g.mu.Lock()
	if mode != "" {
		g.mode = mode
	}
	if effects != "" {
		g.effects = effects
	}
	if shellProfile != "" {
		g.shell = shellProfile
	}
	list := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		list = append(list, s)
	}
	g.mu.Unlock()
	for _, s := range list {
		s.forgetRefusals()
	}
	g.stateChanged()
	return nil
}

// validateSettings checks a mode, effect mode and shell profile; empty
// values are not checked.
func validateSettings(mode, effects, shellProfile string) error {
	if mode != "" && mode != "off" && mode != "warn" && mode != "enforce" {
		return &ParamError{"mode", fmt.Sprintf("must be one of off, warn, enforce, got %q", mode)}
	}
	if effects != "" {
		if err := policy.CheckEffects("effects", effects); err != nil {
			return &ParamError{"effects", err.Error()}
		}
	}
	if shellProfile != "" && shellProfile != "analyze" && shellProfile != "refuse" {
		return &ParamError{"shell", fmt.Sprintf("must be one of analyze, refuse, got %q", shellProfile)}
	}
	return nil
}

// MarkChanged makes every session's observation of the changed paths
// stale; the watcher calls it, ahead of the check at decision time.
func (g *Gate) MarkChanged(paths []string) {
	g.mu.Lock()
	list := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		list = append(list, s)
	}
	g.mu.Unlock()
	for _, s := range list {
		for _, p := range paths {
			s.obs.MarkChanged(p)
		}
	}
}
