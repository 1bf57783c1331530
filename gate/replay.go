package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"admit/policy"
	"admit/policy/command"
	"admit/policy/facts"
	"admit/policy/rule"
	"admit/policy/rules"
	"admit/policy/shell"
	"admit/tape"
	"admit/workspace"
)

// ReplayOptions are what a replay judges the tape's calls under: a
// proposed policy file and the person's rules.
type ReplayOptions struct {
	// Policy is the proposed policy file; nil is the built-in policy.
	Policy *policy.File
	// Trust is how the proposed file takes effect: "" is as it would once
	// the person trusts it; policy.Untrusted is what it tightens alone.
	Trust policy.Trust
	// Rules gives the person's rules for a call decided under roots; nil
	// is none. An error is reported on the call (rules-invalid).
	Rules func(roots []string) (*rules.Set, error)
	// Secrets are the person's secret patterns; nil is the built-in ones.
	Secrets *command.Secrets
	Bounds  policy.Bounds
	// Places are the person's own places for a home folder (the gate's
	// PersonalPlaces with the trust and rules folders); nil: those under
	// the home alone.
	Places func(home string) []command.Place
	// Examples is how many calls each change lists (default 3).
	Examples int
}

// ReplayReport is what a proposed policy and rules would change in the
// calls of a tape. Before and after are the policy's answers (allow, ask,
// deny), not what a person answered.
type ReplayReport struct {
	Records   int `json:"records"`   // tape lines read
	Calls     int `json:"calls"`     // decisions among them (a run's result is not one)
	Replayed  int `json:"replayed"`  // calls judged again
	Unchanged int `json:"unchanged"` // same outcome and rule
	Changed   int `json:"changed"`
	// NoFacts counts calls taped without facts (before admit kept them,
	// or over the tape's bound): not judged again.
	NoFacts int `json:"noFacts"`
	// MissingFacts counts calls judged again with a question the tape
	// held no answer to: their answer may differ from what the live file
	// system would give, and fails closed where it does.
	MissingFacts int            `json:"missingFacts"`
	Changes      []ReplayChange `json:"changes"`
	Missing      []ReplayCall   `json:"missing,omitempty"` // examples of calls with facts missing
}

// ReplayChange groups the calls whose answer would change the same way.
type ReplayChange struct {
	From     rule.Outcome `json:"from"`
	To       rule.Outcome `json:"to"`
	FromRule rule.Rule    `json:"fromRule"`
	ToRule   rule.Rule    `json:"toRule"`
	Count    int          `json:"count"`
	Examples []ReplayCall `json:"examples"`
}

// ReplayCall is one replayed call.
type ReplayCall struct {
	ID       string       `json:"id"`
	Time     time.Time    `json:"time"`
	Tool     string       `json:"tool"`
	Command  string       `json:"command,omitempty"`
	Cwd      string       `json:"cwd,omitempty"`
	From     rule.Outcome `json:"from"`
	To       rule.Outcome `json:"to"`
	FromRule rule.Rule    `json:"fromRule"`
	ToRule   rule.Rule    `json:"toRule"`
	Reason   string       `json:"reason,omitempty"` // the new answer's
	Missing  []string     `json:"missing,omitempty"`
}

