package gate

import (
	"admit/internal/otelexport"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"admit/policy"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/policy/shell"
	"admit/tape"
	"admit/workspace"
	"admit/workspace/run"
)

// Mode is the gate's current mode.
func (g *Gate) Mode() rule.Mode {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mode
}

// State is what admit/state and admit/didChangeState carry.
type State struct {
	Mode        rule.Mode `json:"mode"`
	Effects     string    `json:"effects"`
	Shell       string    `json:"shell"`
	Roots       []string  `json:"roots"`
	Counts      Counts    `json:"counts"`
	Tape        string    `json:"tape"`
	TapeError   string    `json:"tapeError,omitempty"`
	PolicyError string    `json:"policyError,omitempty"`
	Policy      string    `json:"policy,omitempty"` // the policy file in force, or "built-in"
	PolicyTrust string    `json:"policyTrust,omitempty"`
	// PolicyWidens says what an untrusted policy file would widen, were
	// the person to trust it (admit/reviewPolicy shows the file).
	PolicyWidens []string               `json:"policyWidens,omitempty"`
	Sessions     []string               `json:"sessions"`
	Grants       map[string][]string    `json:"grants,omitempty"`
	Watch        *workspace.WatchStatus `json:"watch,omitempty"`
	Socket       string                 `json:"socket,omitempty"`
	Confinement  string                 `json:"confinement,omitempty"`
	// HooksOff names the repository's files that switch the agents' own
	// hooks off (admit's hook is then never called).
	HooksOff []HooksOff `json:"hooksOff,omitempty"`
	// Walls say which layers confine a run here: for a judged command and
	// for a program that runs code, and what this machine lacks.
	Walls *run.Machine `json:"walls,omitempty"`
	// Managed is what the organisation's managed policy pins (managed.go),
	// absent without one.
	Managed *ManagedState `json:"managed,omitempty"`
	// Export counts what went to the collector and what could not
	// (internal/otelexport), absent without an export.
	Export *otelexport.Stats `json:"export,omitempty"`
}

// Counts are the decisions since the server started.
type Counts struct {
	Allowed   int64 `json:"allowed"`
	Denied    int64 `json:"denied"`
	WouldDeny int64 `json:"wouldDeny"`
	Pending   int   `json:"pending"`
}

// State reports the gate's state. What only the server knows (the
// watcher, the socket) the server adds.
func (g *Gate) State() State {
	g.loadPolicy(g.cfg.Roots.List()) // a stat: the state names the file in force now
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
	st.Mode, st.Effects, st.Shell, st.TapeError = g.mode, g.effects, g.shell, g.tapeErr
	f := g.file
	if f == nil {
		f = &loadedPolicy{}
	}
	if f.err != nil {
		st.PolicyError = f.err.Error()
	}
	st.Policy, st.PolicyTrust = f.path, string(f.trust)
	if st.Policy == "" {
		st.Policy = "built-in"
	}
	if f.trust == policy.Untrusted {
		st.PolicyWidens = f.widens
	}
	for id := range g.sessions {
		st.Sessions = append(st.Sessions, id)
	}
	g.mu.Unlock()
	slices.Sort(st.Sessions)
	st.HooksOff = g.hooksOff()
	st.Managed = g.managedState()
	st.Export = g.exportStats()
	return st
}

// SetMode changes the mode, the effect mode or the shell profile; empty
// values keep the current ones.
func (g *Gate) SetMode(mode, effects, shellProfile string) error {
	return g.SetSettings(Settings{Mode: mode, Effects: effects, Shell: shellProfile})
}

// Settings are what a person configures a gate with, wherever they come
// from: the editor's initializationOptions and didChangeConfiguration
// (rpc; the json names are docs/protocol.md's), the person's settings file
// for a gate deciding alone (internal/cli), a command's flags. Open takes
// them in Options, each "" or nil its default; a running gate takes them at
// once (SetSettings), each "" or nil keeping what is in force.
type Settings struct {
	// Mode is off, warn or enforce (Open's default: enforce).
	Mode string `json:"mode,omitempty"`
	// Effects is read-only or workspace-write (Open's default:
	// Bounds.Effects, else read-only).
	Effects string `json:"effects,omitempty"`
	// Shell is the profile a line is judged with (Open's default: analyze).
	Shell string `json:"shell,omitempty"`
	// SecretPatterns are the person's patterns of files whose reading
	// asks, added to the built-in ones ("!PATTERN" exempts).
	SecretPatterns []string `json:"secretPatterns,omitempty"`
	// ConfinedRuns is "ask" (the default: a program that runs code is
	// asked) or "allow" (it runs without a question when admit itself runs
	// it confined).
	ConfinedRuns string `json:"confinedRuns,omitempty"`
	// AcceptWeakerConfinement runs a confined command even where this
	// machine lacks a wall it needs. A pointer, so that a change of
	// settings can turn it off again.
	AcceptWeakerConfinement *bool `json:"acceptWeakerConfinement,omitempty"`
}

