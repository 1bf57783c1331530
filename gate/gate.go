package gate

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"admit/approvals"
	"admit/managed"
	"admit/policy"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/policy/rules"
	"admit/policy/shell"
	"admit/tape"
	"admit/workspace"
)

// Notifier tells the client what changed. The server implements it; the
// command line leaves it nil.
type Notifier interface {
	// DidDecide announces a verdict and returns it as it went on the
	// wire: marshalled once, for the notification and the reply.
	DidDecide(v *Verdict) []byte
	StateChanged()
}

// config holds a Gate's dependencies, as Open assembles them; newGate
// checks it.
type config struct {
	Mode, Effects, Shell string
	Roots                *workspace.Roots
	Resolver             *workspace.Resolver // nil: one over Roots
	Tape                 *tape.Tape          // nil: decisions are not taped (admit check without --tape)
	// TapePath is the tape's path when it was named but could not be
	// opened (TapeErr): still protected.
	TapePath  string
	TapeErr   error // the tape could not be opened: every decision reports it
	Approvals *approvals.Broker
	Notifier  Notifier
	Logger    *slog.Logger
	Now       func() time.Time
	Home      string
	Bounds    policy.Bounds // for opened sessions and command-line runs
	Policy    *policy.File  // nil: read .admit/policy.json from the roots, else the built-in
	// Trust records the policy files the person trusted; nil trusts none,
	// so a file that would widen the gate only tightens it.
	Trust *TrustStore
	// Rules are the person's rules; nil is none.
	Rules *RuleStore
	// Handles keeps the handles given out for rewritten calls; nil gives
	// none out.
	Handles *HandleStore
	// AcceptWeaker runs a confined run even where this machine lacks a
	// wall it needs (the person's setting); the result names the walls.
	AcceptWeaker bool
	// Secrets are the files whose reading asks a person; nil is the
	// built-in patterns (command.DefaultSecrets).
	Secrets *command.Secrets
	// AllowConfinedCode answers an ask about code admit cannot judge with
	// yes when admit itself runs it confined (the person's confinedRuns).
	AllowConfinedCode bool
	Headless          bool
	// OneCall: the gate lives for one call (Options.OneCall).
	OneCall bool
	// PersonShell is the person's $SHELL (Options.PersonShell).
	PersonShell string
	// SecretValues name the variables of the gate's own environment whose
	// values are credentials (Options.SecretValues).
	SecretValues []string
	// Managed is the organisation's layer (managed.Load), nil for none;
	// ManagedErr: it cannot be used, and every call is refused.
	Managed    *managed.Layer
	ManagedErr error
	// Exporter, when set, is handed every record once it is on the tape
	// (or, without a tape, once it is made): the export to a collector
	// (internal/otelexport). It must not block.
	Exporter Exporter
}

// Exporter takes the gate's records elsewhere, asynchronously: Export
// must return at once and must not keep rec past the call.
type Exporter interface {
	Export(rec *tape.Record)
}

// Gate is the one door: mode, policy, approvals and the tape, in order.
// One value serves every connection of a server; it is safe for
// concurrent use.
type Gate struct {
	cfg      config
	commands *command.Policy
	// personal are the person's own places (admit's folders, the editors'
	// and agents' user settings, the trust records and rules): no tool
	// call may write them, and none is asked about.
	personal *command.Personal
	offCache hooksOffCache // the repository files that switch hooks off
	// watcher, when the server has one, tells what a program that runs
	// code changed (CaptureWith).
	watcher atomic.Pointer[workspace.Watcher]
	nobody  *approvals.Broker // answers for a gate with no one to ask
	// factsBufs are the buffers decisions' facts are encoded into, each
	// given back once its line is on the tape (factTrace.done).
	factsBufs sync.Pool
	// traces are decisions' factTraces, reused (endTrace).
	traces sync.Pool
	// judgings are what Check decides in: the largest part of a decision
	// (2 KB), reused, since Check keeps only the verdict, a copy. Decide's
	// caller keeps its Decided, so Decide makes its own.
	judgings sync.Pool
	policyAt atomic.Pointer[rootPolicyPaths] // policyPaths' last answer
	// policySeen is the policy file as last stat'ed under a watcher that
	// vouched for it, so a decision can skip the stat while nothing moved.
	policySeen atomic.Pointer[policySeen]
	idPrefix   string
	seq        atomic.Int64
	counts     struct{ allowed, denied, wouldDeny atomic.Int64 }
	// allowConfinedCode is the person's standing answer to asks about
	// code admit cannot judge, when admit runs it confined (SetSettings).
	allowConfinedCode atomic.Bool

	// mu guards the settings, the sessions and the loaded policy file below.
	mu       sync.Mutex
	mode     rule.Mode
	effects  string
	shell    string
	sessions map[string]*session
	secrets  *command.Secrets // the person's secret patterns; nil is the built-in ones
	// acceptWeaker: the person accepts weaker confinement.
	acceptWeaker bool
	file         *loadedPolicy // nil until a decision loads it
	// defaults is the default session's capability set as last built
	// (defaultCaps), for the policy it was built from and the roots.
	defaults struct {
		lp    *loadedPolicy
		roots string
		caps  *policy.Caps
	}
	managedMerge struct{ in, out *rules.Set } // the last merge of withManagedRules (managed.go)
	tapeErr      string
	sessionSeq   int64
}

