package gate_test

import (
	"context"
	"sync"
	"testing"

	"admit/approvals"
	"admit/gate"
	"admit/internal/cases"
	"admit/policy/rule"
)

// takeRule is a person who answers every question "always allow" when
// it offers a rule, and allow once when it does not; it keeps what it
// was asked.
type takeRule struct {
	mu    sync.Mutex
	asked []approvals.Question
}

func (p *takeRule) Ask(_ context.Context, q approvals.Question) (approvals.Answer, error) {
	p.mu.Lock()
	p.asked = append(p.asked, q)
	p.mu.Unlock()
	if q.Rule != "" {
		return approvals.AllowAlways, nil
	}
	return approvals.AllowOnce, nil
}

func (p *takeRule) questions() []approvals.Question {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]approvals.Question(nil), p.asked...)
}

// TestEveryAskIsAnswered walks every case of the corpus that asks a
// person, puts it to a gate with a person who takes the offered rule,
// and checks that the question offered a rule that, once written, lets
// the same call run unasked, or said plainly why no rule can answer it.
func TestEveryAskIsAnswered(t *testing.T) {
	var mu sync.Mutex
	offered, none := 0, map[string]int{}
	cases.Walk(t, func(t *testing.T, w *cases.Workspace, c *cases.Case) {
		if c.Want.Outcome != cases.Asked {
			return
		}
		person := &takeRule{}
		b := approvals.New(person, approvals.Options{})
		defer b.Close()
		o, _ := caseOptions(t, w, c, gate.Options{Settings: gate.Settings{Mode: "enforce"}, Approvals: b})
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
		qs := person.questions()
		if len(qs) != 1 {
			t.Fatalf("asked %d questions, want 1 (verdict %s %s)", len(qs), v.Rule, v.Reason)
		}
		q := qs[0]
		if q.Rule == "" {
			if q.NoRule == "" {
				t.Fatalf("no rule offered, and no reason why (%s: %s)", v.Rule, q.Reason)
			}
			mu.Lock()
			none[q.NoRule]++
			mu.Unlock()
			return
		}
		if q.RuleEffects == nil || q.RuleCovers == "" {
			t.Errorf("the offered rule %q says nothing of what it covers", q.Rule)
		}
		again, err := g.Check(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !again.Allowed || again.Rule != rule.RuleAllows || len(person.questions()) != 1 {
			t.Errorf("after the offered rule %q was written, the same call is %s (%s), asked %d times", q.Rule, again.Rule, again.Reason, len(person.questions()))
		}
		mu.Lock()
		offered++
		mu.Unlock()
	})
	total := offered
	for _, n := range none {
		total += n
	}
	t.Logf("%d asks: %d offered a rule that answers them, %d said why none can", total, offered, total-offered)
	for why, n := range none {
		t.Logf("  %3d  %s", n, why)
	}
}
