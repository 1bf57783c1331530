package command

import (
	"strings"
	"testing"

	"admit/policy/rule"
	"admit/policy/shell"
)

// TestShellProfiles judges lines as the shell that will run them: the
// same line is allowed for bash -c and refused, with the shell named and a
// hint, for the terminal's shell that would run more than was judged.
func TestShellProfiles(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	tests := []struct {
		line string
		prof shell.Profile
		want string // "" allowed, else text of the reason
	}{
		{`cat a.txt # ; touch M`, shell.Analyze, ""},
		{`cat a.txt # ; touch M`, shell.Zsh, "interactive zsh has no comments"},
		{`cat a.txt # ; touch M`, shell.BashInteractive, ""},
		{`cat \x2fetc\x2fhostname`, shell.Analyze, ""},
		{`cat \x2fetc\x2fhostname`, shell.Fish, "fish reads \\x as an escape"},
		{"cat 'a.txt\x15' b.txt", shell.BashInteractive, "interactive bash acts on it as a key"},
		{`grep -n a a.txt | head -5`, shell.Fish, ""},
		{`git status`, shell.Zsh, ""},
	}
	for _, tt := range tests {
		ctx := w.context(false, "")
		ctx.Profile = tt.prof
		d := p.Evaluate(tt.line, w.ws, ctx)
		if tt.want == "" {
			if !d.Allowed {
				t.Errorf("%s: %q refused: %s: %s", tt.prof, tt.line, d.Rule, d.Reason)
			}
			continue
		}
		if d.Allowed || d.Rule != rule.ShellSyntax || !strings.Contains(d.Reason, tt.want) || d.Hint == "" {
			t.Errorf("%s: %q = allowed %v, %s %q, hint %q; want shell-syntax naming %q with a hint",
				tt.prof, tt.line, d.Allowed, d.Rule, d.Reason, d.Hint, tt.want)
		}
	}
}
