package policy_test

import (
	"slices"
	"testing"

	"admit/policy"
)

// TestCapsIndexAnswersAsTheLists holds the index to the lists it stands
// for: every question about every tool is answered as scanning the lists
// answers it, and a copy whose lists were replaced is not answered from
// the original's index.
func TestCapsIndexAnswersAsTheLists(t *testing.T) {
	lists := policy.Caps{
		Allow:      []string{"Read", "Edit", "mcp_github_*", "b?sh", "[x]y", "web_fetch"},
		NeedsHuman: []string{"web_fetch", "mcp_github_push*"},
		Mutators:   []string{"Edit", "mcp_*_write"},
	}
	tools := []string{"Read", "Edit", "mcp_github_issue", "mcp_github_push_files", "mcp_fs_write", "bash", "bish", "xy",
		"[x]y", "b?sh", "mcp_github_*", "web_fetch", "Write", "", "mcp_github_"}
	scanned := lists // no index: the lists are scanned
	indexed := lists
	indexed.Index()
	for _, tool := range tools {
		if g, w := indexed.Grants(tool), scanned.Grants(tool); g != w {
			t.Errorf("Grants(%q) = %v, scanning says %v", tool, g, w)
		}
		if g, w := indexed.AsksHuman(tool), scanned.AsksHuman(tool); g != w {
			t.Errorf("AsksHuman(%q) = %v, scanning says %v", tool, g, w)
		}
		if g, w := indexed.Mutates(tool), scanned.Mutates(tool); g != w {
			t.Errorf("Mutates(%q) = %v, scanning says %v", tool, g, w)
		}
		if g, w := indexed.PatternOnly(tool), scanned.PatternOnly(tool); g != w {
			t.Errorf("PatternOnly(%q) = %q, scanning says %q", tool, g, w)
		}
	}
	if !indexed.Grants("bash") || indexed.Grants("Write") || !indexed.Mutates("mcp_github_issue") || indexed.Mutates("Read") {
		t.Errorf("the lists' own answers changed: %+v", indexed)
	}

	widened := indexed
	widened.Allow = append(slices.Clone(indexed.Allow), "Write")
	widened.Mutators = append(slices.Clone(indexed.Mutators), "Write")
	narrowed := indexed
	narrowed.NeedsHuman = append(slices.Clone(indexed.NeedsHuman), "Read")
	if !widened.Grants("Write") || !widened.Mutates("Write") || widened.PatternOnly("Write") != "" {
		t.Errorf("a copy with a longer allow list was answered from the original's index")
	}
	if !narrowed.AsksHuman("Read") {
		t.Errorf("a copy with a longer needsHuman list was answered from the original's index")
	}
}
