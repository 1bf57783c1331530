package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"admit/approvals"
	"admit/gate"
	"admit/policy"
	"admit/policy/rule"
)

// countingAsker answers every question with answer and counts them.
type countingAsker struct {
	answer approvals.Answer
	asked  atomic.Int32
}

func (a *countingAsker) Ask(context.Context, approvals.Question) (approvals.Answer, error) {
	a.asked.Add(1)
	return a.answer, nil
}

// A hook call whose host lets admit run it (Handle) gets its handle before
// anyone is asked: when admit cannot take the line, a line only admit's
// runner may run is refused without a question, and code the person lets
// run only confined is put to the person like any code the host runs.
func TestHandleStageBeforeThePerson(t *testing.T) {
	h := newHostile(t, "")
	if err := os.WriteFile(filepath.Join(h.root, "Makefile"), []byte("test:\n\ttrue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	open := func(t *testing.T, handles *gate.HandleStore, asker *countingAsker) *gate.Gate {
		g, err := gate.Open(gate.Options{Dirs: []string{h.root}, Settings: gate.Settings{Mode: "enforce", Effects: "workspace-write", ConfinedRuns: "allow"}, Home: h.home,
			Bounds: policy.DefaultBounds(), Trust: h.trust, Rules: gate.NewRuleStore(filepath.Join(h.home, "..", "rules"), h.root),
			Handles: handles, Approvals: approvals.New(asker, approvals.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Close() })
		return g
	}
	broken := gate.NewHandleStore(filepath.Join(blocked, "handles")) // under a file: no handle can be kept

	t.Run("words only admit's runner judges again", func(t *testing.T) {
		asker := &countingAsker{answer: approvals.AllowOnce}
		v := check(t, open(t, broken, asker), gate.CheckParams{Tool: "Bash", Command: "echo $HOME", Handle: true})
		if v.Allowed || v.Rule != rule.DynamicWord || v.Handle != "" {
			t.Fatalf("verdict %+v", v)
		}
		if n := asker.asked.Load(); n != 0 {
			t.Fatalf("asked %d times", n)
		}
	})
	t.Run("code confined only by admit's runner", func(t *testing.T) {
		asker := &countingAsker{answer: approvals.Deny}
		v := check(t, open(t, broken, asker), gate.CheckParams{Tool: "Bash", Command: "make test", Handle: true})
		if v.Allowed || v.Rule != rule.HumanDenied || v.Handle != "" {
			t.Fatalf("verdict %+v", v)
		}
		if n := asker.asked.Load(); n != 1 {
			t.Fatalf("asked %d times, want once", n)
		}
	})
	t.Run("with a handle, confined code runs unasked", func(t *testing.T) {
		asker := &countingAsker{answer: approvals.Deny}
		v := check(t, open(t, gate.NewHandleStore(filepath.Join(t.TempDir(), "handles")), asker), gate.CheckParams{Tool: "Bash", Command: "make test", Handle: true})
		if !v.Allowed || v.Rule != rule.RuleAllows || v.Handle == "" {
			t.Fatalf("verdict %+v", v)
		}
		if n := asker.asked.Load(); n != 0 {
			t.Fatalf("asked %d times", n)
		}
	})
	t.Run("a refused question gives its handle back", func(t *testing.T) {
		asker := &countingAsker{answer: approvals.Deny}
		dir := filepath.Join(t.TempDir(), "handles")
		store := gate.NewHandleStore(dir)
		g, err := gate.Open(gate.Options{Dirs: []string{h.root}, Settings: gate.Settings{Mode: "enforce", Effects: "workspace-write"}, Home: h.home,
			Bounds: policy.DefaultBounds(), Trust: h.trust, Rules: gate.NewRuleStore(filepath.Join(h.home, "..", "rules"), h.root),
			Handles: store, Approvals: approvals.New(asker, approvals.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Close() })
		v := check(t, g, gate.CheckParams{Tool: "Bash", Command: "make test", Handle: true})
		if v.Allowed || v.Handle != "" || asker.asked.Load() != 1 {
			t.Fatalf("verdict %+v, asked %d", v, asker.asked.Load())
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
			t.Fatalf("handles left: %v", left)
		}
	})
}