// newGate builds a gate from cfg, or says which setting is wrong: the mode,
// effect mode and shell profile must be valid, and the roots given.
func newGate(cfg config) (*Gate, error) {
	if err := (Settings{Mode: cfg.Mode, Effects: cfg.Effects, Shell: cfg.Shell}).Check(); err != nil {
		return nil, err
	}
	if cfg.Mode == "" || cfg.Effects == "" || cfg.Shell == "" {
		return nil, errors.New("gate: the mode, effect mode and shell profile must all be set")
	}
	if cfg.Roots == nil {
		return nil, errors.New("gate: no workspace roots (an empty set is allowed, a missing one is not)")
	}
	if cfg.Resolver == nil {
		cfg.Resolver = workspace.NewResolver(cfg.Roots).SetHome(cfg.Home)
	}
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
		idPrefix: newIDPrefix(cfg.Now()),
		mode:     rule.Mode(cfg.Mode),
		effects:  cfg.Effects,
		shell:    cfg.Shell,
		sessions: map[string]*session{},
		secrets:  cfg.Secrets,
	}
	g.acceptWeaker = cfg.AcceptWeaker
	g.allowConfinedCode.Store(cfg.AllowConfinedCode)
	places := command.PersonalPlaces(cfg.Home, os.Getenv)
	if cfg.Trust != nil {
		places = append(places, command.Place{Path: cfg.Trust.Dir(), What: "the person's trust records of policy files"})
	}
	if cfg.Rules != nil {
		places = append(places, command.Place{Path: filepath.Dir(cfg.Rules.Files().User), What: "the person's rules"})
	}
	places = append(places, tapePlaces(cfg)...)
	g.personal = command.NewPersonal(places)
	def := newSession(defaultSession, "default", cfg.Now())
	def.bounds = cfg.Bounds // its retry bound; it has no step or time budget
	g.sessions[defaultSession] = def
	return g, nil
}

// CaptureWith makes w the source of what a program that runs code changed
// during an admitted run, in place of a fingerprint of the roots before and
// after (the server's watcher watches the same roots).
func (g *Gate) CaptureWith(w *workspace.Watcher) { g.watcher.Store(w) }

// Roots are the workspace roots the gate decides under.
func (g *Gate) Roots() *workspace.Roots { return g.cfg.Roots }

// Close closes the tape the gate writes to, and the export: what it
// still holds gets a moment to go (less for a gate of one call, whose
// process should end).
func (g *Gate) Close() error {
	wait := 2 * time.Second
	if g.cfg.OneCall {
		wait = 200 * time.Millisecond
	}
	xerr := g.closeExport(wait)
	if g.cfg.Tape != nil {
		return errors.Join(g.cfg.Tape.Close(), xerr)
	}
	return xerr
}

// waitKey is the context key of the function that prepares a call to wait.
type waitKey struct{}

// WithWait returns ctx carrying wait, which the gate calls just before a
// decision waits for a person or for the disk, and whose context it then
// waits in. The server uses it to release its read loop only when a call
// has to wait.
func WithWait(ctx context.Context, wait func() context.Context) context.Context {
	return context.WithValue(ctx, waitKey{}, wait)
}

// waiting is ctx prepared for waiting: see WithWait.
func waiting(ctx context.Context) context.Context {
	if wait, ok := ctx.Value(waitKey{}).(func() context.Context); ok {
		return wait()
	}
	return ctx
}

// Check decides one call: it runs the decision order, asks a person when a
// rule says so, tapes the decision and notifies the client.
func (g *Gate) Check(ctx context.Context, p CheckParams) (Verdict, error) {
	j, _ := g.judgings.Get().(*judging)
	if j == nil {
		j = new(judging)
	}
	defer func() {
		*j = judging{} // nothing of this call is left for the next
		g.judgings.Put(j)
	}()
	if _, err := g.decide(ctx, p, nil, j); err != nil {
		return Verdict{}, err
	}
	return j.Verdict, nil
}

