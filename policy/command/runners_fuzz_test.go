package command

import (
	"strings"
	"testing"

	"admit/policy/rule"
)

// FuzzRunnerInner checks that a runner never lifts a refusal: a command
// of plain words the policy refuses is refused still when uv run, poetry
// run, npx or npx -c runs it. It is seeded with the corpus's lines of
// one simple command.
func FuzzRunnerInner(f *testing.F) {
	for _, c := range lineCases(f) {
		if plainWords(c.Line) {
			f.Add(c.Line, c.Write())
		}
	}
	for _, s := range []string{"sh -c id", "cat /etc/passwd", "cat /dev/urandom", "git log --format=%GS", "make --eval=x", "rm -rf /", "git shortlog --group=format:%GS", "go vet -vettool=/tmp/x"} {
		f.Add(s, false)
	}
	w := newWorkspace(f)
	p := New(nil)
	f.Fuzz(func(t *testing.T, line string, write bool) {
		if !plainWords(line) || strings.HasPrefix(line, "-") || strings.TrimSpace(line) == "" {
			return
		}
		c := w.context(write, "d:. d:src f:a.txt")
		d := p.Evaluate(line, w.ws, c)
		if d.Allowed || d.Ask || d.Rule == rule.ShellSyntax || leadingAssignment(line) {
			// What only the shell reads (X=1 cmd, export, time) is a
			// program's name behind a runner, asked as a program of the
			// workspace or in no table.
			return
		}
		for _, by := range []string{"uv run ", "poetry run ", "npx ", "npm exec -- ", "pnpm exec ",
			"poetry -C src run ", "bun --cwd src x ", "uv tool run ", "hatch env run -- ", "hatch run test:", "tox exec -- ", "yarn workspace web exec "} {
			if got := p.Evaluate(by+line, w.ws, c); got.Allowed || got.Ask {
				t.Fatalf("%q is refused (%s), and %q is not: %s %s", line, d.Rule, by+line, got.Rule, got.Reason)
			}
		}
		if got := p.Evaluate("npx -c '"+line+"'", w.ws, c); got.Allowed || got.Ask {
			t.Fatalf("%q is refused (%s), and npx -c of it is not: %s %s", line, d.Rule, got.Rule, got.Reason)
		}
	})
}

// plainWords reports a line of words a shell passes on as written.
func plainWords(line string) bool {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if !(c == ' ' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("./=_-%,:+@", c) >= 0) {
			return false
		}
	}
	return true
}

// leadingAssignment reports a line whose first word is NAME=value: a
// shell's assignment, a program's name behind a runner.
func leadingAssignment(line string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	name, _, ok := strings.Cut(first, "=")
	return ok && name != "" && !strings.ContainsAny(name, "/.-")
}
