package shell

import (
	"slices"
	"strings"
	"testing"

	"admit/policy/rule"
)

// TestSubstitutions: with Parser.Substitutions, a whole-word $(one simple
// command) is kept; every other shape, and any substitution without it,
// is a problem as before.
func TestSubstitutions(t *testing.T) {
	kept := []struct {
		line  string
		argv  []string
		index int
		inner []string
	}{
		{"wc -l $(git ls-files)", []string{"wc", "-l", "$(git ls-files)"}, 2, []string{"git", "ls-files"}},
		{"cat $(find src -name '*.go') x", []string{"cat", "$(find src -name '*.go')", "x"}, 1, []string{"find", "src", "-name", "*.go"}},
		{"{a,b} $(git ls-files {c,d})", []string{"a", "b", "$(git ls-files {c,d})"}, 2, []string{"git", "ls-files", "c", "d"}},
	}
	p := NewParser(home)
	p.Substitutions = true
	for _, c := range kept {
		script, prob := p.Parse(c.line, Analyze)
		if prob != nil {
			t.Errorf("%q: %s", c.line, prob.Reason)
			continue
		}
		cmd := script.Commands[0]
		if !slices.Equal(cmd.Argv, c.argv) || len(cmd.Substitutions) != 1 ||
			cmd.Substitutions[0].Index != c.index || !slices.Equal(cmd.Substitutions[0].Argv, c.inner) {
			t.Errorf("%q: argv %q, substitutions %+v", c.line, cmd.Argv, cmd.Substitutions)
		}
	}
	refused := map[string]rule.Rule{
		"$(git ls-files) x":                        rule.DynamicWord, // the program's name
		"wc -l src/$(ls)":                          rule.DynamicWord, // part of a word
		`wc -l "$(git ls-files)"`:                  rule.DynamicWord, // one word of every name
		"wc -l `git ls-files`":                     rule.DynamicWord,
		"wc -l $(git ls-files | head)":             rule.DynamicWord,
		"wc -l $(git ls-files; ls)":                rule.DynamicWord,
		"wc -l $(git ls-files 2>/dev/null)":        rule.DynamicWord,
		"wc -l $(X=1 git ls-files)":                rule.DynamicWord,
		"wc -l $(git ls-files $(echo x))":          rule.DynamicWord,
		"wc -l $(git ls-files $HOME)":              rule.DynamicWord,
		"wc -l $(git ls-files *.go)":               rule.DynamicWord,
		"wc -l *.go $(git ls-files)":               rule.DynamicWord,
		"wc -l $(<file)":                           rule.DynamicWord,
		"wc -l $(if true; then ls; fi)":            rule.DynamicWord,
		"wc -l $(git ls-files &)":                  rule.DynamicWord,
		"wc -l > $(git ls-files)":                  rule.DynamicWord, // a redirection's target
		"wc -l $(git ls-files) && coproc rm $(ls)": rule.ShellSyntax,
		"wc -l $(git ls-files)$(git ls-files)":     rule.DynamicWord,
		"wc -l x$(git ls-files)":                   rule.DynamicWord,
		"wc -l ${x:-$(git ls-files)}":              rule.DynamicWord,
		"wc -l $(git ls-files -- ~user/x)":         rule.DynamicWord,
		"wc -l $(git ls-files) <<< $(rm -rf x)":    rule.DynamicWord,
	}
	for line, want := range refused {
		if _, prob := p.Parse(line, Analyze); prob == nil || prob.Rule != want {
			t.Errorf("%q: %v, want %s", line, prob, want)
		}
	}
	// Without the setting, or in another profile, nothing changes.
	plain := NewParser(home)
	for _, c := range kept {
		if _, prob := plain.Parse(c.line, Analyze); prob == nil || prob.Rule != rule.DynamicWord {
			t.Errorf("%q without Substitutions: %v, want dynamic-word", c.line, prob)
		}
		for _, prof := range []Profile{Refuse, BashInteractive, Zsh, Fish} {
			if _, prob := p.Parse(c.line, prof); prob == nil {
				t.Errorf("%q in %s: accepted", c.line, prof)
			}
		}
	}
}

// FuzzSubstitutions: with Substitutions set, a line without any parses
// exactly as before, and every substitution kept is a whole $( ) word
// after the program's name, whose line is refused without the setting.
func FuzzSubstitutions(f *testing.F) {
	for _, line := range []string{
		"wc -l $(git ls-files)", "cat $(find . -name '*.go') | wc -l", "ls $(git ls-files) $(rg --files)",
		"wc -l $(git ls-files | head)", `cat "$(ls)"`, "a $(b $(c))", "x $(y) > $(z)", "echo ok",
	} {
		f.Add(line)
	}
	with, without := NewParser(home), NewParser(home)
	with.Substitutions = true
	f.Fuzz(func(t *testing.T, line string) {
		script, prob := with.Parse(line, Analyze)
		checkResult(t, line, Analyze, script, prob)
		other, oprob := without.Parse(line, Analyze)
		if oprob == nil {
			if prob != nil {
				t.Fatalf("%q: accepted without Substitutions, refused with: %s", line, prob.Reason)
			}
			if !slices.EqualFunc(script.Commands, other.Commands, func(a, b Command) bool {
				return slices.Equal(a.Argv, b.Argv) && len(a.Substitutions) == 0
			}) {
				t.Fatalf("%q: %q with Substitutions, %q without", line, argvs(script), argvs(other))
			}
			return
		}
		if prob != nil {
			return
		}
		subs := 0
		for _, c := range script.Commands {
			for _, s := range c.Substitutions {
				subs++
				w := c.Argv[s.Index]
				if s.Index == 0 || !strings.HasPrefix(w, "$(") || !strings.HasSuffix(w, ")") || len(s.Argv) == 0 || s.Argv[0] == "" {
					t.Fatalf("%q: substitution %+v of %q", line, s, c.Argv)
				}
			}
		}
		if subs == 0 || oprob.Rule != rule.DynamicWord {
			t.Fatalf("%q: accepted with Substitutions (%d kept), refused without as %s", line, subs, oprob.Rule)
		}
	})
}