// dryRun finishes a dry run's decision: what the policy says, and whether
// the person would be asked now; nothing is asked, taped, counted or
// observed.
func (g *Gate) dryRun(out *Decided, v Verdict, d policy.Decision, mode rule.Mode) *Decided {
	v.DecidedBy = ""
	switch {
	case d.Allowed:
		v.Verdict, v.Allowed = rule.Allow, true
	case d.Ask && mode == rule.Enforce:
		v.Verdict = rule.Deny
		b := g.cfg.Approvals
		v.WouldAsk = b != nil && !b.Headless() && !g.headless() && !b.Granted(out.session.id, d.Grant)
	default:
		v.Verdict, v.Allowed = rule.Deny, mode != rule.Enforce
	}
	if v.Verdict == rule.Deny {
		v.Remedy = rule.Remedy(v.Rule, d.Hint)
		v.ToolError = policy.ToolError(v.Rule, v.Reason, d.Hint)
	}
	out.Verdict = v
	return out
}

// admitRuns reports whether admit itself will run the line of p (admit
// run, admit/run, or a hook whose host runs admit run --handle in its
// place), never the host's shell.
// callProfile is the profile of the shell that runs the call's line, as
// far as the call says: its Shell; for VS Code's run_in_terminal, which
// types its line into the person's terminal, and names none, the
// interactive profile of the person's shell, or portable, never bash -c;
// otherwise analyze.
func (g *Gate) callProfile(p CheckParams) (shell.Profile, error) {
	if p.HostShell != "" {
		if _, err := shell.ParseProfile(p.HostShell); err != nil {
			return "", &ParamError{"hostShell", err.Error()}
		}
	}
	if p.Shell != "" {
		prof, err := shell.ParseProfile(p.Shell)
		if err != nil {
			return "", &ParamError{"shell", err.Error()}
		}
		return prof, nil
	}
	if p.Tool == terminalTool {
		return shell.TerminalProfile(g.cfg.PersonShell), nil
	}
	return shell.Analyze, nil
}

// terminalTool is VS Code's tool that types its line into a terminal.
const terminalTool = "run_in_terminal"

// hostJudge judges a line admit was to run (a handle was asked for) as
// the host's own shell reads it (p.HostShell), for when the host runs it
// instead: the refusal of that shell, or nil when it reads the line as
// judged or the call names no host shell.
func (g *Gate) hostJudge(call policy.Call, env *policy.Env, p CheckParams) *policy.Decision {
	if p.HostShell == "" || env == nil {
		return nil
	}
	prof, err := shell.ParseProfile(p.HostShell)
	if err != nil || prof == env.Profile || env.Profile != shell.Analyze {
		// A bad name was refused before; a stricter profile of the
		// gate's own judged the line already.
		return nil
	}
	e := *env
	e.Profile = prof
	call.AdmitRuns = false
	d := policy.Decide(call, &e)
	if d.Allowed || d.Ask {
		return nil
	}
	d.Reason = "the host runs this line in its own shell if admit does not, and that shell reads it otherwise: " + d.Reason
	return &d
}

func (g *Gate) admitRuns(p CheckParams) bool {
	return p.Tool == runTool || p.Handle && g.cfg.Handles != nil && !p.HostMayIgnore
}

// confinedWithoutAsking reports whether an ask about code admit cannot
// judge is answered by the person's standing choice (confinedRuns: allow):
// only when admit itself will run the line confined (admit/run, or a hook
// whose host runs admit run --handle in its place), never when the host
// would run it as it is.
func (g *Gate) confinedWithoutAsking(p CheckParams, d policy.Decision) bool {
	if !g.allowConfinedCode.Load() || !d.Answerable || (d.Rule != rule.RunsCode && d.Rule != rule.UnsupportedProgram) {
		return false
	}
	return g.admitRuns(p)
}

