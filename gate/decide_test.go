package gate_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"admit/approvals"
	"admit/gate"
	"admit/policy"
	"admit/policy/rule"
	"admit/tape"
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

	for _, tc := range []struct {
		name    string
		answer  approvals.Answer
		handles func(t *testing.T) *gate.HandleStore
		command string
		allowed bool
		rule    rule.Rule
		handle  bool // a handle is given
		asked   int32
	}{
		{"words only admit's runner judges again", approvals.AllowOnce, func(*testing.T) *gate.HandleStore { return broken }, "echo $HOME", false, rule.DynamicWord, false, 0},
		{"code confined only by admit's runner", approvals.Deny, func(*testing.T) *gate.HandleStore { return broken }, "make test", false, rule.HumanDenied, false, 1},
		{"with a handle, confined code runs unasked", approvals.Deny, func(t *testing.T) *gate.HandleStore {
			return gate.NewHandleStore(filepath.Join(t.TempDir(), "handles"))
		}, "make test", true, rule.RuleAllows, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asker := &countingAsker{answer: tc.answer}
			v := check(t, open(t, tc.handles(t), asker), gate.CheckParams{Tool: "Bash", Command: tc.command, Handle: true})
			if v.Allowed != tc.allowed || v.Rule != tc.rule || (v.Handle != "") != tc.handle {
				t.Fatalf("verdict %+v", v)
			}
			if n := asker.asked.Load(); n != tc.asked {
				t.Fatalf("asked %d times, want %d", n, tc.asked)
			}
		})
	}
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
		if left := liveHandles(t, dir); len(left) != 0 {
			t.Fatalf("handles left: %v", left)
		}
	})
}

// TestCheckKeepsNothingBetweenCalls: Check decides in a judging it reuses;
// calls of every kind, from four callers at once, each get the verdict a
// gate of their own gives the same call, nothing of another call in it.
func TestCheckKeepsNothingBetweenCalls(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt", ".env"} {
		if err := os.WriteFile(filepath.Join(root, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *gate.Gate {
		g, err := gate.Open(gate.Options{Dirs: []string{root}, Headless: true, Bounds: policy.DefaultBounds(),
			Settings: gate.Settings{Mode: "enforce", Effects: "read-only"}, TapePath: filepath.Join(t.TempDir(), "tape.jsonl"),
			Tape: tape.Options{Sync: tape.SyncNone}, TapeRequired: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	var calls []gate.CheckParams
	for i := range 60 {
		n := strconv.Itoa(i)
		calls = append(calls, []gate.CheckParams{
			{Tool: "Read", Args: json.RawMessage(`{"file_path":"a.txt"}`)},
			{Tool: "bash", Command: "cat b.txt | grep " + n},
			{Tool: "bash", Command: "cat /etc/passwd-" + n},
			{Tool: "Read", Args: json.RawMessage(`{"file_path":".env"}`)},
			{Tool: "Write", Args: json.RawMessage(`{"file_path":"new-` + n + `.txt","content":"x"}`)},
			{Tool: "bash", Command: "ls -la && git status --short " + n},
		}[i%6])
	}
	want := make([]gate.Verdict, len(calls))
	for i, p := range calls {
		d, err := open().Decide(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = d.Verdict
	}
	g := open()
	got := make([]gate.Verdict, len(calls))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(calls); i += 4 {
				v, err := g.Check(context.Background(), calls[i])
				if err != nil {
					t.Error(err)
				}
				got[i] = v
			}
		})
	}
	wg.Wait()
	for i := range calls {
		a, b := got[i], want[i]
		a.ID, b.ID = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Errorf("call %d %+v:\n got  %+v\n want %+v", i, calls[i], a, b)
		}
	}
}

// liveHandles are the handles a folder store's file holds given out and
// not taken.
func liveHandles(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "handles.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	given := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct{ ID, Taken string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a line of the handle file: %v: %q", err, line)
		}
		if rec.Taken != "" {
			delete(given, rec.Taken)
		} else {
			given[rec.ID] = true
		}
	}
	return slices.Sorted(maps.Keys(given))
}
