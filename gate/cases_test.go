package gate_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"admit/gate"
	"admit/internal/cases"
	"admit/policy"
	"admit/policy/rule"
)

// TestCases puts every case of the corpus (internal/cases) to the gate as
// admit check builds it: Open with the workspace's roots, nobody to ask
// (what asks a person is refused, and says it was asked), the case's
// observations made through Observe, then Check. The command policy
// (policy/command) and admit check (internal/cli) walk the same cases.
func TestCases(t *testing.T) {
	cases.Walk(t, func(t *testing.T, w *cases.Workspace, c *cases.Case) {
		o, _ := caseOptions(t, w, c, gate.Options{Headless: true})
		g, err := gate.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		p := caseParams(t, g, w, c)
		v, err := g.Check(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		c.Check(t, verdictOutcome(v))
		if !v.Allowed && v.ToolError == "" {
			t.Errorf("refused (%s) without a tool error for the agent", v.Rule)
		}
	})
}

// caseOptions are the options a case is decided under: its roots, home,
// effects and shell, the person's rules it writes (their store is
// returned too) and a trust store of its own, over o, which holds what the
// caller adds (a person, an exporter, the mode).
func caseOptions(t *testing.T, w *cases.Workspace, c *cases.Case, o gate.Options) (gate.Options, *gate.RuleStore) {
	t.Helper()
	rulesDir := t.TempDir()
	if err := c.WriteRules(rulesDir); err != nil {
		t.Fatal(err)
	}
	o.Dirs, o.Home, o.Bounds = w.Roots, w.Home, policy.DefaultBounds()
	o.Settings.Effects, o.Settings.Shell = c.Effects, c.Shell
	o.Trust, o.Rules = gate.NewTrustStore(t.TempDir()), gate.NewRuleStore(rulesDir, w.Root)
	return o, o.Rules
}

// caseParams makes the case's observations (and the changes after them)
// through g, and returns the call it puts to g.
func caseParams(t *testing.T, g *gate.Gate, w *cases.Workspace, c *cases.Case) gate.CheckParams {
	t.Helper()
	cwd := w.Cwd(c)
	if len(c.Observed)+len(c.ObservedDir)+len(c.Stale) > 0 {
		paths := append(append([]string(nil), c.Observed...), c.Stale...)
		if _, err := g.Observe(gate.ObserveParams{Paths: paths, Dirs: c.ObservedDir, Cwd: cwd}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range c.Stale {
		// Someone else changes the file after the agent read it.
		f, err := os.OpenFile(w.Abs(c, p), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString("changed\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	p := gate.CheckParams{Tool: "bash", Cwd: cwd}
	if c.Path != nil {
		path := w.Expand(*c.Path)
		p.Env = &gate.CallEnv{PATH: &path}
	}
	if c.Terminal {
		p.Terminal = "t1"
	}
	switch {
	case c.Tool != "":
		p.Tool, p.Args = c.Tool, json.RawMessage(w.Expand(c.Args))
	case c.Argv != nil:
		p.Argv = make([]string, len(c.Argv))
		for i, a := range c.Argv {
			p.Argv[i] = w.Expand(a)
		}
	default:
		p.Command = w.Expand(c.Line)
		if c.AdmitRuns {
			p.Tool = "admit.run"
		}
	}
	return p
}

// verdictOutcome reads a verdict of a gate with nobody to ask.
func verdictOutcome(v gate.Verdict) cases.Got {
	got := cases.Got{Outcome: cases.Refused, Rule: string(v.Rule), Reason: v.Reason}
	switch {
	case v.Allowed:
		got.Outcome = cases.Allowed
	case v.Outcome == rule.OutcomeAsk:
		got.Outcome = cases.Asked
	}
	return got
}
