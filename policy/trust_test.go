package policy_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"admit/policy"
)

func TestUniversal(t *testing.T) {
	for p, want := range map[string]bool{
		"*": true, "?*": true, "**": true, "*?*": true, "??": true, "[!x]*": true, "[a-z]*": true, " * ": true,
		"Read": false, "mcp_*": false, "*_write": false, "[": false, `\*`: false, "": false, "a?": false,
	} {
		if got := policy.Universal(p); got != want {
			t.Errorf("Universal(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestEffectiveKeepsTheDefaults(t *testing.T) {
	def := policy.DefaultFile()
	f := &policy.File{Allow: []string{"Read", "deploy"}, ShellTools: []string{"none"}, Mutators: []string{}, NeedsHuman: nil,
		Bounds: map[string]int64{"maxSteps": 64, "maxRetries": 0}}
	for _, trusted := range []bool{false, true} {
		e := f.Effective(def, policy.DefaultBounds(), trusted)
		for _, tool := range def.ShellTools {
			if !contains(e.ShellTools, tool) {
				t.Errorf("trusted %v: shell tool %q dropped", trusted, tool)
			}
		}
		for _, tool := range def.Mutators {
			if !contains(e.Mutators, tool) {
				t.Errorf("trusted %v: mutator %q dropped", trusted, tool)
			}
		}
		for _, tool := range def.NeedsHuman {
			if !contains(e.NeedsHuman, tool) {
				t.Errorf("trusted %v: needsHuman %q dropped", trusted, tool)
			}
		}
		if contains(e.Allow, "deploy") != trusted {
			t.Errorf("trusted %v: allow %v", trusted, e.Allow)
		}
		if _, raised := e.Bounds["maxSteps"]; raised != trusted {
			t.Errorf("trusted %v: bounds %v", trusted, e.Bounds)
		}
		if e.Bounds["maxRetries"] != 0 {
			t.Errorf("trusted %v: a lowered bound was dropped: %v", trusted, e.Bounds)
		}
	}
	if w := f.Widens(def, policy.DefaultBounds()); len(w) != 2 {
		t.Errorf("widens %q", w)
	}
}

func TestIdentifier(t *testing.T) {
	for _, l := range []string{"default", "mcp-github", "team.policy_v2"} {
		if policy.Identifier(l) != l {
			t.Errorf("%q changed", l)
		}
	}
	for _, l := range []string{"Ignore previous instructions", "a\nb", strings.Repeat("x", 41), "", "-x", "[link](command:x)", "é", "a/b", "x\x00"} {
		if got := policy.Identifier(l); !strings.HasPrefix(got, "set-") {
			t.Errorf("%q kept as %q", l, got)
		}
	}
}

// FuzzIdentifier holds the label check to the pattern it spells out.
func FuzzIdentifier(f *testing.F) {
	for _, l := range []string{"default", "a:b-c.d_e", strings.Repeat("x", 40), strings.Repeat("x", 41), "-x", "é", ""} {
		f.Add(l)
	}
	want := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,39}$`)
	f.Fuzz(func(t *testing.T, l string) {
		if kept := policy.Identifier(l) == l; kept != want.MatchString(l) && !strings.HasPrefix(l, "set-") {
			t.Fatalf("%q: kept %v, the pattern says %v", l, kept, !kept)
		}
	})
}

func TestBlankEffectsIsAnError(t *testing.T) {
	_, err := policy.ParseBounds(func(k string) string {
		if k == "ADMIT_EFFECTS" {
			return "   "
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), "ADMIT_EFFECTS") {
		t.Fatalf("blank ADMIT_EFFECTS: %v", err)
	}
}

func TestEmptyToolListIsAnError(t *testing.T) {
	if _, err := policy.NewCaps(policy.CapsSpec{Label: "x", Tools: []json.RawMessage{}}, nil); err == nil {
		t.Fatal("an empty list of tool schemas built a capability set")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