// Replay judges every decision of recs again under o and reports what
// would change. It reads only the records: every answer the file system
// and the observations gave comes from the facts the gate taped.
func Replay(recs []tape.Record, o ReplayOptions) (*ReplayReport, error) {
	if o.Examples <= 0 {
		o.Examples = 3
	}
	rp, err := newReplayer(o)
	if err != nil {
		return nil, err
	}
	rep := &ReplayReport{Records: len(recs), Changes: []ReplayChange{}}
	seen := map[string]bool{}
	groups := map[[4]string]int{}
	for i := range recs {
		rec := &recs[i]
		if rec.ID == "" || rec.Outcome == "" || seen[rec.ID] {
			continue // a follow-up (a run's result, a readback) has its decision's id
		}
		seen[rec.ID] = true
		rep.Calls++
		c, ok := rp.one(rec)
		if !ok {
			rep.NoFacts++
			if len(rep.Missing) < 4*o.Examples {
				rep.Missing = append(rep.Missing, c)
			}
			continue
		}
		rep.Replayed++
		if len(c.Missing) > 0 {
			rep.MissingFacts++
			if len(rep.Missing) < 4*o.Examples {
				rep.Missing = append(rep.Missing, c)
			}
		}
		if c.From == c.To && c.FromRule == c.ToRule {
			rep.Unchanged++
			continue
		}
		rep.Changed++
		k := [4]string{string(c.From), string(c.To), string(c.FromRule), string(c.ToRule)}
		gi, ok := groups[k]
		if !ok {
			gi = len(rep.Changes)
			groups[k] = gi
			rep.Changes = append(rep.Changes, ReplayChange{From: c.From, To: c.To, FromRule: c.FromRule, ToRule: c.ToRule})
		}
		g := &rep.Changes[gi]
		g.Count++
		if len(g.Examples) < o.Examples {
			g.Examples = append(g.Examples, c)
		}
	}
	slices.SortStableFunc(rep.Changes, func(a, b ReplayChange) int { return b.Count - a.Count })
	return rep, nil
}

// replayer holds the proposed policy, compiled once.
type replayer struct {
	o      ReplayOptions
	g      *Gate // compiles the policy as the live gate does; decides nothing
	lp     *loadedPolicy
	places map[string]*command.Personal
}

func newReplayer(o ReplayOptions) (*replayer, error) {
	roots, err := workspace.NewRoots()
	if err != nil {
		return nil, err
	}
	g, err := newGate(config{Mode: string(rule.Enforce), Effects: string(command.ReadOnly), Shell: "analyze", Roots: roots, Bounds: o.Bounds})
	if err != nil {
		return nil, err
	}
	f, name := o.Policy, "the proposed policy"
	if f == nil {
		f, name = policy.DefaultFile(), "built-in"
	}
	trust := o.Trust
	if trust == "" {
		trust = policy.Trusted
	}
	lp := g.compilePolicy(name, f, nil, trust)
	if lp.err != nil {
		return nil, lp.err
	}
	return &replayer{o: o, g: g, lp: lp, places: map[string]*command.Personal{}}, nil
}

// one judges rec again; false when it has no facts to judge from.
func (rp *replayer) one(rec *tape.Record) (ReplayCall, bool) {
	c := ReplayCall{ID: rec.ID, Time: rec.Time, Tool: rec.Tool, Command: rec.Command, From: rec.Outcome, FromRule: rec.Rule}
	var f facts.Facts
	if len(rec.Facts) == 0 || bytes.HasPrefix(rec.Facts, []byte(`{"truncated"`)) || json.Unmarshal(rec.Facts, &f) != nil || f.V != facts.Version {
		c.Missing = []string{"the decision's facts (taped before admit kept them, or over the tape's bound)"}
		return c, false
	}
	c.From, c.FromRule, c.Cwd = rule.Outcome(f.Outcome), rule.Rule(f.Rule), f.Cwd
	switch f.Before {
	case "cwd":
		// Refused for its working folder before any policy: the same under every one.
		c.To, c.ToRule = c.From, c.FromRule
		return c, true
	case "policy":
		c.Missing = []string{"every answer of the file system: the policy file in force could not be used, so the call was never judged"}
		return c, false
	}
	rp2 := facts.NewReplay(&f)
	env, err := rp.env(&f, rp2)
	if err == nil && !rec.Time.IsZero() {
		// The clock as it was when the call was decided, moving on from
		// there: date +%F judged again prints what it printed then.
		start, at := time.Now(), rec.Time
		env.Now = func() time.Time { return at.Add(time.Since(start)) }
	}
	if err != nil {
		c.To, c.ToRule, c.Reason = rule.OutcomeDeny, "policy-invalid", err.Error()
		return c, true
	}
	call := policy.Call{Tool: rec.Tool, Args: rec.Args, Argv: f.Argv, Cwd: f.Cwd, Background: f.Background, Terminal: f.Terminal, AdmitRuns: f.AdmitRuns,
		SecretValues: f.SecretValues}
	if f.Line {
		call.Command = rec.Command
	}
	if f.PathKnown {
		call.Path = f.Path
		if call.Path == nil {
			call.Path = []string{}
		}
	}
	if bytes.HasPrefix(rec.Args, []byte(`{"truncated"`)) || bytes.HasPrefix(rec.Args, []byte(`{"invalid"`)) {
		c.Missing = append(c.Missing, "the call's arguments (cut on the tape)")
	}
	if strings.Contains(rec.Command, "…(+") && f.Line {
		c.Missing = append(c.Missing, "the call's command line (cut on the tape)")
	}
	d := policy.Decide(call, env)
	d = rp.turns(d, &f, call)
	c.To, c.ToRule, c.Reason = d.Outcome(), d.Rule, d.Reason
	c.Missing = append(c.Missing, rp2.Missing()...)
	return c, true
}

