package command

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestHasFieldIsFields: hasField answers as a search of strings.Fields
// does, for lists and words built from a few letters, blanks of every
// kind and runs of them, so that prefixes, suffixes and repeats meet.
func TestHasFieldIsFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "b", "-a", "--ab", "ab", " ", "  ", "\t", "\n", "-", "=", "a=b"}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 20000 {
		list, word := gen(rng.IntN(8)), gen(1+rng.IntN(2))
		want := word != "" && slices.Contains(strings.Fields(list), word)
		if got := hasField(list, word); got != want {
			t.Fatalf("hasField(%q, %q) = %v, strings.Fields says %v", list, word, got, want)
		}
	}
}

// TestMayNameKeepsEverySecret: for every name of the corpus's workspace
// and of the default patterns' own literals, in folders named like the
// patterns' folders, a name the secrets patterns name is one mayName
// keeps (it may keep more; it must never drop one).
func TestMayNameKeepsEverySecret(t *testing.T) {
	s := DefaultSecrets()
	var names, parents []string
	for _, sp := range s.match {
		names = append(names, sp.parts[len(sp.parts)-1], strings.ReplaceAll(sp.parts[len(sp.parts)-1], "*", "x"))
		if len(sp.parts) > 1 {
			parents = append(parents, sp.parts[len(sp.parts)-2])
		}
	}
	names = append(names, ".env", ".env.local", "id_rsa", "a.go", "README.md", "server.pem", "credentials", "token.json", "x.key", ".npmrc")
	parents = append(parents, "", "src", ".aws", ".ssh", "config")
	for _, parent := range parents {
		for _, n := range names {
			p := n
			if parent != "" {
				p = "w/" + parent + "/" + n
			}
			if pat := s.Secret(p); pat != "" && !s.mayName(strings.ToLower(parent), strings.ToLower(n)) {
				t.Errorf("%q in %q: the pattern %q names it, and mayName drops it", n, parent, pat)
			}
		}
	}
}
