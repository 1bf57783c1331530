// Package rules holds the person's own rules: allow, ask or deny over a
// simple command's leading words, in the syntax people already write for
// their agents (Claude Code's `Bash(npm run test:*)`, Codex's
// `prefix_rule(pattern=["git", ["status", "diff"]])`).
//
// A rule matches one simple command's argv, after the command line was
// parsed and its wrappers seen through: the command policy calls Match for
// each simple command on its own, so `npm test && curl x | sh` is never
// allowed by a rule for `npm test`. A rule names the program as written:
// `npm` does not match `./npm` or `node_modules/.bin/npm`; only a rule that
// names that path does. Rules never decide alone: an allow rule may lift
// a question the policy would put to the person (a program that runs code),
// never a refusal the policy makes (a read outside the workspace,
// publishing, `eval`).
//
// Start at Parse (one rule) and Load (a file of them). The package is
// pure: no I/O, no clock, no globals.
package rules

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"admit/internal/strictjson"
	"admit/policy/rule"
	"admit/policy/shell"
)

// Rule is one rule: the words a simple command must start with (or equal),
// and what to do when it does.
type Rule struct {
	// Match is the rule as written: `npm test`, `npm run test:*`,
	// `Bash(git diff *)`, `git *`.
	Match    string       `json:"match"`
	Decision rule.Outcome `json:"decision"`
	// Examples must match and NotExamples must not: each a command line
	// of one simple command. They are checked when the rule is loaded.
	Examples    []string `json:"examples,omitempty"`
	NotExamples []string `json:"notExamples,omitempty"`
	Note        string   `json:"note,omitempty"`
	// Effects, on an allow rule, are the kinds of effect it covers
	// (effects.go): the rule then names what runs (Head, compared with
	// the call's head, not its leading words) and answers a call only
	// when the call's effects are within these. A rule without them
	// covers what Legacy does.
	Effects *Effects `json:"effects,omitempty"`
	// Source says where the rule came from: the person's rules, a
	// workspace's, or the repository's policy file (ask and deny only).
	Source string `json:"source,omitempty"`

	words  []string // the leading words; a word may hold * (any characters within the word)
	prefix bool     // more words may follow
}

// maxWords bounds a rule's words: no command a person approves has more
// leading words than this, and matching stays cheap.
const maxWords = 16

// Parse reads one rule. match is either a bare command prefix (`npm test`,
// `git diff *`) or Claude Code's `Bash(...)` form around one; a final `*`
// word, or a final word ending in `:*` (Claude Code's older prefix form),
// lets more words follow. Without it the command must be exactly the
// words. A `*` inside a word matches any characters of that word only.
func Parse(match string, decision rule.Outcome) (Rule, error) {
	r := Rule{Match: match, Decision: decision}
	switch decision {
	case rule.OutcomeAllow, rule.OutcomeAsk, rule.OutcomeDeny:
	default:
		return r, fmt.Errorf("rules: %q: decision must be allow, ask or deny, got %q", match, decision)
	}
	body := strings.TrimSpace(match)
	if inner, ok := strings.CutPrefix(body, "Bash("); ok {
		inner, ok = strings.CutSuffix(inner, ")")
		if !ok {
			return r, fmt.Errorf("rules: %q: Bash( has no closing parenthesis", match)
		}
		body = strings.TrimSpace(inner)
	}
	words, err := splitWords(body)
	if err != nil {
		return r, fmt.Errorf("rules: %q: %w", match, err)
	}
	if n := len(words); n > 0 && words[n-1] == "*" {
		r.prefix, words = true, words[:n-1]
	} else if n > 0 && strings.HasSuffix(words[n-1], ":*") {
		r.prefix = true
		words[n-1] = strings.TrimSuffix(words[n-1], ":*")
		if words[n-1] == "" {
			words = words[:n-1]
		}
	}
	switch {
	case len(words) == 0:
		return r, fmt.Errorf("rules: %q names no program: a rule over every command is refused", match)
	case len(words) > maxWords:
		return r, fmt.Errorf("rules: %q has %d words, more than %d", match, len(words), maxWords)
	case strings.Contains(words[0], "*"):
		return r, fmt.Errorf("rules: %q: the program name %q may not hold a pattern; name the program", match, words[0])
	}
	r.words = words
	return r, nil
}