// env is what the call is judged under: the recorded settings and
// answers, the proposed policy and the person's rules.
func (rp *replayer) env(f *facts.Facts, r *facts.Replay) (*policy.Env, error) {
	lp := rp.lp
	e := &policy.Env{
		Roots: f.Roots, Effects: command.Effects(f.Effects), Profile: shell.Profile(f.Profile), Home: f.Home,
		Commands: rp.g.commands, FS: r.FS(), Obs: r.Obs(), ShellTools: lp.shellTools, Personal: rp.personal(f.Home),
		Secrets: rp.o.Secrets, MaxRequestChars: f.MaxRequestChars, Budget: f.Budget, InFlux: f.InFlux,
	}
	if lp.table != nil {
		e.Commands, e.Baseline = lp.table, lp.baseline
	}
	var person *rules.Set
	if rp.o.Rules != nil {
		set, err := rp.o.Rules(f.Roots)
		if err != nil {
			e.RulesInvalid = err.Error()
		}
		person = set
	}
	e.Rules = rules.Merge(person, lp.rules)
	if len(f.Session) > 0 {
		var caps policy.Caps
		if err := json.Unmarshal(f.Session, &caps); err != nil {
			return nil, fmt.Errorf("the session's capability set on the tape: %w", err)
		}
		c := caps
		c.NeedsHuman = withBuiltins(c.NeedsHuman, lp.file.NeedsHuman)
		c.Mutators = withBuiltins(c.Mutators, lp.file.Mutators)
		e.Caps = c.Index()
	} else {
		fl := lp.file
		e.Caps = &policy.Caps{Label: fl.Label, Allow: withBuiltins(fl.Allow, builtinTools), NeedsHuman: fl.NeedsHuman,
			Mutators: withBuiltins(fl.Mutators, builtinMutators), WriteRoots: f.Roots}
		e.Caps.Index()
	}
	return e, nil
}

// turns takes again the gate's own turns of a decision (gate.Decide), as
// recorded: a one-call gate's terminal, a file tool's binding to the bytes
// read, the person's standing yes to confined runs, a tainted session.
func (rp *replayer) turns(d policy.Decision, f *facts.Facts, call policy.Call) policy.Decision {
	if (f.Tracked && f.OneCall || f.Pinned) && (d.Allowed || d.Ask) && (!d.FinalCwdKnown || d.FinalCwd != call.Cwd) {
		d.Allowed, d.Ask, d.Rule = false, false, rule.DynamicWord
		d.Reason = "the line may leave the terminal in another folder, and admit decides alone here, one call at a time"
	}
	if f.AmendRule != "" && (d.Allowed || d.Ask) {
		d.Allowed, d.Ask, d.Rule, d.Reason = false, false, rule.Rule(f.AmendRule), f.AmendWhy
	}
	if d.Ask && f.ConfinedOK && call.AdmitRuns && d.Answerable && (d.Rule == rule.RunsCode || d.Rule == rule.UnsupportedProgram) {
		d.Allowed, d.Ask, d.Rule = true, false, rule.RuleAllows
	}
	if f.Tainted != "" && d.Kind == "write" && (d.Allowed || d.Ask) {
		d.Allowed, d.Ask, d.Rule = false, true, "unexpected-effect"
		d.Reason = "an earlier run in this session " + f.Tainted + "; a person must acknowledge it before the next change"
	}
	return d
}

