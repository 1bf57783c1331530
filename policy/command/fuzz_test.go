package command

import (
	"slices"
	"testing"

	"admit/policy/rule"
	"admit/policy/rules"
	"admit/policy/shell"
)

// broadRules allows "PROG *" for every program of the script, and every
// wrapper's and xargs' command too, as a person who trusts them all would.
func broadRules(s *shell.Script) *rules.Set {
	var list []rules.Rule
	for _, cmd := range s.Commands {
		for _, w := range cmd.Argv {
			r, err := rules.Parse(rules.Suggest([]string{w}), rule.OutcomeAllow)
			if err == nil {
				list = append(list, r)
			}
		}
	}
	set, err := rules.NewSet(list)
	if err != nil || set.Len() == 0 {
		return nil
	}
	return set
}

// FuzzEvaluate checks properties of every decision: no panic, and an
// allowed (or asking) decision never reports a path outside the roots. It
// is seeded with every command line of the corpus (internal/cases).
func FuzzEvaluate(f *testing.F) {
	for _, c := range lineCases(f) {
		f.Add(c.Line, c.Write())
	}
	w := newWorkspace(f)
	p := New(nil)
	f.Fuzz(func(t *testing.T, line string, write bool) {
		line = w.expand(line)
		c := w.context(write, "d:. d:src d:build f:a.txt f:.git/config")
		d := p.Evaluate(line, w.ws, c)
		if d.Allowed || d.Ask {
			for _, list := range [][]string{d.Reads, d.Writes, d.Listed} {
				for _, p := range list {
					if !inside(p, w.roots) {
						t.Fatalf("%q: allowed with %q outside the roots", line, p)
					}
				}
			}
		}
		for _, in := range d.Intents {
			// An intent is an admitted write's, of a path the decision
			// writes, and its source is inside too.
			if !slices.Contains(d.Writes, in.Path) || in.From != "" && !inside(in.From, w.roots) || in.Dir == "" || d.Kind != "write" {
				t.Fatalf("%q: intent %+v with writes %q", line, in, d.Writes)
			}
		}
		if d.Allowed && !write && len(d.Writes) > 0 {
			t.Fatalf("%q: read-only effects, yet allowed writes %q", line, d.Writes)
		}
		if !d.Allowed && d.Rule == rule.Allowed {
			t.Fatalf("%q: refused with rule allowed", line)
		}
		if d.Script != nil {
			for _, cmd := range d.Script.Commands {
				if len(cmd.Argv) > 0 {
					p.EvaluateArgv(cmd.Argv, w.ws, c)
				}
			}
		}
		// The broadest rules a person could write for the line's programs
		// never lift a refusal, nor a question other than the ones a rule
		// answers.
		if d.Allowed || d.Script == nil {
			return
		}
		if broad := broadRules(d.Script); broad != nil {
			c.Rules = broad
			r := p.Evaluate(line, w.ws, c)
			switch {
			case !d.Ask && (r.Allowed || r.Ask):
				t.Fatalf("%q: refused (%s) without rules, %s/%v with %d broad rules (%s)", line, d.Rule, r.Rule, r.Allowed, broad.Len(), r.Reason)
			case d.Ask && !d.Answerable && r.Allowed:
				t.Fatalf("%q: asked (%s) without rules, allowed with broad rules", line, d.Rule)
			}
		}
	})
}

// typical are commands agents run often, for the benchmark.
var typical = []string{
	"git diff HEAD~1 -- src/a.go",
	"grep -rn TODO src",
	"ls -la",
	"find . -name '*.go'",
	"git log --oneline -5 | head -3",
	"wc -l a b",
	"cat README.md | grep foo",
	"head -n 20 a.txt",
	"sort -u a | uniq -c",
	"cd src && ls",
}

func BenchmarkEvaluate(b *testing.B) {
	w := newWorkspace(b)
	p := New(nil)
	c := w.context(false, "")
	for _, line := range typical {
		if d := p.Evaluate(line, w.ws, c); !d.Allowed {
			b.Fatalf("%q: %s %s", line, d.Rule, d.Reason)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p.Evaluate(typical[i%len(typical)], w.ws, c)
	}
}

func BenchmarkEvaluateWrite(b *testing.B) {
	w := newWorkspace(b)
	p := New(nil)
	c := w.context(true, "d:. d:build")
	lines := []string{"mkdir -p build/out", "echo hi > out.txt", "rm -f build/x.o", "cp a.txt a.bak"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Evaluate(lines[i%len(lines)], w.ws, c)
	}
}
