package command

import (
	"strings"
	"testing"
)

// FuzzLeadingWord: leadingWord is the first of strings.Fields.
func FuzzLeadingWord(f *testing.F) {
	for _, s := range []string{"", "git diff", "cat", " x", "a\tb", "é x", "find . -name"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := ""
		if fs := strings.Fields(s); len(fs) > 0 {
			want = fs[0]
		}
		if got := leadingWord(s); got != want {
			t.Fatalf("leadingWord(%q) = %q, strings.Fields %q", s, got, want)
		}
	})
}
