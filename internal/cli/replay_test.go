package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/gate"
)

// admit tape replay: calls taped by admit check, judged again under a
// policy that removes head and a person's rule that denies ls, report
// exactly those calls, as text and as JSON; the tape is read, never
// changed, and its chain stays intact.
func TestTapeReplayCommand(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tp := filepath.Join(dir, "tape.jsonl")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config")) // the person's rules: none
	for _, line := range []string{"head -n 1 a.txt", "cat a.txt | head -n 2", "ls", "wc -l a.txt", "rm a.txt"} {
		runAdmit(t, nil, "check", "--root", root, "--tape", tp, "-c", line)
	}
	before, _ := os.ReadFile(tp)

	code, out, errs := runAdmit(t, nil, "tape", "replay", "--policy", "built-in", tp)
	if code != 0 || !strings.Contains(out, "5 calls of 5 records judged again under built-in: 0 would change, 5 unchanged") {
		t.Fatalf("built-in: exit %d\n%s%s", code, out, errs)
	}

	pol := filepath.Join(dir, "policy.json")
	os.WriteFile(pol, []byte(`{"allow": ["bash"], "programs": {"head": null}}`), 0o644)
	rules := filepath.Join(dir, "rules.json")
	os.WriteFile(rules, []byte(`{"deny": ["ls"]}`), 0o644)
	code, out, errs = runAdmit(t, nil, "tape", "replay", "--policy", pol, "--rules", rules, tp)
	if code != 0 || !strings.Contains(out, "3 would change, 2 unchanged") ||
		!strings.Contains(out, "allowed -> asked: 2 (allowed -> unsupported-program)") || !strings.Contains(out, "allowed -> refused: 1 (allowed -> rule-denies)") {
		t.Fatalf("proposed: exit %d\n%s%s", code, out, errs)
	}

	code, out, _ = runAdmit(t, nil, "tape", "replay", "--json", "--policy", pol, "--rules", rules, tp)
	var rep gate.ReplayReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	got := map[string]int{}
	for _, ch := range rep.Changes {
		for _, ex := range ch.Examples {
			got[ex.Command] = 0
		}
		got[string(ch.ToRule)] += ch.Count
	}
	for _, want := range []string{"head -n 1 a.txt", "cat a.txt | head -n 2", "ls"} {
		if _, ok := got[want]; !ok {
			t.Errorf("%q not among the changes: %v", want, got)
		}
	}
	if rep.Changed != 3 || got["unsupported-program"] != 2 || got["rule-denies"] != 1 {
		t.Errorf("report: %+v", rep)
	}
	if after, _ := os.ReadFile(tp); string(after) != string(before) {
		t.Error("replay changed the tape")
	}
	if code, out, _ := runAdmit(t, nil, "tape", "--verify", "--path", tp); code != 0 {
		t.Errorf("verify: %s", out)
	}
	if code, _, _ := runAdmit(t, nil, "tape", "replay", tp); code != exitUsage {
		t.Errorf("replay without --policy: exit %d", code)
	}
}
