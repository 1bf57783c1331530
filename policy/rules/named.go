package rules

import (
	"strings"

	"admit/policy/rule"
)

// Names reports whether r names argv exactly: every word written out, no
// pattern in any, and no more words after them. Only such a rule may allow
// what the command policy refuses as a danger (a publish, a secret sent
// off the machine): a person who writes `npm publish` in their own file
// means that command; `npm *` never means it.
func (r *Rule) Names(argv []string) bool {
	if r.prefix {
		return false
	}
	for _, w := range r.words {
		if strings.IndexByte(w, '*') >= 0 {
			return false
		}
	}
	return r.Matches(argv)
}

// Named returns the allow rule that names argv exactly (Names), when no
// deny or ask rule matches it.
func (s *Set) Named(argv []string) (Rule, bool) {
	if s == nil || len(argv) == 0 {
		return Rule{}, false
	}
	if m, ok := s.Match(argv); !ok || m.Decision != rule.OutcomeAllow {
		return Rule{}, false
	}
	for _, i := range s.byProgram[argv[0]] {
		if r := &s.rules[i]; r.Decision == rule.OutcomeAllow && r.Names(argv) {
			return *r, true
		}
	}
	return Rule{}, false
}
