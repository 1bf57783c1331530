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
		// zsh's extendedglob reads ^ and # in a word as a pattern: refused
		// where it matches a name, passed as written where none does.
		{`cat .en^`, shell.Zsh, "matches .env"},
		{`cat .en#v`, shell.Zsh, "matches .env"},
		{`cat keys/id_ed^`, shell.Zsh, "matches keys/id_ed25519"},
		{`cat ^README.md`, shell.Zsh, "reads \"^README.md\" as a pattern"},
		{`head a.tx#t`, shell.Portable, "matches a.txt"},
		{`cat .en^`, shell.BashInteractive, ""},
		{`cat '.en^' ".en#v" .en\^`, shell.Zsh, ""},
		{`git show HEAD^ --stat`, shell.Zsh, ""},
		{`git log -1 HEAD^^ && echo issue#12`, shell.Portable, ""},
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

// TestExportInATerminal: a terminal's shell keeps what export sets for the
// lines after this one, which the gate judges without it. A variable that
// loads code is refused there (with how to set it for one command), and
// judged with the commands after it where the shell ends with the line.
func TestExportInATerminal(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	tests := []struct {
		line string
		prof shell.Profile
		want rule.Rule // "" allowed
		ask  bool
	}{
		{`export CI=true && cat a.txt`, shell.BashInteractive, "", false},
		{`export CI=true && cat a.txt`, shell.Zsh, "", false},
		{`export NODE_OPTIONS=--max-old-space-size=4096`, shell.BashInteractive, "", false},
		{`export NODE_OPTIONS=--require=./a.txt`, shell.BashInteractive, rule.HiddenCommand, false},
		{`export NODE_OPTIONS=--require=./a.txt`, shell.Zsh, rule.HiddenCommand, false},
		{`export NODE_OPTIONS=--require=./a.txt`, shell.Analyze, "", false},
		{`export NODE_OPTIONS=--require=./a.txt && npm test`, shell.Analyze, rule.RunsCode, true},
		{`export PATH=./bin`, shell.BashInteractive, rule.HiddenCommand, false},
		{`export CI=true`, shell.Fish, rule.ShellSyntax, false},
	}
	for _, tt := range tests {
		ctx := w.context(false, "")
		ctx.Profile = tt.prof
		d := p.Evaluate(tt.line, w.ws, ctx)
		switch {
		case tt.want == "" && !d.Allowed:
			t.Errorf("%s: %q = %s (ask %v): %s; want allowed", tt.prof, tt.line, d.Rule, d.Ask, d.Reason)
		case tt.want != "" && (d.Allowed || d.Rule != tt.want || d.Ask != tt.ask):
			t.Errorf("%s: %q = allowed %v ask %v %s: %s; want %s (ask %v)", tt.prof, tt.line, d.Allowed, d.Ask, d.Rule, d.Reason, tt.want, tt.ask)
		case tt.want == rule.HiddenCommand && tt.prof.Interactive() && strings.HasPrefix(tt.line, "export NODE") && !strings.Contains(d.Hint, "COMMAND"):
			t.Errorf("%s: %q: hint %q does not say how to set it for one command", tt.prof, tt.line, d.Hint)
		}
	}
}
