package policy_test

import (
	"testing"

	"admit/policy"
)

// TestSweeping: sets of patterns that together grant (nearly) every tool
// are caught however they are split; prefix and suffix patterns of one
// family, and lists of names, are not.
func TestSweeping(t *testing.T) {
	for _, c := range []struct {
		allow []string
		want  bool
	}{
		{[]string{"[a-z]*", "[A-Z]*", "_*"}, true},
		{[]string{"*a*", "*e*", "*o*"}, true},
		{[]string{"*e*"}, true},
		{[]string{"*_*"}, true},
		{[]string{"a*", "c*", "d*", "e*", "f*", "g*", "l*", "r*", "s*", "u*", "w*"}, true},
		{[]string{"*s", "*e", "*t", "*r", "*y", "*d", "*n", "*l", "*h", "*k", "*b", "*g"}, true},
		{[]string{"?*"}, true},
		{[]string{"mcp__github__*"}, false},
		{[]string{"mcp__*"}, false},
		{[]string{"read_*", "get_*", "list_*", "search_*"}, false},
		{[]string{"*_read", "*_list", "*_get"}, false},
		{[]string{"read_file", "write_file", "bash", "Bash", "Read", "Write", "Edit", "Grep"}, false},
		{nil, false},
	} {
		if got, n, of := policy.Sweeping(c.allow); got != c.want {
			t.Errorf("%q: sweeping %v (%d of %d), want %v", c.allow, got, n, of, c.want)
		}
	}
	if _, err := policy.ParseFile("/ws/.admit/policy.json", []byte(`{"allow": ["Read", "r*", "w*", "e*", "d*", "c*", "l*", "g*", "s*", "f*", "u*", "a*", "p*"]}`)); err == nil {
		t.Error("a policy file whose patterns sweep was accepted")
	}
}

// BenchmarkSweeping is the cost of the check on a set with patterns, paid
// once per capability set and policy file read, never per decision.
func BenchmarkSweeping(b *testing.B) {
	allow := []string{"mcp__github__*", "read_*", "*_list", "Read", "Write", "Bash"}
	for b.Loop() {
		policy.Sweeping(allow)
	}
}