// ask puts the call to a person, or refuses it when a grant or a rule says.
func (g *Gate) ask(ctx context.Context, s *session, p CheckParams, id string, d policy.Decision) approvals.Resolution {
	b := g.cfg.Approvals
	if b == nil || g.headless() {
		b = g.nobody
	}
	q := approvals.Question{ID: id, Session: s.id, Tool: p.Tool, Summary: d.Summary, Reason: d.Reason, Grant: d.Grant,
		Agent: agentOf(p.Context), Command: commandOf(p), Cwd: p.Cwd, Targets: d.Targets()}
	if p.Tool == runTool {
		q.Confinement = confinementWords()
	}
	// "Always allow" offers the rule that would answer the question, by
	// what the command does (offer, offer.go), or says why none can.
	offered, noRule := offer(d)
	if g.cfg.Rules != nil && !b.Headless() {
		if offered != nil {
			q.Rule, q.RuleCovers, q.RuleEffects = offered.Match, offered.Explain(), offered.Effects
		} else {
			q.NoRule = noRule
		}
	}
	shown(&q, p, d)
	o := b.Decide(ctx, q)
	if o.Answer == approvals.AllowAlways && q.Rule != "" && offered != nil {
		r := *offered
		r.Note = "always allowed in answer to " + id
		err := g.managedForbids(r) // the organisation's deny or ask stands
		if err == nil {
			err = g.cfg.Rules.Add(ScopeWorkspace, r)
		}
		if err != nil {
			g.cfg.Logger.Error("the person's rule could not be kept", "rule", q.Rule, "err", err)
		}
		g.stateChanged()
	}
	return o
}

// agentOf is the agent a call's context names ({"agent": "claude-code"}).
func agentOf(ctx json.RawMessage) string {
	if !bytes.Contains(ctx, []byte(`"agent"`)) {
		return ""
	}
	var c struct {
		Agent string `json:"agent"`
	}
	_ = json.Unmarshal(ctx, &c)
	return c.Agent
}

