package command_test

import (
	"strings"
	"testing"

	"admit/internal/cases"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/policy/rules"
	"admit/policy/shell"
	"admit/workspace"
)

// TestCases judges every case of the corpus (internal/cases) with the
// command policy alone: Evaluate or EvaluateArgv, over the workspace's
// resolver, with the case's observations as given. The gate (gate)
// and admit check (internal/cli) walk the same cases.
func TestCases(t *testing.T) {
	p := command.New(nil)
	cases.Walk(t, func(t *testing.T, w *cases.Workspace, c *cases.Case) {
		if c.Tool != "" {
			t.Skip("a tool call is the gate's to judge: the command policy judges command lines")
		}
		d := evaluate(t, p, w, c)
		got := cases.Got{Outcome: cases.Refused, Rule: string(d.Rule), Reason: d.Reason, HiddenKnown: true}
		for _, h := range d.Hidden {
			got.Hidden = append(got.Hidden, strings.TrimPrefix(h, w.Root+"/"))
		}
		switch {
		case d.Allowed:
			got.Outcome = cases.Allowed
		case d.Ask:
			got.Outcome = cases.Asked
		}
		c.Check(t, got)
		checkInvariants(t, w, d)
	})
}

// evaluate puts one case to the policy.
func evaluate(t *testing.T, p *command.Policy, w *cases.Workspace, c *cases.Case) command.Decision {
	t.Helper()
	return evaluateUnder(t, p, w, c, nil)
}

// evaluateUnder puts one case to the policy with the person's rules
// answers wrote (nil: none) beside the case's own.
func evaluateUnder(t *testing.T, p *command.Policy, w *cases.Workspace, c *cases.Case, answers *rules.Set) command.Decision {
	t.Helper()
	roots, err := workspace.NewRoots(w.Roots...)
	if err != nil {
		t.Fatal(err)
	}
	fs := workspace.NewResolver(roots).SetHome(w.Home)
	obs := observations{files: map[string]command.ObsState{}, dirs: map[string]bool{}}
	resolve := func(rel string) string {
		r, err := fs.Resolve(w.Abs(c, rel))
		if err != nil {
			t.Fatalf("observation %q: %v", rel, err)
		}
		return r.Path
	}
	for _, p := range c.Observed {
		obs.files[resolve(p)] = command.Observed
	}
	for _, p := range c.Stale {
		obs.files[resolve(p)] = command.Stale
	}
	for _, p := range c.ObservedDir {
		obs.dirs[resolve(p)] = true
	}
	set, err := w.RuleSet(c)
	if err != nil {
		t.Skipf("the theme's policy file cannot be used (%v): the gate's to judge", err)
	}
	switch {
	case answers != nil && set != nil:
		set = rules.Merge(set, answers)
	case answers != nil:
		set = answers
	}
	ctx := &command.Context{Roots: roots.List(), Effects: command.Effects(c.Effects), Profile: shell.Profile(c.Shell),
		Home: w.Home, FS: fs, Obs: obs, Rules: set, Path: w.PathList(c), Terminal: c.Terminal,
		Substitutions: c.AdmitRuns, AdmitRuns: c.AdmitRuns}
	if c.Argv != nil {
		argv := make([]string, len(c.Argv))
		for i, a := range c.Argv {
			argv[i] = w.Expand(a)
		}
		return p.EvaluateArgv(argv, w.Cwd(c), ctx)
	}
	return p.Evaluate(w.Expand(c.Line), w.Cwd(c), ctx)
}

// checkInvariants holds for every decision: what is allowed or asked
// names no path outside the roots, and a refusal says why.
func checkInvariants(t *testing.T, w *cases.Workspace, d command.Decision) {
	t.Helper()
	if d.Allowed != (d.Rule == rule.Allowed || d.Rule == rule.RuleAllows) {
		t.Errorf("Allowed=%v with rule %s", d.Allowed, d.Rule)
	}
	if d.Allowed || d.Ask {
		for _, list := range [][]string{d.Reads, d.Writes, d.Listed} {
			for _, p := range list {
				if !insideAny(p, w.Roots) {
					t.Errorf("allowed with %q outside the roots", p)
				}
			}
		}
	}
	if !d.Allowed && d.Reason == "" {
		t.Errorf("refused (%s) without a reason", d.Rule)
	}
}

func insideAny(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || len(p) > len(r) && p[:len(r)] == r && p[len(r)] == '/' {
			return true
		}
	}
	return false
}

// observations are a case's, as the policy sees them.
type observations struct {
	files map[string]command.ObsState
	dirs  map[string]bool
}

func (o observations) File(p string) command.ObsState { return o.files[p] }
func (o observations) Dir(p string) bool              { return o.dirs[p] }
