package gate_test

import (
	"context"
	"encoding/json"
	"testing"

	"admit/gate"
	"admit/policy/rule"
)

// TestVerdictOutcome: the verdict says its outcome class in a field of its
// own, so a client never infers it from a rule name, and a refusal says
// what to do instead.
func TestVerdictOutcome(t *testing.T) {
	h := newHostile(t, "")
	g := h.open(t, "read-only")
	for _, c := range []struct {
		name    string
		call    gate.CheckParams
		outcome rule.Outcome
		verdict rule.Verdict
	}{
		{"an allowed read", gate.CheckParams{Tool: "Read", Args: json.RawMessage(`{"file_path":"README.md"}`)}, rule.OutcomeAllow, rule.Allow},
		{"a refused read", gate.CheckParams{Tool: "Read", Args: json.RawMessage(`{"file_path":"/etc/passwd"}`)}, rule.OutcomeDeny, rule.Deny},
		{"an ask with nobody to ask", gate.CheckParams{Tool: "WebFetch", Args: json.RawMessage(`{"url":"https://example.com"}`)}, rule.OutcomeAsk, rule.Deny},
		{"a tool not granted", gate.CheckParams{Tool: "deploy"}, rule.OutcomeDeny, rule.Deny},
	} {
		v := check(t, g, c.call)
		if v.Outcome != c.outcome || v.Verdict != c.verdict {
			t.Errorf("%s: outcome %q verdict %q (%s: %s)", c.name, v.Outcome, v.Verdict, v.Rule, v.Reason)
		}
		if v.Verdict == rule.Deny && v.Remedy == "" {
			t.Errorf("%s: a refusal without a remedy: %+v", c.name, v)
		}
		if v.Verdict == rule.Allow && v.Remedy != "" {
			t.Errorf("%s: a remedy on an allow: %+v", c.name, v)
		}
	}
}

// TestShellOfTheCall: a line typed into an interactive zsh is judged as
// zsh reads it (comments are off there), while bash -c reads the same line
// as a comment; a call's profile never loosens the gate's.
func TestShellOfTheCall(t *testing.T) {
	h := newHostile(t, "")
	g := h.open(t, "read-only")
	line := "cat README.md # ; touch M"
	if v := check(t, g, gate.CheckParams{Tool: "Bash", Command: line}); !v.Allowed {
		t.Fatalf("bash -c: %+v", v)
	}
	if v := check(t, g, gate.CheckParams{Tool: "Bash", Command: line, Shell: "zsh"}); v.Allowed || v.Rule != rule.ShellSyntax {
		t.Fatalf("zsh: %+v", v)
	}
	if _, err := g.Check(context.Background(), gate.CheckParams{Tool: "Bash", Command: "ls", Shell: "tcsh"}); err == nil {
		t.Fatal("an unknown profile was accepted")
	}
	if err := g.SetMode("", "", "refuse"); err != nil {
		t.Fatal(err)
	}
	if v := check(t, g, gate.CheckParams{Tool: "Bash", Command: "ls | wc -l", Shell: "analyze"}); v.Allowed {
		t.Fatalf("a call's profile loosened the gate's: %+v", v)
	}
}