// Check refuses a value no gate takes, as a *ParamError naming its field;
// empty values are not checked.
func (st Settings) Check() error {
	if st.Mode != "" {
		if _, err := rule.ParseMode(st.Mode); err != nil {
			return &ParamError{"mode", err.Error()}
		}
	}
	if st.Effects != "" {
		if err := policy.CheckEffects("effects", st.Effects); err != nil {
			return &ParamError{"effects", err.Error()}
		}
	}
	if st.Shell != "" {
		if _, err := shell.ParseProfile(st.Shell); err != nil {
			return &ParamError{"shell", err.Error()}
		}
	}
	switch st.ConfinedRuns {
	case "", "ask", "allow":
	default:
		return &ParamError{"confinedRuns", fmt.Sprintf("must be ask or allow, got %q", st.ConfinedRuns)}
	}
	return nil
}

// SetSettings applies the person's settings; a bad one is a ParamError
// naming it, and nothing is applied then.
func (g *Gate) SetSettings(st Settings) error {
	if err := st.Check(); err != nil {
		return err
	}
	var secrets *command.Secrets
	if st.SecretPatterns != nil {
		if err := checkManagedSecrets(g.cfg.Managed, st.SecretPatterns); err != nil {
			return err
		}
		pats := secretPatterns(g.cfg.Managed, st.SecretPatterns)
		if pats == nil {
			pats = command.DefaultSecretPatterns()
		}
		s, err := command.NewSecrets(pats)
		if err != nil {
			return &ParamError{"secretPatterns", err.Error()}
		}
		secrets = s
	}
	if err := g.checkManaged(st.Mode, st.Effects, st.Shell, st.ConfinedRuns); err != nil {
		return err
	}
	g.mu.Lock()
	if st.Mode != "" {
		g.mode = rule.Mode(st.Mode)
	}
	if st.Effects != "" {
		g.effects = st.Effects
	}
	if st.Shell != "" {
		g.shell = st.Shell
	}
	if secrets != nil {
		g.secrets = secrets
	}
	if st.AcceptWeakerConfinement != nil {
		g.acceptWeaker = *st.AcceptWeakerConfinement
	}
	list := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		list = append(list, s)
	}
	g.mu.Unlock()
	if st.ConfinedRuns != "" {
		g.allowConfinedCode.Store(st.ConfinedRuns == "allow")
	}
	for _, s := range list {
		s.forgetRefusals()
	}
	g.stateChanged()
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
	for _, p := range paths {
		if g.shownInState(p) {
			// The client shows the policy's trust and errors and the hooks
			// a repository switches off: tell it now, not at the next
			// decision (State reads the files again).
			g.stateChanged()
			break
		}
	}
}

// shownInState reports whether the state says something about the file at
// p: a root's policy file, or a file that switches the agents' hooks off.
func (g *Gate) shownInState(p string) bool {
	for _, root := range g.cfg.Roots.List() {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			continue
		}
		if rel == filepath.Join(".admit", "policy.json") {
			return true
		}
		for _, sw := range hookSwitches {
			if rel == filepath.FromSlash(sw.rel) {
				return true
			}
		}
	}
	return false
}

// TapeParams filter admit/tape.
type TapeParams struct {
	Since   string `json:"since,omitempty"` // RFC 3339
	Limit   int    `json:"limit,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Session string `json:"session,omitempty"`
}

// Filter turns the params into a tape filter; a bad since names the field.
func (p TapeParams) Filter() (tape.Filter, error) {
	f := tape.Filter{Limit: p.Limit, Verdict: rule.Verdict(p.Verdict), Rule: rule.Rule(p.Rule), Tool: p.Tool, Session: p.Session}
	if p.Since != "" {
		t, err := time.Parse(time.RFC3339Nano, p.Since)
		if err != nil {
			return f, &ParamError{"since", "must be an RFC 3339 time, got " + strconv.Quote(p.Since)}
		}
		f.Since = t
	}
	if p.Limit < 0 {
		return f, &ParamError{"limit", "must not be negative"}
	}
	return f, nil
}

// Tape returns the records of the gate's tape that p selects; none for a
// gate without a tape.
func (g *Gate) Tape(p TapeParams) ([]tape.Record, error) {
	f, err := p.Filter()
	if err != nil {
		return nil, err
	}
	if g.cfg.Tape == nil {
		return []tape.Record{}, nil
	}
	recs, err := tape.Query(g.cfg.Tape.Path(), f)
	if err != nil {
		return nil, err
	}
	if recs == nil {
		recs = []tape.Record{}
	}
	return recs, nil
}