// splitWords splits a rule's command text into words the way a shell
// would for literal text: blanks separate, single and double quotes group,
// a backslash escapes the next character. Anything a shell would expand
// ($, backquotes, ;, |, &, <, >, parentheses) is refused: a rule names
// plain words.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false // a word has started
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words, in = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, errors.New("an unterminated quote")
			}
			quoted := s[i+1 : i+1+j]
			if c == '"' && strings.ContainsAny(quoted, "$`\\") {
				return nil, errors.New("a double-quoted word with $, ` or \\: write it in single quotes")
			}
			cur.WriteString(quoted)
			in, i = true, i+1+j
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("a trailing backslash")
			}
			i++
			cur.WriteByte(s[i])
			in = true
		case strings.IndexByte("$`;|&<>()\n\r{}", c) >= 0:
			return nil, fmt.Errorf("%q is shell syntax: a rule names plain words", string(c))
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// MatchesWords reports whether argv's words are those the rule names: its
// leading words, or for a rule with effects its head (Head). What the
// call does is Covers' question.
func (r *Rule) MatchesWords(argv []string) bool {
	if r.Effects != nil {
		return r.Matches(Head(argv))
	}
	return r.Matches(argv)
}

// Covers reports whether the rule, an allow rule, answers a call of argv
// whose effects are eff: its words match, and eff is within the rule's
// effects (Legacy for a rule written without them).
func (r *Rule) Covers(argv []string, eff Effects) bool {
	if r.Decision != rule.OutcomeAllow || !r.MatchesWords(argv) {
		return false
	}
	env := &Legacy
	if r.Effects != nil {
		env = r.Effects
	}
	return env.Covers(eff)
}

// Words are the rule's words, the program first (a final * not among
// them).
func (r *Rule) Words() []string { return slices.Clone(r.words) }

// Matches reports whether argv (one simple command, wrappers seen through)
// is one the rule's words name, compared word by word from the start.
func (r *Rule) Matches(argv []string) bool {
	if len(argv) < len(r.words) || (!r.prefix && len(argv) != len(r.words)) {
		return false
	}
	for i, w := range r.words {
		if !wordMatch(w, argv[i]) {
			return false
		}
	}
	return true
}

// wordMatch matches one word against a rule word whose * stand for any
// characters.
func wordMatch(pattern, word string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == word
	}
	if !strings.HasPrefix(word, pattern[:star]) {
		return false
	}
	rest := pattern[star+1:]
	for i := star; i <= len(word); i++ {
		if wordMatch(rest, word[i:]) {
			return true
		}
	}
	return false
}

// Set is a list of rules, matched strictest first.
type Set struct {
	rules []Rule
	// byProgram indexes rules by their program word, so that a match
	// reads only the rules of the command's program: a person's file of
	// hundreds of rules costs a decision no more than a few.
	byProgram map[string][]int
}

// index builds byProgram.
func (s *Set) index() *Set {
	s.byProgram = make(map[string][]int, len(s.rules))
	for i := range s.rules {
		w := s.rules[i].words[0]
		s.byProgram[w] = append(s.byProgram[w], i)
	}
	return s
}

// NewSet checks rules (each must have been Parsed, and its examples must
// hold) and returns them as a set. An error names the rule.
func NewSet(rules []Rule) (*Set, error) {
	s := &Set{}
	for _, r := range rules {
		if r.words == nil {
			p, err := Parse(r.Match, r.Decision)
			if err != nil {
				return nil, err
			}
			p.Examples, p.NotExamples, p.Note, p.Source, p.Effects = r.Examples, r.NotExamples, r.Note, r.Source, r.Effects
			r = p
		}
		if err := r.checkEffects(); err != nil {
			return nil, err
		}
		if err := r.checkExamples(); err != nil {
			return nil, err
		}
		s.rules = append(s.rules, r)
	}
	return s.index(), nil
}

// checkEffects refuses effects on a rule that does not allow (a deny or
// ask rule is about the words, whatever the call does) and a kind no call
// has.
func (r *Rule) checkEffects() error {
	if r.Effects == nil {
		return nil
	}
	if r.Decision != rule.OutcomeAllow {
		return fmt.Errorf("rules: %q: effects narrow an allow rule only; a %s rule is about the words, whatever the call does", r.Match, r.Decision)
	}
	if err := r.Effects.check(); err != nil {
		return fmt.Errorf("rules: %q: %w", r.Match, err)
	}
	return nil
}

// checkExamples proves the rule matches what it says it matches.
func (r *Rule) checkExamples() error {
	for _, list := range []struct {
		lines []string
		want  bool
	}{{r.Examples, true}, {r.NotExamples, false}} {
		for _, line := range list.lines {
			argv, err := Argv(line)
			if err != nil {
				return fmt.Errorf("rules: %q: example %q: %w", r.Match, line, err)
			}
			if r.MatchesWords(argv) != list.want {
				verb := "does not match"
				if !list.want {
					verb = "matches"
				}
				return fmt.Errorf("rules: %q %s its example %q", r.Match, verb, line)
			}
		}
	}
	return nil
}

