package command

import (
	"fmt"
	"testing"

	"admit/policy/rule"
	"admit/policy/rules"
)

// personRules200 are 200 rules as a person's file grows them: prefixes of
// many programs and subcommands, allow, ask and deny, with the ones the
// benchmark's lines match last, so that every match reads them all.
func personRules200(tb testing.TB) *rules.Set {
	tb.Helper()
	var list []rules.Rule
	decisions := []rule.Outcome{rule.OutcomeAllow, rule.OutcomeAllow, rule.OutcomeAsk, rule.OutcomeDeny}
	for i := 0; len(list) < 196; i++ {
		r, err := rules.Parse(fmt.Sprintf("tool%d sub%d *", i, i%7), decisions[i%len(decisions)])
		if err != nil {
			tb.Fatal(err)
		}
		list = append(list, r)
	}
	for _, m := range []string{"npm test *", "go test *", "git log *", "make *"} {
		r, err := rules.Parse(m, rule.OutcomeAllow)
		if err != nil {
			tb.Fatal(err)
		}
		list = append(list, r)
	}
	s, err := rules.NewSet(list)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// rulesLines are typical lines, with the toolchain commands a person's
// rules answer.
var rulesLines = append([]string{"npm test", "go test ./...", "make build", "npm test && git status"}, typical...)

// BenchmarkEvaluateRules compares a decision with 200 person rules loaded
// to one without: go test -bench EvaluateRules ./policy/command prints
// both (the bound: within 1.2x).
func BenchmarkEvaluateRules(b *testing.B) {
	w := newWorkspace(b)
	p := New(nil)
	for _, n := range []int{0, 200} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			c := w.context(false, "")
			if n > 0 {
				c.Rules = personRules200(b)
				if c.Rules.Len() != n {
					b.Fatalf("%d rules", c.Rules.Len())
				}
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				d := p.Evaluate(rulesLines[i%len(rulesLines)], w.ws, c)
				if i < len(rulesLines) && n > 0 && !d.Allowed {
					b.Fatalf("%q: %s %s", rulesLines[i], d.Rule, d.Reason)
				}
			}
		})
	}
}
