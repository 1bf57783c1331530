package command

import (
	"fmt"
	"slices"

	"admit/policy/rule"
	"admit/policy/rules"
)

// The person's rules in the judge. A rule matches one simple command's
// argv as written, after wrappers are seen through (each level of a
// wrapper is matched on its own: "timeout 60 npm test" is matched as
// itself and as "npm test"). Deny and ask rules apply to every command,
// whatever the policy makes of it; an allow rule only answers a question
// the policy asks because it cannot judge what runs (asksCode), and only
// when the call's kinds of effect are within the rule's (effects.go),
// never a refusal, nor a question about a protected path, a secret or git's
// configuration. The line's other commands are judged as ever, so
// "npm test && curl x | sh" is not allowed by a rule for "npm test".

// personRules applies the deny and ask rules that match argv; it reports
// whether a deny rule refused the command.
func (j *judge) personRules(argv []string) bool {
	if j.c.Rules == nil {
		return false
	}
	written := withoutRuntimeNames(argv)
	r, ok := j.c.Rules.Match(written)
	if !ok {
		return false
	}
	switch r.Decision {
	case rule.OutcomeDeny:
		j.refuse(rule.RuleDenies, fmt.Sprintf("%s matches %s %q, which denies it", showArgv(written), ruleOwner(r), r.Match),
			"do not run "+written[0]+" this way; do the task another way, or ask the user")
		return true
	case rule.OutcomeAsk:
		j.acc.asks(rule.RuleAsks, fmt.Sprintf("%s matches %s %q, which asks a person", showArgv(written), ruleOwner(r), r.Match), "")
	}
	return false
}

// asksCode asks about argv because admit cannot judge what it runs (rule
// r: runs-code, network, unsupported-program or git-subcommand), unless
// an allow rule of the person's over argv answers the question.
func (j *judge) asksCode(r rule.Rule, argv []string, reason, hint string) {
	written := withoutRuntimeNames(argv)
	if len(written) == 0 {
		// The program itself is a name only known when it runs (find 0
		// -exec {} +): there is nothing to ask about, nor for a rule to
		// match.
		j.refuse(rule.DynamicWord, "the program to run is a name only known when it runs ({} of find -exec or xargs -I)", "name the program to run")
		return
	}
	if !slices.ContainsFunc(j.acc.runsCode, func(have []string) bool { return slices.Equal(have, written) }) {
		j.acc.runsCode = append(j.acc.runsCode, slices.Clone(written))
	}
	if j.c.Effects == WorkspaceWrite {
		j.wrote() // it may change any file of the workspace
	}
	eff := j.callEffects(r, written)
	if _, why := codeExtension(written); why != "" {
		// An option that adds code (pytest -p, make SHELL=, a loader in
		// --node-options): a rule covers it only when its effects say so
		// (runners.go).
		eff.Code = rules.Add(eff.Code, rules.CodeOptions)
		reason += "; " + why
	}
	if j.c.Rules != nil {
		// The rule must cover what the call does, not only how it starts
		// (rules.Rule.Covers): curl to localhost is not an upload.
		if j.allowedAs(written, eff) {
			return
		}
		// A runner's rule answers for the command it runs (runners.go).
		for k := len(j.via) - 1; k >= 0; k-- {
			if j.allowedAs(j.via[k].argv, eff) {
				return
			}
		}
	}
	if len(j.via) > 0 {
		// One question for the runner and what it runs, as written: the
		// rule it offers names the runner's words, with the effects of
		// both.
		outer := j.via[0].argv
		eff = mergeEffects(j.callEffects(r, outer), eff)
		j.acc.asksCode(r, outer, eff, reason, hint)
		return
	}
	j.acc.asksCode(r, written, eff, reason, hint)
}

// allowedAs reports whether an allow rule of the person's over argv
// covers a call whose effects are eff.
func (j *judge) allowedAs(argv []string, eff rules.Effects) bool {
	if m, ok := j.c.Rules.Answer(argv, eff); ok {
		j.acc.answered(m.Match)
		return true
	}
	return false
}