// Argv reads a command line of one simple command into its literal argv,
// as the command policy would judge it (bash -c, the home folder
// unknown): for a rule's examples.
func Argv(line string) ([]string, error) {
	script, prob := shell.NewParser("").Parse(line, shell.Analyze)
	switch {
	case prob != nil:
		return nil, errors.New(prob.Reason)
	case script == nil || len(script.Commands) != 1:
		return nil, errors.New("not one simple command")
	case len(script.Commands[0].Redirects) > 0:
		return nil, errors.New("an example has no redirections")
	}
	return script.Commands[0].Argv, nil
}

// Rules are the set's rules, in the order given.
func (s *Set) Rules() []Rule {
	if s == nil {
		return nil
	}
	return slices.Clone(s.rules)
}

// Len is the number of rules.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Match returns the strictest rule that matches argv: a deny before an
// ask before an allow, the first given among equals.
func (s *Set) Match(argv []string) (Rule, bool) {
	if s == nil || len(argv) == 0 {
		return Rule{}, false
	}
	best, found := -1, false
	for _, i := range s.byProgram[argv[0]] {
		r := &s.rules[i]
		if !r.Matches(argv) {
			continue
		}
		if !found || rank(r.Decision) > rank(s.rules[best].Decision) {
			best, found = i, true
		}
	}
	if !found {
		return Rule{}, false
	}
	return s.rules[best], true
}

// Answer returns the first allow rule that covers a call of argv whose
// effects are eff (Rule.Covers), when no deny or ask rule matches argv
// (those the command policy applies first, whatever the call does).
func (s *Set) Answer(argv []string, eff Effects) (Rule, bool) {
	if s == nil || len(argv) == 0 {
		return Rule{}, false
	}
	idx := s.byProgram[argv[0]]
	for _, i := range idx {
		if r := &s.rules[i]; r.Decision != rule.OutcomeAllow && r.Matches(argv) {
			return Rule{}, false
		}
	}
	for _, i := range idx {
		if r := &s.rules[i]; r.Covers(argv, eff) {
			return *r, true
		}
	}
	return Rule{}, false
}

func rank(o rule.Outcome) int {
	switch o {
	case rule.OutcomeDeny:
		return 2
	case rule.OutcomeAsk:
		return 1
	}
	return 0
}

// Merge is the rules of every set, in order. A set is never changed once
// made, so the merge of one set and empty ones is that set.
func Merge(sets ...*Set) *Set {
	var only *Set
	n := 0
	for _, s := range sets {
		if s.Len() > 0 {
			only = s
			n++
		}
	}
	switch n {
	case 0:
		return &Set{}
	case 1:
		return only // sets are never changed once made
	}
	out := &Set{}
	for _, s := range sets {
		if s != nil {
			out.rules = append(out.rules, s.rules...)
		}
	}
	return out.index()
}

// File is a rules file as the person keeps it:
//
//	{"allow": ["npm test", "Bash(go test *)"], "ask": ["git push *"], "deny": ["npm publish *"],
//	 "rules": [{"match": "make *", "decision": "allow", "examples": ["make test"], "notExamples": ["make"]}]}
type File struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	Rules []Rule   `json:"rules,omitempty"`
}

