package gate

import (
	"bytes"
	"context"
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
	"time"

	"admit/approvals"
	"admit/managed"
	"admit/policy"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/policy/rules"
	"admit/policy/shell"
	"admit/policy/tape"
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

// Config holds a Gate's dependencies. New checks it.
type Config struct {
	Mode, Effects, Shell string
	Roots                *workspace.Roots
	Resolver             *workspace.Resolver // nil: one over Roots
	Tape                 *tape.Tape          // nil: decisions are not taped (admit check without --tape)
	TapeErr              error               // the tape could not be opened: every decision reports it
	Approvals            *approvals.Broker
	Notifier             Notifier
	Logger               *slog.Logger
	Now                  func() time.Time
	Home                 string
	Bounds               policy.Bounds // for opened sessions and command-line runs
	Policy               *policy.File  // nil: read .admit/policy.json from the roots, else the built-in
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
	cfg      Config
	commands *command.Policy
	// personal are the person's own places (admit's folders, the editors'
	// and agents' user settings, the trust records and rules): no tool
	// call may write them, and none is asked about.
	personal *command.Personal
	offCache hooksOffCache // the repository files that switch hooks off
	// watcher, when the server has one, tells what a program that runs
	// code changed (CaptureWith).
	watcher  atomic.Pointer[workspace.Watcher]
	nobody   *approvals.Broker // answers for a gate with no one to ask
	idPrefix string
	seq      atomic.Int64
	counts   struct{ allowed, denied, wouldDeny atomic.Int64 }
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
	file         loadedPolicy
	managedMerge struct{ in, out *rules.Set } // the last merge of withManagedRules (managed.go)
	tapeErr      string
	sessionSeq   int64
}

// New builds a gate from cfg, or says which setting is wrong: the mode,
// effect mode and shell profile must be valid, and the roots given.
func New(cfg Config) (*Gate, error) {
	if err := validateSettings(cfg.Mode, cfg.Effects, cfg.Shell); err != nil {
		return nil, err
	}
	if cfg.Mode == "" || cfg.Effects == "" || cfg.Shell == "" {
		return nil, errors.New("gate: the mode, effect mode and shell profile must all be set")
	}
	if cfg.Roots == nil {
		return nil, errors.New("gate: no workspace roots (an empty set is allowed, a missing one is not)")
	}
	if cfg.Resolver == nil {
		cfg.Resolver = workspace.NewResolver(cfg.Roots)
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
		idPrefix: strconv.FormatInt(cfg.Now().UnixMilli(), 36),
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
	d, err := g.Decide(ctx, p, nil)
	if err != nil {
		return Verdict{}, err
	}
	return d.Verdict, nil
}

// Decide is Check returning what the acting tools need. amend, when given,
// may refuse a decision the policy admitted, before anyone is asked and
// before the tape: the file tools bind a change to the bytes read.
func (g *Gate) Decide(ctx context.Context, p CheckParams, amend func(d *policy.Decision)) (*Decided, error) {
	mode := g.Mode()
	if mode == rule.Off {
		return &Decided{Verdict: Verdict{ID: g.newID(), Verdict: rule.Allow, Allowed: true, Mode: mode, Rule: rule.CapsOff, Reason: "the gate is off: nothing was checked or recorded", Tool: p.Tool, Outcome: rule.OutcomeAllow}}, nil
	}
	s, err := g.session(p.Session)
	if err != nil {
		return nil, err
	}
	env, lp, err := g.env(s)
	if env != nil && p.Shell != "" {
		prof, perr := shell.ParseProfile(p.Shell)
		if perr != nil {
			return nil, &ParamError{"shell", perr.Error()}
		}
		if env.Profile == shell.Analyze {
			env.Profile = prof
		}
	}
	call := policy.Call{Tool: p.Tool, Args: p.Args, Command: p.Command, Argv: p.Argv, Path: p.pathList(), Background: p.Background,
		AdmitRuns: g.admitRuns(p)}
	trace := g.traceFacts(env, s, p) // what the decision rests on, for replay (facts.go)
	decided := false                 // the policy judged the call
	var d policy.Decision
	tracked := false      // the call is a line of a terminal whose folder is tracked (terminal.go)
	confinedOnly := false // allowed only because admit itself runs it confined
	if g.cfg.ManagedErr != nil {
		d = managedRefusal(g.cfg.ManagedErr, p.Tool)
	} else if err != nil {
		d = policy.Decision{Rule: "policy-invalid", Reason: "the workspace policy file cannot be used, so the gate stays closed: " + err.Error(), Kind: "read", Summary: p.Tool}
	} else {
		call.Cwd, err = g.cwd(s, p.Cwd, env.Roots)
		if err == nil && p.Terminal != "" && slices.Contains(env.ShellTools, p.Tool) {
			call.Cwd, err = s.terms.cwd(p.Terminal, p.Cwd != "", call.Cwd, p.DryRun)
			call.Terminal, tracked = true, err == nil
		}
		var termErr *terminalError
		var paramErr *ParamError
		if errors.As(err, &paramErr) {
			return nil, err
		}
		if errors.As(err, &termErr) {
			d = policy.Decision{Rule: rule.DynamicWord, Reason: err.Error(), Kind: "read", Summary: p.Tool, Hint: "open a new terminal"}
		} else if err != nil {
			d = policy.Decision{Rule: "outside-workspace", Reason: err.Error(), Kind: "read", Summary: p.Tool}
		} else {
			if !p.DryRun {
				env.Budget = s.spend(p, g.cfg.Now())
			}
			env.InFlux = s.inFlux(g.cfg.Now(), p.heldBy)
			trace.call(call, env, tracked)
			d, decided = policy.Decide(call, env), true
			if tracked && g.cfg.OneCall && (d.Allowed || d.Ask) && (!d.FinalCwdKnown || d.FinalCwd != call.Cwd) {
				d = policy.Decision{Rule: rule.DynamicWord, Kind: d.Kind, Summary: d.Summary, Hint: "stay in the terminal's folder: put the cd in a subshell, (cd sub && make), or run the editor with admit, whose server follows the terminal",
					Reason: "the line may leave the terminal in another folder, and admit decides alone here, one call at a time, so it could not judge the terminal's next line in the folder it is really in"}
			}
			if amend != nil && (d.Allowed || d.Ask) {
				before := d
				amend(&d)
				trace.amended(before, d)
			}
			if d.Ask && g.confinedWithoutAsking(p, d) {
				confinedOnly = true
				d.Allowed, d.Ask, d.Rule = true, false, rule.RuleAllows
				d.Reason = "admit runs it confined (the workspace minus its protected paths, no network), and the person lets programs that run code run confined without asking: " + d.Reason
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
	v := Verdict{ID: g.newID(), Mode: mode, Rule: d.Rule, Reason: d.Reason, Kind: d.Kind, Targets: d.Targets(), Session: s.id, Agent: agentOf(p.Context), Tool: p.Tool, Summary: d.Summary, DecidedBy: rule.ByRule, Outcome: d.Outcome()}
	if lp.path != "" {
		v.PolicyTrust = string(lp.trust)
	}
	// Credentials in the clear stay off the tape and out of the export.
	rec := &tape.Record{ID: v.ID, Session: s.id, Mode: mode, Tool: p.Tool, Command: tape.Redact(commandOf(p)), Args: tape.RedactRaw(p.Args), Context: p.Context, Policy: lp.hash, DecidedBy: rule.ByRule,
		Facts: trace.encode(d, decided)}
	if p.DryRun {
		return g.dryRun(out, v, d, mode), nil
	}
	switch {
	case d.Allowed:
		v.Verdict, v.Allowed = rule.Allow, true
	case d.Ask && mode == rule.Enforce:
		ctx = waiting(ctx)
		o := g.ask(ctx, s, p, v, d)
		rec.AskedAt, rec.WaitedMs = o.AskedAt, o.Waited.Milliseconds()
		v.DecidedBy = o.DecidedBy
		if o.Allowed && d.Rule == "unexpected-effect" {
			s.acknowledge()
		}
		v.Allowed = o.Allowed
		v.Verdict = rule.VerdictOf(o.Allowed)
		if o.DecidedBy == rule.ByHeadless {
			v.Reason = d.Reason + "; " + o.Reason // keep the rule that asked: it says what to change
		} else {
			v.Rule, v.Reason = o.Rule, o.Reason
		}
	default:
		v.Verdict, v.Allowed = rule.Deny, mode != rule.Enforce
	}
	if p.Handle && v.Verdict == rule.Allow && env != nil && slices.Contains(env.ShellTools, p.Tool) {
		if id, err := g.issue(out, p, v.ID); err != nil {
			g.cfg.Logger.Warn("no handle for a rewrite; the host runs the line itself", "id", v.ID, "err", err)
			if confinedOnly {
				// Allowed only because admit would run it confined: the host
				// may not run it as it is.
				v.Verdict, v.Allowed, v.Rule, v.Outcome = rule.Deny, mode != rule.Enforce, rule.RunsCode, rule.OutcomeAsk
				v.Reason = "the line runs code and admit could not take it to run confined (" + err.Error() + "); run it through admit run"
			}
			if len(d.Rejudged) > 0 {
				// Its substitutions are admitted only because admit's runner
				// judges their words again: the host's shell would not.
				v.Verdict, v.Allowed, v.Rule, v.Outcome = rule.Deny, mode != rule.Enforce, rule.DynamicWord, rule.OutcomeDeny
				v.Reason = "the line has words only known when it runs (a command substitution, a variable), which only admit's own runner judges again, and admit could not take it to run (" + err.Error() + "); run it through admit run"
			}
		} else {
			v.Handle = id
		}
	}
	rec.Verdict, rec.Allowed, rec.Rule, rec.Reason, rec.Kind, rec.Targets, rec.DecidedBy = v.Verdict, v.Allowed, v.Rule, v.Reason, v.Kind, v.Targets, v.DecidedBy
	rec.Outcome, rec.Handle = v.Outcome, v.Handle
	if v.Verdict == rule.Deny {
		rec.Remedy = rule.Remedy(v.Rule, d.Hint)
	}
	if err := g.tape(ctx, rec); err != nil {
		if v.Handle != "" {
			_, _ = g.cfg.Handles.take(v.Handle) // the call may not run: its handle goes too
			v.Handle = ""
		}
		if mode == rule.Enforce {
			v.Verdict, v.Allowed, v.Rule, v.Outcome = rule.Deny, false, rule.TapeUnwritable, rule.OutcomeDeny
			v.Reason = "the decision could not be written to the tape, so the call may not run: " + err.Error()
		}
	}
	if v.Verdict == rule.Deny {
		v.Remedy = rule.Remedy(v.Rule, d.Hint)
		v.ToolError = policy.ToolError(v.Rule, v.Reason, d.Hint)
		s.refused(p)
	}
	if v.Verdict == rule.Allow {
		s.forgetRefusals()
	}
	if v.Allowed {
		g.observe(s, d)
		if tracked {
			s.terms.ran(p.Terminal, d.FinalCwdKnown, d.FinalCwd)
		}
		if held := backgroundHeld(p, d, env, v.Handle != ""); len(held) > 0 {
			s.holdFlux(v.ID, held, g.cfg.Now().Add(backgroundHold(p.TimeoutMs)))
		}
	}
	out.Wire = g.count(&v)
	out.Verdict, out.record = v, rec
	return out, nil
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
func (g *Gate) admitRuns(p CheckParams) bool {
	return p.Tool == runTool || p.Handle && g.cfg.Handles != nil
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
func (g *Gate) ask(ctx context.Context, s *session, p CheckParams, v Verdict, d policy.Decision) approvals.Outcome {
	b := g.cfg.Approvals
	if b == nil || g.headless() {
		b = g.nobody
	}
	q := approvals.Question{ID: v.ID, Session: s.id, Tool: p.Tool, Summary: d.Summary, Reason: d.Reason, Grant: d.Grant,
		Agent: agentOf(p.Context), Command: commandOf(p), Cwd: p.Cwd, Targets: d.Targets()}
	if p.Tool == runTool {
		q.Confinement = confinementWords()
	}
	// "Always allow" names the one command of the line that asks because
	// admit cannot judge it (a line of several commands too), or the
	// line's one command.
	var always []string
	switch {
	case len(d.Asks) == 1 && d.Answerable:
		always = d.Asks[0]
	case len(d.Asks) == 0 && len(d.Argv) == 1:
		always = d.Argv[0]
	}
	if g.cfg.Rules != nil && always != nil && !b.Headless() {
		q.Rule = rules.Suggest(always)
	}
	o := b.Decide(ctx, q)
	if o.Answer == approvals.AllowAlways && q.Rule != "" {
		r, err := rules.Parse(q.Rule, rule.OutcomeAllow)
		if err == nil {
			r.Examples, r.Note = []string{rules.Quote(always)}, "always allowed in answer to "+v.ID
			err = g.managedForbids(r)
		}
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
	return g.file.file != nil && g.file.file.Headless
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

func (g *Gate) observe(s *session, d policy.Decision) {
	for _, p := range d.Reads {
		s.obs.RecordFile(p)
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

// env assembles what a decision for s depends on, and the policy file it
// came from.
func (g *Gate) env(s *session) (*policy.Env, loadedPolicy, error) {
	roots := g.cfg.Roots.List()
	lp := g.loadPolicy(roots)
	g.mu.Lock()
	effects, profile, secrets := g.effects, g.shell, g.secrets
	g.mu.Unlock()
	if s.effects == string(command.ReadOnly) {
		// A session may narrow the person's effect mode, never widen it.
		effects = s.effects
	}
	e := &policy.Env{
		Roots: roots, Effects: command.Effects(effects), Profile: shell.Profile(profile), Home: g.cfg.Home,
		Commands: g.commands, FS: g.cfg.Resolver, Obs: s.obs, ShellTools: lp.shellTools, Personal: g.personal, Secrets: secrets,
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
