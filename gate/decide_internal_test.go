package gate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"admit/policy/rule"
)

// The gate's stages keep the catalogue's stage order, each names a stage
// docs/rules.md has a section for, and every rule a stage sets is one the
// catalogue knows.
func TestStagesInCatalogueOrder(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	var last rule.Stage
	for i, st := range stages {
		if st.stage < last {
			t.Errorf("stage %d (%s) is at %s, after a stage at %s: the table must keep the catalogue's order", i, st.what, st.stage, last)
		}
		last = st.stage
		heading := "## " + strconv.Itoa(int(st.stage)) + ". " + st.stage.String() + "\n"
		if !strings.Contains(string(doc), heading) {
			t.Errorf("stage %d (%s): docs/rules.md has no section %q", i, st.what, strings.TrimSpace(heading))
		}
		for _, r := range st.gives {
			if _, ok := rule.Lookup(r); !ok {
				t.Errorf("stage %d (%s) sets %q, which the catalogue does not know", i, st.what, r)
			}
		}
		if st.run == nil || st.what == "" {
			t.Errorf("stage %d: no function or no description", i)
		}
	}
}
