package rules

import (
	"slices"
	"strings"
)

// Literal is the rule's leading words before the first one with a *:
// the shortest command it names, and every command it names starts so.
func (r *Rule) Literal() []string {
	i := slices.IndexFunc(r.words, func(w string) bool { return strings.Contains(w, "*") })
	if i < 0 {
		return slices.Clone(r.words)
	}
	return slices.Clone(r.words[:i])
}
