package cases

import (
	"slices"
	"strings"
)

// TB is what the corpus asks of a test or benchmark (*testing.T and
// *testing.B have it). The package does not import testing, so that a
// binary that reads the corpus (admit bench) does not link it.
type TB interface {
	Helper()
	Fatal(args ...any)
	Errorf(format string, args ...any)
	TempDir() string
}

// T is a TB with subtests of its own kind: *testing.T.
type T[Self any] interface {
	TB
	Run(name string, f func(t Self)) bool
}

// Got is the decision a level made for a case.
type Got struct {
	Outcome Outcome
	Rule    string // "allowed" for an allowed call
	Reason  string
	// Hidden are the files the run hides (relative to the main root),
	// when HiddenKnown: the level can tell (the command policy).
	Hidden      []string
	HiddenKnown bool
}

// Walk runs fn for every case as the subtest THEME/NAME of t, each theme
// in a workspace of its own (Build). Run one with
// go test -run 'TestCases/THEME/NAME', spaces written as underscores.
func Walk[Self T[Self]](t Self, fn func(t Self, w *Workspace, c *Case)) {
	t.Helper()
	themes, err := Themes()
	if err != nil {
		t.Fatal(err)
	}
	for i := range themes {
		th := &themes[i]
		t.Run(th.Name, func(t Self) {
			w := Build(t, th)
			for j := range th.Cases {
				c := &th.Cases[j]
				t.Run(c.Name, func(t Self) { fn(t, w, c) })
			}
		})
	}
}

// Check reports a decision that is not the case's want.
func (c *Case) Check(t TB, got Got) {
	t.Helper()
	want := c.Want
	if got.HiddenKnown && c.Hidden != nil && !slices.Equal(got.Hidden, c.Hidden) {
		t.Errorf("%s: %s\n\thides %q\n\twant %q", c.Pos, c, got.Hidden, c.Hidden)
	}
	if got.Outcome == want.Outcome && got.Rule == want.Rule {
		return
	}
	gw := Want{got.Outcome, got.Rule}
	t.Errorf("%s: %s\n\tgot  %s (%s)\n\twant %s", c.Pos, c, gw, got.Reason, want)
}

// String is the call, as a message shows it.
func (c *Case) String() string {
	var b strings.Builder
	switch {
	case c.Tool != "":
		b.WriteString(c.Tool + " " + c.Args)
	case c.Argv != nil:
		b.WriteString("argv " + strings.Join(c.Argv, " "))
	default:
		b.WriteString(c.Line)
	}
	for _, kv := range [][2]string{{"cwd", c.Cwd}, {"effects", c.Effects}, {"observed", strings.Join(c.Observed, " ")},
		{"observed-dir", strings.Join(c.ObservedDir, " ")}, {"stale", strings.Join(c.Stale, " ")}, {"shell", c.Shell}, {"path", derefOr(c.Path)}, {"terminal", map[bool]string{true: "yes"}[c.Terminal]}} {
		if kv[1] != "" && kv[1] != "read-only" && kv[1] != "analyze" {
			b.WriteString(" [" + kv[0] + " " + kv[1] + "]")
		}
	}
	return b.String()
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