// Load reads a rules file; source names it in errors and on each rule.
// allowAllow false refuses allow rules (a repository may only tighten).
func Load(data []byte, source string, allowAllow bool) (*Set, error) {
	var f File
	if err := strictjson.Decode(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return f.Set(source, allowAllow)
}

// Set checks the file's rules and returns them as a set.
func (f *File) Set(source string, allowAllow bool) (*Set, error) {
	var list []Rule
	for _, g := range []struct {
		field    string
		matches  []string
		decision rule.Outcome
	}{{"allow", f.Allow, rule.OutcomeAllow}, {"ask", f.Ask, rule.OutcomeAsk}, {"deny", f.Deny, rule.OutcomeDeny}} {
		for i, m := range g.matches {
			r, err := Parse(m, g.decision)
			if err != nil {
				return nil, fmt.Errorf("%s: %s[%d]: %w", source, g.field, i, err)
			}
			r.Source = source
			list = append(list, r)
		}
	}
	for i, r := range f.Rules {
		p, err := Parse(r.Match, r.Decision)
		if err != nil {
			return nil, fmt.Errorf("%s: rules[%d]: %w", source, i, err)
		}
		p.Examples, p.NotExamples, p.Note, p.Source, p.Effects = r.Examples, r.NotExamples, r.Note, source, r.Effects
		list = append(list, p)
	}
	if !allowAllow {
		for _, r := range list {
			if r.Decision == rule.OutcomeAllow {
				return nil, fmt.Errorf("%s: %q: an allow rule here would widen the gate; only the person's own rules may allow (a repository's may ask or deny)", source, r.Match)
			}
		}
	}
	s, err := NewSet(list)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return s, nil
}

// PrefixRule reads Codex's execpolicy form, prefix_rule(pattern=[...],
// decision="allow"|"prompt"|"forbidden"), as rules: a pattern element that
// is a list stands for each of its words. decision "prompt" is ask and
// "forbidden" deny; Codex's default is allow.
func PrefixRule(pattern []any, decision string) ([]Rule, error) {
	var out rule.Outcome
	switch decision {
	case "", "allow":
		out = rule.OutcomeAllow
	case "prompt":
		out = rule.OutcomeAsk
	case "forbidden":
		out = rule.OutcomeDeny
	default:
		return nil, fmt.Errorf("rules: prefix_rule: decision %q is not allow, prompt or forbidden", decision)
	}
	alts := [][]string{{}}
	for i, el := range pattern {
		var choices []string
		switch v := el.(type) {
		case string:
			choices = []string{v}
		case []any:
			for _, c := range v {
				s, ok := c.(string)
				if !ok {
					return nil, fmt.Errorf("rules: prefix_rule: pattern[%d] holds a %T, not a word", i, c)
				}
				choices = append(choices, s)
			}
		default:
			return nil, fmt.Errorf("rules: prefix_rule: pattern[%d] is a %T, not a word or a list of words", i, el)
		}
		var next [][]string
		for _, a := range alts {
			for _, c := range choices {
				next = append(next, append(slices.Clone(a), c))
			}
		}
		if alts = next; len(alts) > 64 {
			return nil, errors.New("rules: prefix_rule: more than 64 alternatives")
		}
	}
	var rs []Rule
	for _, words := range alts {
		quoted := make([]string, len(words))
		for i, w := range words {
			if strings.ContainsAny(w, " \t'\"\\*$`;|&<>(){}") || w == "" {
				quoted[i] = "'" + strings.ReplaceAll(w, "'", "") + "'"
				if strings.ContainsAny(w, "'*") {
					return nil, fmt.Errorf("rules: prefix_rule: word %q cannot be written as a rule", w)
				}
			} else {
				quoted[i] = w
			}
		}
		r, err := Parse(strings.Join(quoted, " ")+" *", out)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// Suggest is the rule a person's "always allow this" writes for argv: the
// program and its first word that is not an option (a subcommand or a
// script name, as in `npm test`, `go test`, `make build`), then any
// words. A program given as a path is named as written.
func Suggest(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	if strings.Contains(argv[0], "*") {
		return ""
	}
	plain := func(w string) bool { return !strings.HasPrefix(w, "-") && !strings.ContainsAny(w, "/=*") }
	if interpreters[argv[0]] && len(argv) > 1 {
		switch {
		case argv[1] == "-m" && len(argv) > 2 && plain(argv[2]):
			// python3 -m pytest: the module is the program.
			return strings.Join([]string{quoteWord(argv[0]), "-m", quoteWord(argv[2]), "*"}, " ")
		case strings.HasPrefix(argv[1], "-"):
			// python3 -c CODE, node -e CODE: a prefix would allow any code.
			return ""
		}
	}
	words := []string{quoteWord(argv[0])}
	if len(argv) > 1 && plain(argv[1]) {
		words = append(words, quoteWord(argv[1]))
		if (argv[0] == "npm" || argv[0] == "pnpm" || argv[0] == "yarn") && argv[1] == "run" && len(argv) > 2 && plain(argv[2]) {
			words = append(words, quoteWord(argv[2]))
		}
	}
	return strings.Join(append(words, "*"), " ")
}

// Quote writes argv as a command line that Argv reads back as argv (for a
// rule's examples).
func Quote(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		if w != "" && !strings.ContainsAny(w, " \t'\"\\*?[]$`;|&<>(){}~#!\n") {
			words[i] = w
		} else {
			words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// interpreters are programs whose options can carry the code they run
// (python3 -c, node -e): "always allow" offers no prefix of such options.
var interpreters = map[string]bool{
	"python": true, "python3": true, "python2": true, "node": true, "deno": true, "bun": true,
	"ruby": true, "perl": true, "php": true, "bash": true, "sh": true, "zsh": true, "fish": true,
	"lua": true, "Rscript": true, "osascript": true, "pwsh": true,
}

// quoteWord writes a word so that Parse reads it back as itself (a word
// never holds a literal *: a * in a rule is a pattern).
func quoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t'\"\\*$`;|&<>(){}\n") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