func (g *Gate) headless() bool {
	if g.cfg.Headless {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.file != nil && g.file.file != nil && g.file.file.Headless
}

// tape writes the record; a failure is logged and reported in the state.
func (g *Gate) tape(ctx context.Context, rec *tape.Record) (err error) {
	if x := g.cfg.Exporter; x != nil {
		defer func() {
			if err == nil {
				x.Export(rec) // only what is on the tape leaves the machine
			}
		}()
	}
	err = g.cfg.TapeErr
	if g.cfg.Tape != nil {
		if g.cfg.Tape.Sync() != tape.SyncNone {
			ctx = waiting(ctx) // the record waits for the disk
		}
		if ctx.Done() != nil { // a context that cannot end needs no cutting loose
			ctx = context.WithoutCancel(ctx)
		}
		err = g.cfg.Tape.Append(ctx, rec)
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

// retape appends a follow-up record for an acting tool (a run's effects, a
// file tool's readback), chained like any other.
func (g *Gate) retape(ctx context.Context, d *Decided, fill func(r *tape.Record)) {
	if d.record == nil {
		return
	}
	r := *d.record
	r.Time, r.Prev, r.Facts = time.Time{}, "", nil // the facts are the decision's, on its own record
	fill(&r)
	_ = g.tape(ctx, &r)
}

// observe records what an admitted call reads and lists, each read with
// the state its resolution saw where the policy kept it.
func (g *Gate) observe(s *session, d policy.Decision) {
	for _, p := range d.Reads {
		if i := slices.IndexFunc(d.Seen, func(r command.Resolved) bool { return r.Path == p }); i >= 0 {
			s.obs.RecordResolved(d.Seen[i])
		} else {
			s.obs.RecordFile(p)
		}
	}
	for _, p := range d.Listed {
		s.obs.RecordDir(p)
	}
}

// count counts the verdict and tells the client; it returns the verdict
// as the notifier put it on the wire (nil without a notifier).
func (g *Gate) count(v *Verdict) []byte {
	switch {
	case v.Verdict == rule.Allow:
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

// notifyDecided announces v to the client, if there is one.
func (g *Gate) notifyDecided(v *Verdict) []byte {
	if n := g.cfg.Notifier; n != nil {
		return n.DidDecide(v)
	}
	return nil
}

func (g *Gate) stateChanged() {
	if n := g.cfg.Notifier; n != nil {
		n.StateChanged()
	}
}

// newIDPrefix is the start of every id a gate gives: its opening time and
// random bits, so that two gates opened in the same millisecond (a hook
// per call, a team's machines) never give one id twice, and a replay over
// many tapes tells their calls apart.
func newIDPrefix(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on a supported system
	return strconv.FormatInt(now.UnixMilli(), 36) + hex.EncodeToString(b[:])
}

func (g *Gate) newID() string {
	var n [20]byte // one allocation: the concatenation's
	return g.idPrefix + "-" + string(strconv.AppendInt(n[:0], g.seq.Add(1), 10))
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

// env assembles what a decision for s depends on, and the policy file it
// came from.
func (g *Gate) env(s *session) (*policy.Env, *loadedPolicy, error) {
	return g.envIn(new(policy.Env), s)
}

// envIn is env filled into e: a decision keeps its env in its judging.
func (g *Gate) envIn(e *policy.Env, s *session) (*policy.Env, *loadedPolicy, error) {
	roots := g.cfg.Roots.Shared() // read only, by the policy and the facts
	lp := g.loadPolicy(roots)
	g.mu.Lock()
	effects, profile, secrets := g.effects, g.shell, g.secrets
	g.mu.Unlock()
	if s.effects == string(command.ReadOnly) {
		// A session may narrow the person's effect mode, never widen it.
		effects = s.effects
	}
	*e = policy.Env{
		Roots: roots, Effects: command.Effects(effects), Profile: shell.Profile(profile), Home: g.cfg.Home,
		Commands: g.commands, FS: g.cfg.Resolver, Now: g.cfg.Now, Obs: s.obs, ShellTools: lp.shellTools, Personal: g.personal, Secrets: secrets,
		MaxRequestChars: g.cfg.Bounds.MaxRequestChars,
	}
	if lp.err != nil {
		return e, lp, lp.err
	}
	// The person's rules (the user's and the workspace's) and the
	// repository's ask and deny rules, matched by the command policy.
	set, err := g.cfg.Rules.With(lp.rules)
	if err != nil {
		e.RulesInvalid = err.Error()
	}
	e.Rules = g.withManagedRules(set)
	if lp.table != nil {
		e.Commands, e.Baseline = lp.table, lp.baseline
	}
	if s.caps != nil {
		e.Caps = s.sessionCaps(lp)
		if s.budgeted {
			e.MaxRequestChars = s.bounds.MaxRequestChars
		}
		return e, lp, nil
	}
	e.Caps = g.defaultCaps(lp, roots)
	return e, lp, nil
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
		return "", fmt.Errorf("cwd %q: %w", reqCwd, err)
	}
	if !g.cfg.Roots.Contains(r.Path) {
		return "", fmt.Errorf("cwd %q resolves to %q, outside the workspace roots", dir, r.Path)
	}
	return r.Path, nil
}

// ShellTool names the tool a bare command line (admit check -c) is judged
// as in session: bash when the session grants it, else the first shell
// tool it grants, so a policy that allows only Bash judges the line as
// Bash; bash when none is granted (and the refusal says so).
func (g *Gate) ShellTool(session string) string {
	s, err := g.session(session)
	if err != nil {
		return "bash"
	}
	env, _, err := g.env(s)
	if err != nil || env.Caps == nil {
		return "bash"
	}
	if env.Caps.Grants("bash") {
		return "bash"
	}
	for _, t := range env.ShellTools {
		if t != runTool && env.Caps.Grants(t) {
			return t
		}
	}
	return "bash"
}

// tapePlaces are the gate's tape and the files beside it (its head, its
// lock, its rotated files), wherever the person put it, inside a
// workspace too: as the path was given and as it resolves.
func tapePlaces(cfg config) []command.Place {
	p := cfg.TapePath
	if cfg.Tape != nil {
		p = cfg.Tape.Path()
	}
	if p == "" {
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil
	}
	const what = "the gate's tape (with its head, lock and rotated files)"
	out := []command.Place{{Path: abs, What: what, Family: true}}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil && dir != filepath.Dir(abs) {
		out = append(out, command.Place{Path: filepath.Join(dir, filepath.Base(abs)), What: what, Family: true})
	}
	return out
}

// releasingFS is the resolver of a decision made on a connection's read
// loop: before its first walk (the folders of a pattern, the links under
// a folder) it releases the loop, so that the calls read after this one
// are decided while it walks, not held behind it. A decision that walks
// nothing stays on the loop and costs no goroutine.
type releasingFS struct {
	*workspace.Resolver
	release  func() context.Context
	released sync.Once
}

func (f *releasingFS) walks() { f.released.Do(func() { f.release() }) }

func (f *releasingFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	f.walks()
	return f.Resolver.ReadDir(dir)
}

func (f *releasingFS) ListResolved(dir string) ([]fs.DirEntry, error) {
	f.walks()
	return f.Resolver.ListResolved(dir)
}

func (f *releasingFS) GitTracked(dir string, want func(string) bool) ([]string, bool) {
	f.walks() // the index of a large repository is megabytes
	return f.Resolver.GitTracked(dir, want)
}

func (f *releasingFS) MayHold(file string, words []string) bool {
	f.walks()
	return f.Resolver.MayHold(file, words)
}

func (f *releasingFS) LinksOutside(dir string) []string {
	f.walks()
	return f.Resolver.LinksOutside(dir)
}

func (f *releasingFS) SplitNames(dir string) []string {
	f.walks()
	return f.Resolver.SplitNames(dir)
}
