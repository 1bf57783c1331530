package command_test

import (
	"os"
	"path/filepath"
	"testing"

	"admit/policy/command"
	"admit/policy/rule"
)

// The folder a line leaves the shell in is reported when every cd of it
// takes effect for certain, in a terminal or not.
func TestFinalCwd(t *testing.T) {
	ws, c := fluxTree(t)
	if err := os.MkdirAll(filepath.Join(ws, "src/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := command.New(nil)
	cases := []struct {
		line  string
		final string // "" for not known
	}{
		{"ls", "."},
		{"cd src", "src"},
		{"cd src && ls", "src"},
		{"cd src && cd sub", "src/sub"},
		{"cd src && cd ..", "."},
		{"ls; cd docs", "docs"},
		{"(cd src)", "."},
		{"(cd src); cd docs", ""}, // cd docs is judged in both folders the subshell may leave
		{"cd src || cd docs", ""},
		{"ls && cd src", ""},
		{"ls | cd src", ""},
		{"cd nothere", ""},
	}
	for _, tc := range cases {
		d := p.Evaluate(tc.line, ws, c)
		if !d.Allowed {
			t.Errorf("%s: %s %s", tc.line, d.Rule, d.Reason)
			continue
		}
		want := filepath.Join(ws, tc.final)
		if tc.final == "" && d.FinalCwdKnown || tc.final != "" && (!d.FinalCwdKnown || d.FinalCwd != want) {
			t.Errorf("%s: final %q known %v, want %q", tc.line, d.FinalCwd, d.FinalCwdKnown, tc.final)
		}
	}
	// In a terminal, the same lines are refused when the folder is not
	// known, and admitted otherwise.
	c.Terminal = true
	for _, tc := range cases {
		d := p.Evaluate(tc.line, ws, c)
		if tc.final == "" && (d.Allowed || d.Rule != rule.DynamicWord) || tc.final != "" && !d.Allowed {
			t.Errorf("in a terminal, %s: %s %s", tc.line, d.Rule, d.Reason)
		}
	}
	if d := p.EvaluateArgv([]string{"ls"}, ws, c); !d.FinalCwdKnown || d.FinalCwd != ws {
		t.Errorf("an argv: %+v", d)
	}
}