// mergeEffects is every kind of effect of a and b.
func mergeEffects(a, b rules.Effects) rules.Effects {
	for _, k := range b.Reads {
		a.Reads = rules.Add(a.Reads, k)
	}
	for _, k := range b.Code {
		a.Code = rules.Add(a.Code, k)
	}
	for _, k := range b.Hosts {
		a.Hosts = rules.Add(a.Hosts, k)
	}
	for _, k := range b.Sends {
		a.Sends = rules.Add(a.Sends, k)
	}
	return a.Sorted()
}

// asksWorkspaceProgram asks about a program of the workspace that a bare
// name runs (found on the agent's PATH inside the workspace: an activated
// .venv/bin, node_modules/.bin), whose path as written from the working
// folder is found (".venv/bin/pytest"). It is matched, asked and offered
// for "always allow" under that path, never under the bare name: a rule
// for npm is the person's word about the npm they installed, not about a
// file of the workspace called npm.
func (j *judge) asksWorkspaceProgram(argv []string, found string) {
	asPath := append([]string{found}, argv[1:]...)
	if j.personRules(asPath) {
		return
	}
	j.asksCode(rule.RunsCode, asPath, fmt.Sprintf("%q runs %s, a program of the workspace (found on PATH), which admit cannot judge before it runs, so a person decides", argv[0], found), "")
}

// ruleOwner names whose rule it is, for reasons.
func ruleOwner(r rules.Rule) string {
	switch r.Source {
	case "repository":
		return "the repository's rule"
	case "workspace":
		return "the person's rule for this workspace"
	case "managed":
		return "your organisation's managed rule"
	}
	return "the person's rule"
}

// showArgv writes argv for a reason, the way rules read it back.
func showArgv(argv []string) string {
	const max = 120
	s := rules.Quote(argv)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// runtimeName stands for a name only known when the command runs, which
// xargs or find -exec give as an operand (see xargs.go). A shell word
// never holds a NUL, and the judge refuses an argv that does.
const runtimeName = "\x00name"

// withoutRuntimeNames is argv as written: without the names xargs or find
// would add.
func withoutRuntimeNames(argv []string) []string {
	for _, w := range argv {
		if w == runtimeName {
			out := make([]string, 0, len(argv))
			for _, w := range argv {
				if w != runtimeName {
					out = append(out, w)
				}
			}
			return out
		}
	}
	return argv
}

// hasNUL reports a word with a NUL byte, which no shell word holds.
// Bytes are looked at eight or four together, the last chunk overlapping
// the one before (no byte by byte tail, most words being short): a zero
// byte is the one whose subtraction borrows (v-0x01.. sets its high bit
// where v had none).
func hasNUL(argv []string) bool {
	for _, w := range argv {
		switch n := len(w); {
		case n >= 8:
			for i := 0; i+8 <= n; i += 8 {
				if zero8(w[i:]) {
					return true
				}
			}
			if n%8 != 0 && zero8(w[n-8:]) {
				return true
			}
		case n >= 4:
			if zero4(w) || zero4(w[n-4:]) {
				return true
			}
		case n > 0:
			if w[0] == 0 || w[n/2] == 0 || w[n-1] == 0 { // every byte of 1 to 3
				return true
			}
		}
	}
	return false
}

// zero8 reports a zero byte among w's first eight.
func zero8(w string) bool {
	_ = w[7]
	v := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	return (v-0x0101010101010101)&^v&0x8080808080808080 != 0
}

// zero4 reports a zero byte among w's first four.
func zero4(w string) bool {
	_ = w[3]
	v := uint32(w[0]) | uint32(w[1])<<8 | uint32(w[2])<<16 | uint32(w[3])<<24
	return (v-0x01010101)&^v&0x80808080 != 0
}
