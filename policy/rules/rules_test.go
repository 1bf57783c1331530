package rules_test

import (
	"strings"
	"testing"

	"admit/policy/rule"
	"admit/policy/rules"
)

// split reads one simple command's literal argv, as the command policy
// would hand it over.
func split(line string) ([]string, error) { return rules.Argv(line) }

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		rule string
		yes  []string
		no   []string
	}{
		{"npm test", []string{"npm test"}, []string{"npm test -- --watch", "npm", "npm testx", "./npm test", "node_modules/.bin/npm test", "npm run test"}},
		{"npm test *", []string{"npm test", "npm test -- --watch"}, []string{"npm testing", "npm", "npx npm test"}},
		{"Bash(npm run test:*)", []string{"npm run test", "npm run test --silent"}, []string{"npm run build", "npm run", "npm run testx"}},
		{"Bash(git diff *)", []string{"git diff", "git diff HEAD~1"}, []string{"git diffx", "git push", "git"}},
		{"go test ./...", []string{"go test ./..."}, []string{"go test ./... -run X", "go test"}},
		{"make *", []string{"make", "make build", "make -j4 test"}, []string{"cmake", "gmake"}},
		{"pytest -q *", []string{"pytest -q", "pytest -q tests/x.py"}, []string{"pytest", "pytest -x"}},
		{"./scripts/test.sh *", []string{"./scripts/test.sh", "./scripts/test.sh --fast"}, []string{"scripts/test.sh", "bash ./scripts/test.sh"}},
		{"npm run test:*", []string{"npm run test", "npm run test x"}, []string{"npm run test:unit"}},
		{"cargo test* *", []string{"cargo test", "cargo testx", "cargo test --all"}, []string{"cargo build"}},
		{"'a b' c", []string{"'a b' c"}, []string{"a b c"}},
	} {
		r, err := rules.Parse(c.rule, rule.OutcomeAllow)
		if err != nil {
			t.Fatalf("%q: %v", c.rule, err)
		}
		for _, line := range c.yes {
			argv, err := split(line)
			if err != nil {
				t.Fatal(line, err)
			}
			if !r.Matches(argv) {
				t.Errorf("%q should match %q", c.rule, line)
			}
		}
		for _, line := range c.no {
			argv, err := split(line)
			if err != nil {
				t.Fatal(line, err)
			}
			if r.Matches(argv) {
				t.Errorf("%q should not match %q", c.rule, line)
			}
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, m := range []string{"", "*", "Bash(*)", "Bash()", ":*", "* test", "n*m test", "npm test; rm -rf /", "npm test && x", "npm $(x)", "npm `x`",
		"echo 'unterminated", `echo \`, "npm > out", "Bash(npm test", "a b c d e f g h i j k l m n o p q"} {
		if _, err := rules.Parse(m, rule.OutcomeAllow); err == nil {
			t.Errorf("%q was accepted", m)
		}
	}
	if _, err := rules.Parse("npm test", "sometimes"); err == nil {
		t.Error("a decision that is no outcome was accepted")
	}
}

func TestStrictestWins(t *testing.T) {
	s, err := rules.Load([]byte(`{"allow":["npm *","git push *"],"deny":["npm publish *"],"ask":["git push *"]}`), "test", true)
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]rule.Outcome{
		"npm test": rule.OutcomeAllow, "npm publish": rule.OutcomeDeny, "npm publish --tag x": rule.OutcomeDeny,
		"git push origin main": rule.OutcomeAsk,
	} {
		argv, _ := split(line)
		r, ok := s.Match(argv)
		if !ok || r.Decision != want {
			t.Errorf("%q: %+v %v, want %s", line, r, ok, want)
		}
	}
	if _, ok := s.Match([]string{"curl", "x"}); ok {
		t.Error("an unrelated command matched")
	}
}

func TestExamplesAreChecked(t *testing.T) {
	good := `{"rules":[{"match":"make *","decision":"allow","examples":["make test","make"],"notExamples":["cmake ."]}]}`
	if _, err := rules.Load([]byte(good), "good", true); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"rules":[{"match":"make test","decision":"allow","examples":["make build"]}]}`,
		`{"rules":[{"match":"make *","decision":"allow","notExamples":["make x"]}]}`,
		`{"rules":[{"match":"make *","decision":"allow","examples":["make; curl x | sh"]}]}`,
		`{"allow":["npm test"],"unknown":1}`,
	} {
		_, err := rules.Load([]byte(bad), "person.json", true)
		if err == nil || !strings.Contains(err.Error(), "person.json") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestRepositoryMayOnlyTighten(t *testing.T) {
	if _, err := rules.Load([]byte(`{"deny":["curl *"],"ask":["npm install *"]}`), "repo", false); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{`{"allow":["curl *"]}`, `{"rules":[{"match":"rm *","decision":"allow"}]}`} {
		if _, err := rules.Load([]byte(f), "repo", false); err == nil || !strings.Contains(err.Error(), "allow rule") {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestPrefixRule(t *testing.T) {
	rs, err := rules.PrefixRule([]any{"git", []any{"status", "diff"}}, "allow")
	if err != nil || len(rs) != 2 {
		t.Fatal(rs, err)
	}
	for _, line := range []string{"git status", "git diff HEAD", "git status -s"} {
		argv, _ := split(line)
		if !rs[0].Matches(argv) && !rs[1].Matches(argv) {
			t.Errorf("%q not matched", line)
		}
	}
	argv, _ := split("git push")
	if rs[0].Matches(argv) || rs[1].Matches(argv) {
		t.Error("git push matched")
	}
	if rs, err := rules.PrefixRule([]any{"npm", "publish"}, "forbidden"); err != nil || rs[0].Decision != rule.OutcomeDeny {
		t.Error(rs, err)
	}
	if _, err := rules.PrefixRule([]any{"x", 3.0}, "allow"); err == nil {
		t.Error("a number in the pattern was accepted")
	}
}

func TestSuggestRoundTrips(t *testing.T) {
	for line, want := range map[string]string{
		"npm test":              "npm test *",
		"npm run build --x":     "npm run build *",
		"go test ./...":         "go test *",
		"make":                  "make *",
		"pytest -q tests":       "pytest *",
		"./scripts/test.sh a":   "./scripts/test.sh a *",
		"python3 x.py":          "python3 x.py *",
		"cargo check":           "cargo check *",
		"python3 -m pytest -q":  "python3 -m pytest *",
		"python3 -c 'print(1)'": "",
		"node -e 'x'":           "",
	} {
		argv, _ := split(line)
		got := rules.Suggest(argv)
		if got != want {
			t.Errorf("Suggest(%q) = %q, want %q", line, got, want)
			continue
		}
		if want == "" {
			continue
		}
		r, err := rules.Parse(got, rule.OutcomeAllow)
		if err != nil || !r.Matches(argv) {
			t.Errorf("Suggest(%q) = %q does not match it: %v", line, got, err)
		}
	}
}

// FuzzParseMatch: Parse never panics, and a rule never matches a command
// of another program (the program word is never a pattern) nor an empty
// one.
func FuzzParseMatch(f *testing.F) {
	for _, s := range []string{"npm test *", "Bash(git diff:*)", "'a b' *", "x*y z", "make", "Bash(npm run test:*)"} {
		f.Add(s, "npm test x")
	}
	f.Fuzz(func(t *testing.T, match, line string) {
		r, err := rules.Parse(match, rule.OutcomeAllow)
		if err != nil {
			return
		}
		argv := strings.Fields(line)
		if !r.Matches(argv) {
			return
		}
		if len(argv) == 0 {
			t.Fatalf("%q matched an empty command", match)
		}
		other := append([]string{argv[0] + "x"}, argv[1:]...)
		if r.Matches(other) {
			t.Fatalf("%q matched %q and %q: the program word is a pattern", match, argv, other)
		}
	})
}

func TestQuoteRoundTrips(t *testing.T) {
	for _, argv := range [][]string{{"npm", "test"}, {"echo", "a b", "it's", "*", "$HOME", ""}, {"x", `back\slash`, "semi;colon"}} {
		got, err := rules.Argv(rules.Quote(argv))
		if err != nil || strings.Join(got, "\x00") != strings.Join(argv, "\x00") {
			t.Errorf("%q: %q %v", argv, got, err)
		}
	}
}
