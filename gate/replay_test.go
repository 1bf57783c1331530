package gate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"admit/gate"
	"admit/internal/cases"
	"admit/policy"
	"admit/policy/rule"
	"admit/policy/rules"
	"admit/tape"
)

// corpusTape records every case of the corpus (internal/cases) on a tape
// of its own, as TestCases decides it, and returns each case's records
// with what it was decided under.
type tapedCase struct {
	theme, name string
	recs        []tape.Record
	policy      *policy.File // the theme's, or nil
	trust       policy.Trust
	rules       *rules.Set
	invalid     bool // the theme's policy file cannot be used
}

// recordSink keeps the records a gate exports, through the tape's own
// encoding: what replay reads is what a tape line holds.
type recordSink struct {
	mu   sync.Mutex
	recs []tape.Record
}

func (s *recordSink) Export(rec *tape.Record) {
	line, err := tape.Encode(rec)
	var r tape.Record
	if err == nil {
		err = json.Unmarshal(line, &r)
	}
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.recs = append(s.recs, r)
	s.mu.Unlock()
}

func recordCorpus(t *testing.T) []tapedCase {
	var mu sync.Mutex
	var out []tapedCase
	cases.Walk(t, func(t *testing.T, w *cases.Workspace, c *cases.Case) {
		// The records as the tape would hold them, without the tape's
		// files (a disk shared by many tests is slow to sync).
		sink := &recordSink{}
		o, store := caseOptions(t, w, c, gate.Options{Headless: true, Exporter: sink})
		g, err := gate.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		p := caseParams(t, g, w, c)
		if _, err := g.Check(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		recs := sink.recs
		set, err := store.Set()
		if err != nil {
			t.Fatal(err)
		}
		tc := tapedCase{theme: filepath.Base(filepath.Dir(t.Name())), name: t.Name(), recs: recs, rules: set}
		if w.Policy != "" {
			f, err := policy.ParseFile("policy.json", []byte(w.Policy))
			if err != nil {
				// The live gate refused it as policy-invalid: nothing was
				// judged, and replay says so.
				tc.invalid = true
				mu.Lock()
				out = append(out, tc)
				mu.Unlock()
				return
			}
			tc.policy, tc.trust = f, policy.Tightening
			if len(f.Widens(policy.DefaultFile(), policy.DefaultBounds())) > 0 {
				tc.trust = policy.Untrusted // nobody trusted it in the corpus's gate
			}
		}
		mu.Lock()
		out = append(out, tc)
		mu.Unlock()
	})
	return out
}

func replayCase(t *testing.T, tc tapedCase, f *policy.File, set *rules.Set) *gate.ReplayReport {
	t.Helper()
	rep, err := gate.Replay(tc.recs, gate.ReplayOptions{Policy: f, Trust: tc.trust, Bounds: policy.DefaultBounds(),
		Rules: func([]string) (*rules.Set, error) { return set, nil }, Examples: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestReplayCorpus records the corpus and replays it: under the policy
// and rules each call was decided under nothing changes, and no fact is
// missing; with one rule removed, exactly the calls it decided change.
func TestReplayCorpus(t *testing.T) {
	taped := recordCorpus(t)
	if len(taped) < 300 {
		t.Fatalf("only %d cases taped", len(taped))
	}
	var all []tape.Record // the themes decided under the built-in policy and no rules
	calls := 0
	for _, tc := range taped {
		rep := replayCase(t, tc, tc.policy, tc.rules)
		calls += rep.Calls
		if tc.invalid {
			if rep.Calls != 1 || rep.NoFacts != 1 || rep.Replayed != 0 {
				t.Errorf("%s: decided under an unusable policy file, replayed: %+v", tc.name, rep)
			}
			continue
		}
		if rep.Calls != 1 || rep.Replayed != 1 || rep.Changed != 0 || rep.MissingFacts != 0 {
			b, _ := json.MarshalIndent(rep, "", "  ")
			t.Errorf("%s: replayed under its own policy and rules:\n%s", tc.name, b)
		}
		if tc.policy == nil && tc.rules.Len() == 0 {
			all = append(all, tc.recs...)
		}
	}
	t.Logf("%d calls replayed, %d of them on one built-in tape", calls, len(all))

	// The whole built-in tape at once, as admit tape replay reads it.
	one := tapedCase{recs: all}
	if rep := replayCase(t, one, nil, nil); rep.Changed != 0 || rep.Replayed != len(all) {
		t.Errorf("the built-in tape under the built-in policy: %d of %d replayed, %d changed", rep.Replayed, len(all), rep.Changed)
	}

	// A program removed from the table: every allowed call with head in
	// it changes (to a question about a program admit does not know, or a
	// refusal of what an unknown program's operands reach), and nothing
	// without head does.
	noHead := policy.DefaultFile()
	noHead.Programs = json.RawMessage(`{"head": null}`)
	rep := replayCase(t, one, noHead, nil)
	headWord := regexp.MustCompile(`(^|[|;&()]\s*|\b(do|then|else)\s+|\b(xargs|env|timeout|nice|command|nohup)(\s+[^\s|;&]+)*?\s+)head\b`)
	changed := map[string]bool{}
	for _, ch := range rep.Changes {
		if ch.Count > len(ch.Examples) {
			t.Errorf("a change %s->%s lists %d of %d calls; the test needs them all", ch.From, ch.To, len(ch.Examples), ch.Count)
		}
		for _, ex := range ch.Examples {
			changed[ex.ID] = true
			if !headWord.MatchString(ex.Command) {
				t.Errorf("%s changed %s/%s -> %s/%s without head being its program", ex.Command, ch.From, ch.FromRule, ch.To, ch.ToRule)
			}
		}
	}
	n := 0
	for _, r := range all {
		if r.Outcome == rule.OutcomeAllow && headWord.MatchString(r.Command) {
			n++
			if !changed[r.ID] {
				t.Errorf("%q was allowed with head, and is not changed by removing head", r.Command)
			}
		}
	}
	if n == 0 || rep.Changed < n {
		t.Errorf("removing head changed %d calls; %d allowed ones use it", rep.Changed, n)
	}

	// The repository's deny rule dropped: the calls it refused, and only
	// they, change.
	for _, tc := range taped {
		if tc.invalid || tc.policy == nil || tc.policy.Rules == nil || len(tc.policy.Rules.Deny) == 0 {
			continue
		}
		loose := *tc.policy
		r := *tc.policy.Rules
		r.Deny = nil
		loose.Rules = &r
		rep := replayCase(t, tc, &loose, tc.rules)
		rec := tc.recs[0]
		byRepo := rec.Rule == rule.RuleDenies && strings.Contains(rec.Reason, "repository")
		if byRepo != (rep.Changed == 1) {
			t.Errorf("%s (%s, %s: %s): dropping the repository's deny rules changed %d", tc.name, rec.Command, rec.Rule, rec.Reason, rep.Changed)
		}
		if byRepo && rep.Changed == 1 && rep.Changes[0].FromRule != rule.RuleDenies {
			t.Errorf("%s: changed from %s", tc.name, rep.Changes[0].FromRule)
		}
	}
}

// TestReplayMissingFacts: a record taped before admit kept facts, and one
// whose facts lack an answer the new policy asks for, are named.
func TestReplayMissingFacts(t *testing.T) {
	recs := []tape.Record{
		{ID: "a-1", Tool: "bash", Command: "ls", Outcome: rule.OutcomeAllow, Rule: rule.Allowed},
		{ID: "a-2", Tool: "bash", Command: "cat x.txt", Outcome: rule.OutcomeAllow, Rule: rule.Allowed,
			Facts: json.RawMessage(`{"v":1,"roots":["/w"],"effects":"read-only","profile":"analyze","cwd":"/w","line":true,"rule":"allowed","outcome":"allow"}`)},
		{ID: "a-2", Tool: "admit.run", Rule: "run-result"}, // a follow-up of a-2
	}
	rep, err := gate.Replay(recs, gate.ReplayOptions{Bounds: policy.DefaultBounds()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Calls != 2 || rep.NoFacts != 1 || rep.Replayed != 1 || rep.MissingFacts != 1 {
		t.Fatalf("report: %+v", rep)
	}
	var m []string
	for _, c := range rep.Missing {
		m = append(m, c.Missing...)
	}
	if !strings.Contains(strings.Join(m, "\n"), `resolve "/w/x.txt"`) {
		t.Errorf("missing facts named: %q", m)
	}
	// The unanswered question fails closed: the read is not admitted on a
	// fact nobody saw.
	if rep.Changed != 1 || rep.Changes[0].To == rule.OutcomeAllow {
		t.Errorf("changes: %+v", rep.Changes)
	}
}

// TestReplayReusedTraces: one gate decides call after call, its traces
// reused between them (endTrace); each record's facts hold only what its
// own decision asked, and each replays unchanged.
func TestReplayReusedTraces(t *testing.T) {
	root := t.TempDir()
	names := []string{"a.txt", "b.txt", "c.txt", "d.txt"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(root, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sink := &recordSink{}
	g, err := gate.Open(gate.Options{Dirs: []string{root}, Headless: true, Exporter: sink, Bounds: policy.DefaultBounds(),
		Settings: gate.Settings{Mode: "enforce", Effects: "read-only"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		n := names[i%len(names)]
		p := gate.CheckParams{Tool: "Read", Args: json.RawMessage(`{"file_path":"` + n + `"}`)}
		if i%3 == 1 {
			p = gate.CheckParams{Tool: "bash", Command: "cat " + n + " ../outside-" + n}
		}
		if _, err := g.Check(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if len(sink.recs) != 40 {
		t.Fatalf("%d records, want 40", len(sink.recs))
	}
	for i, r := range sink.recs {
		var f struct {
			Resolve map[string]json.RawMessage `json:"resolve"`
		}
		if err := json.Unmarshal(r.Facts, &f); err != nil {
			t.Fatalf("record %d: facts %s: %v", i, r.Facts, err)
		}
		own := names[i%len(names)]
		for p := range f.Resolve {
			if !strings.Contains(p, own) {
				t.Errorf("record %d (%s) holds another decision's answer for %s", i, own, p)
			}
		}
	}
	rep := replayCase(t, tapedCase{recs: sink.recs}, nil, nil)
	if rep.Calls != 40 || rep.Replayed != 40 || rep.Changed != 0 || rep.MissingFacts != 0 {
		t.Fatalf("replay: %+v", rep)
	}
}
