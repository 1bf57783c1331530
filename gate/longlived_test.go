package gate_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"admit/gate"
	"admit/policy"
	"admit/policy/rule"
)

// clock is a settable time for the gate.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestLongLivedSession: a session that lasts as long as its client has no
// step total and no wall time, but a rate per minute: hundreds of calls
// over a day pass, a burst over the rate is refused until the minute has
// gone by, and a task session still stops at its maxSteps.
func TestLongLivedSession(t *testing.T) {
	h := newHostile(t, "")
	clk := &clock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	g, err := gate.Open(gate.Options{Dirs: []string{h.root}, Settings: gate.Settings{Mode: "enforce"}, Home: h.home, Bounds: policy.DefaultBounds(), Headless: true, Trust: h.trust, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	tools := []json.RawMessage{json.RawMessage(`{"name":"read_note","annotations":{"readOnlyHint":true}}`)}
	long, err := g.OpenSession(ctx, gate.OpenSessionParams{CapsSpec: policy.CapsSpec{Label: "mcp", Tools: tools}, LongLived: true, Bounds: map[string]int64{"maxStepsPerMinute": 5}})
	if err != nil {
		t.Fatal(err)
	}
	call := func(session, path string) gate.Verdict {
		args, _ := json.Marshal(map[string]string{"path": path})
		return check(t, g, gate.CheckParams{Session: session, Tool: "read_note", Args: args})
	}
	for i := range 300 { // five hours of one call a minute, well past maxSteps and timeoutMs
		if v := call(long, "README.md"); !v.Allowed {
			t.Fatalf("call %d: %s %s", i+1, v.Rule, v.Reason)
		}
		clk.add(time.Minute)
	}
	for i := range 5 {
		if v := call(long, "README.md"); !v.Allowed {
			t.Fatalf("burst call %d: %s %s", i+1, v.Rule, v.Reason)
		}
		clk.add(time.Second)
	}
	if v := call(long, "README.md"); v.Allowed || v.Rule != rule.BudgetExhausted {
		t.Fatalf("a sixth call within the minute: %s %s", v.Rule, v.Reason)
	}
	clk.add(56 * time.Second) // the burst's first call is a minute old
	if v := call(long, "README.md"); !v.Allowed {
		t.Fatalf("after the minute: %s %s", v.Rule, v.Reason)
	}

	task, err := g.OpenSession(ctx, gate.OpenSessionParams{CapsSpec: policy.CapsSpec{Label: "task", Tools: tools}, Bounds: map[string]int64{"maxSteps": 3}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if v := call(task, "README.md"); !v.Allowed {
			t.Fatalf("task call %d: %s", i+1, v.Rule)
		}
	}
	if v := call(task, "README.md"); v.Rule != rule.BudgetExhausted {
		t.Fatalf("a task session's fourth call: %s", v.Rule)
	}
	// A loop retrying one refused call is stopped by the retry bound in a
	// long-lived session too.
	for i := 0; ; i++ {
		clk.add(time.Minute)
		v := call(long, "/etc/passwd")
		if v.Rule == rule.BudgetExhausted {
			break
		}
		if i > int(policy.DefaultBounds().MaxRetries)+1 {
			t.Fatalf("retry %d still judged: %s", i, v.Rule)
		}
	}
}