// personal is the person's places for home, made once.
func (rp *replayer) personal(home string) *command.Personal {
	if p, ok := rp.places[home]; ok {
		return p
	}
	var places []command.Place
	if rp.o.Places != nil {
		places = rp.o.Places(home)
	} else {
		places = command.PersonalPlaces(home, nil)
	}
	p := command.NewPersonal(places)
	rp.places[home] = p
	return p
}

// ReplayParams are admit/replay's params: what to propose, and which of
// the tape's records to judge again.
type ReplayParams struct {
	// Policy is "workspace": the workspace's policy file as it would take
	// effect once trusted; "built-in"; or "" for the policy in force.
	Policy string `json:"policy,omitempty"`
	// AddRule is a rule of the person's the replay adds to the rules in
	// force (a suggested rule, before it is taken).
	AddRule *RuleParams `json:"addRule,omitempty"`
	Since   string      `json:"since,omitempty"`
	Limit   int         `json:"limit,omitempty"`
}

// ReplayTape judges the gate's own tape again under p: what trusting the
// workspace's policy file, or taking a suggested rule, would change.
func (g *Gate) ReplayTape(p ReplayParams) (*ReplayReport, error) {
	f, err := TapeParams{Since: p.Since, Limit: p.Limit}.Filter()
	if err != nil {
		return nil, err
	}
	o := ReplayOptions{Bounds: g.cfg.Bounds, Secrets: g.secretsNow(), Places: g.placesFor}
	lp := g.loadPolicy(g.cfg.Roots.List())
	switch p.Policy {
	case "built-in":
	case "", "workspace":
		if lp.err != nil {
			return nil, &ParamError{"policy", lp.err.Error()}
		}
		switch {
		case lp.path != "":
			data, err := os.ReadFile(lp.path)
			if err != nil {
				return nil, &ParamError{"policy", err.Error()}
			}
			if o.Policy, err = policy.ParseFile(lp.path, data); err != nil {
				return nil, &ParamError{"policy", err.Error()}
			}
			if p.Policy == "" {
				o.Trust = lp.trust // as it takes effect now
			}
		case g.cfg.Policy != nil:
			o.Policy = g.cfg.Policy
		case p.Policy == "workspace":
			return nil, &ParamError{"policy", "the workspace has no policy file (.admit/policy.json)"}
		}
	default:
		return nil, &ParamError{"policy", fmt.Sprintf("must be workspace, built-in or absent, got %q", p.Policy)}
	}
	var extra *rules.Set
	if p.AddRule != nil {
		r, err := rules.Parse(p.AddRule.Match, p.AddRule.Decision)
		if err != nil {
			return nil, &ParamError{"addRule", err.Error()}
		}
		if extra, err = rules.NewSet([]rules.Rule{r}); err != nil {
			return nil, &ParamError{"addRule", err.Error()}
		}
	}
	o.Rules = func([]string) (*rules.Set, error) {
		var set *rules.Set
		if g.cfg.Rules != nil {
			s, err := g.cfg.Rules.Set()
			if err != nil {
				return nil, err
			}
			set = s
		}
		var org *rules.Set
		if g.cfg.Managed != nil {
			org = g.cfg.Managed.Rules
		}
		return rules.Merge(set, extra, org), nil
	}
	var recs []tape.Record
	if g.cfg.Tape != nil {
		if recs, err = tape.Query(g.cfg.Tape.Path(), f); err != nil {
			return nil, err
		}
	}
	return Replay(recs, o)
}

// secretsNow is the person's secret patterns in force.
func (g *Gate) secretsNow() *command.Secrets {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.secrets
}

// placesFor are the person's own places for home, as New names them.
func (g *Gate) placesFor(home string) []command.Place {
	places := command.PersonalPlaces(home, os.Getenv)
	if g.cfg.Trust != nil {
		places = append(places, command.Place{Path: g.cfg.Trust.Dir(), What: "the person's trust records of policy files"})
	}
	if g.cfg.Rules != nil {
		places = append(places, command.Place{Path: filepath.Dir(g.cfg.Rules.Files().User), What: "the person's rules"})
	}
	return places
}
