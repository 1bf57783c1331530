package command

import (
	"fmt"
	"strings"
	"testing"

	"admit/policy/rule"
	"admit/policy/rules"
)

// personRules200 are 200 rules as a person's file grows them: prefixes of
// many programs and subcommands, allow, ask and deny, with the ones the
// benchmark's lines match last, so that every match reads them all.
func personRules200(tb testing.TB) *rules.Set {
	tb.Helper()
	var list []rules.Rule
	decisions := []rule.Outcome{rule.OutcomeAllow, rule.OutcomeAllow, rule.OutcomeAsk, rule.OutcomeDeny}
	for i := 0; len(list) < 196; i++ {
		r, err := rules.Parse(fmt.Sprintf("tool%d sub%d *", i, i%7), decisions[i%len(decisions)])
		if err != nil {
			tb.Fatal(err)
		}
		list = append(list, r)
	}
	for _, m := range []string{"npm test *", "go test *", "git log *", "make *"} {
		r, err := rules.Parse(m, rule.OutcomeAllow)
		if err != nil {
			tb.Fatal(err)
		}
		list = append(list, r)
	}
	s, err := rules.NewSet(list)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// rulesLines are typical lines, with the toolchain commands a person's
// rules answer.
var rulesLines = append([]string{"npm test", "go test ./...", "make build", "npm test && git status"}, typical...)

// BenchmarkEvaluateRules compares a decision with 200 person rules loaded
// to one without: go test -bench EvaluateRules ./policy/command prints
// both (the bound held: within 1.2x).
func BenchmarkEvaluateRules(b *testing.B) {
	w := newWorkspace(b)
	p := New(nil)
	for _, n := range []int{0, 200} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			c := w.context(false, "")
			if n > 0 {
				c.Rules = personRules200(b)
				if c.Rules.Len() != n {
					b.Fatalf("%d rules", c.Rules.Len())
				}
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				d := p.Evaluate(rulesLines[i%len(rulesLines)], w.ws, c)
				if i < len(rulesLines) && n > 0 && !d.Allowed {
					b.Fatalf("%q: %s %s", rulesLines[i], d.Rule, d.Reason)
				}
			}
		})
	}
}

// TestAsksPerCommand: a line's questions are recorded per simple command,
// wrappers seen through, so "always allow" is offered for the right
// prefix; a question no rule answers makes the line not Answerable; an
// answered line says which rules answered it, and what runs code.
func TestAsksPerCommand(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	mustRules := func(ms ...string) *rules.Set {
		var list []rules.Rule
		for _, m := range ms {
			r, err := rules.Parse(m, rule.OutcomeAllow)
			if err != nil {
				t.Fatal(err)
			}
			list = append(list, r)
		}
		s, err := rules.NewSet(list)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		line       string
		rules      *rules.Set
		asks       [][]string
		answerable bool
		allowedBy  []string
		runsCode   int
	}{
		{line: "cat a.txt && npm test -- --ci", asks: [][]string{{"npm", "test", "--", "--ci"}}, answerable: true, runsCode: 1},
		{line: "timeout 60 go test ./... | tail -n 5", asks: [][]string{{"go", "test", "./..."}}, answerable: true, runsCode: 1},
		{line: "npm ci && npm test", asks: [][]string{{"npm", "ci"}, {"npm", "test"}}, answerable: true, runsCode: 2},
		{line: "npm test && cat .env", asks: [][]string{{"npm", "test"}}, answerable: false, runsCode: 1},
		{line: "npm ci && npm test", rules: mustRules("npm ci"), asks: [][]string{{"npm", "test"}}, answerable: true, runsCode: 2},
		{line: "npm ci && npm test", rules: mustRules("npm ci", "npm test *"), allowedBy: []string{"npm ci", "npm test *"}, runsCode: 2},
		{line: "ls -la", runsCode: 0},
	} {
		c2 := w.context(true, "")
		c2.Rules = c.rules
		d := p.Evaluate(c.line, w.ws, c2)
		if fmt.Sprint(d.Asks) != fmt.Sprint(c.asks) || d.Answerable != c.answerable || fmt.Sprint(d.AllowedBy) != fmt.Sprint(c.allowedBy) || len(d.RunsCode) != c.runsCode {
			t.Errorf("%q: asks %q answerable %v allowedBy %q runsCode %q (%s %s); want %q %v %q %d",
				c.line, d.Asks, d.Answerable, d.AllowedBy, d.RunsCode, d.Rule, d.Reason, c.asks, c.answerable, c.allowedBy, c.runsCode)
		}
		if len(c.allowedBy) > 0 && (!d.Allowed || d.Rule != rule.RuleAllows) {
			t.Errorf("%q: %v %s, want allowed by rule-allows", c.line, d.Allowed, d.Rule)
		}
	}
}

// TestToolchainTable: every name belongs to one toolchain, and every
// class is one the judge answers.
func TestToolchainTable(t *testing.T) {
	seen := map[string]string{}
	var walk func(where string, subs []toolSub)
	checkClass := func(where string, c toolClass) {
		if c.severity() == 0 {
			t.Errorf("%s: class %d has no answer", where, c)
		}
	}
	walk = func(where string, subs []toolSub) {
		names := map[string]bool{}
		for _, s := range subs {
			checkClass(where+" "+s.names, s.class)
			for _, n := range strings.Fields(s.names) {
				if names[n] {
					t.Errorf("%s: subcommand %q is listed twice", where, n)
				}
				names[n] = true
			}
			if s.other != 0 {
				checkClass(where+" "+s.names+" (other)", s.other)
			}
			for _, f := range s.flags {
				checkClass(where+" "+f.names, f.class)
			}
			walk(where+" "+s.names, s.subs)
		}
	}
	built := map[*toolchain]bool{}
	for _, tc := range toolchainTable() {
		if built[tc] {
			continue
		}
		built[tc] = true
		for _, n := range strings.Fields(tc.names) {
			if other, dup := seen[n]; dup {
				t.Errorf("program %q is in two toolchains (%s and %s)", n, other, tc.names)
			}
			seen[n] = tc.names
		}
		checkClass(tc.names+" bare", tc.bare)
		checkClass(tc.names+" other", tc.other)
		walk(tc.names, tc.subs)
	}
	for name := range seen {
		if fixedWords[name] != "" || privileged[name] {
			t.Errorf("%q is both a toolchain and a word with a fixed answer", name)
		}
	}
}

// TestSecrets: the default patterns, exemptions whatever their order,
// folders in a pattern, and errors naming the pattern.
func TestSecrets(t *testing.T) {
	s := DefaultSecrets()
	for p, want := range map[string]bool{
		".env": true, "sub/.env": true, ".env.local": true, ".env.example": false, "config/prod.env": true, "x/.ENV": true,
		"keys/id_rsa": true, "keys/id_rsa.pub": false, "server.pem": true, "a/b/tls.key": true, ".npmrc": true,
		".aws/credentials": true, "aws/credentials": false, "home/.kube/config": true, "README.md": false, ".envrc": false,
		".env/bin/python": false,
	} {
		if got := s.Secret(p) != ""; got != want {
			t.Errorf("Secret(%q) = %v, want %v", p, got, want)
		}
	}
	mine, err := NewSecrets(append(DefaultSecretPatterns(), "!*.pem", "deploy/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if mine.Secret("server.pem") != "" || mine.Secret("deploy/prod.json") == "" || mine.Secret("prod.json") != "" {
		t.Errorf("a person's patterns: pem %q, deploy/prod.json %q", mine.Secret("server.pem"), mine.Secret("deploy/prod.json"))
	}
	for _, bad := range []string{"", "!", "a//b", "../x", "[x"} {
		if _, err := NewSecrets([]string{bad}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("NewSecrets(%q) = %v, want an error naming it", bad, err)
		}
	}
}

// TestWorkspaceProgramRules: a program of the workspace a bare name runs
// is matched under its path: a rule for the bare name does not answer,
// one for the path does, and the question offers the path.
func TestWorkspaceProgramRules(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	for _, c := range []struct {
		rule, want string
	}{
		{"npm test *", "ask:runs-code"},
		{".venv/bin/npm test *", "rule-allows"},
	} {
		r, err := rules.Parse(c.rule, rule.OutcomeAllow)
		if err != nil {
			t.Fatal(err)
		}
		ctx := w.context(false, "")
		if ctx.Rules, err = rules.NewSet([]rules.Rule{r}); err != nil {
			t.Fatal(err)
		}
		pa := p.newPass(ctx, &accum{})
		j := pa.judge(w.ws, 0, nil)
		j.asksWorkspaceProgram([]string{"npm", "test"}, ".venv/bin/npm")
		d := pa.acc.decision()
		p.done(pa)
		got := string(d.Rule)
		if d.Ask {
			got = "ask:" + got
		}
		if got != c.want {
			t.Errorf("rule %q: %s (%s), want %s", c.rule, got, d.Reason, c.want)
		}
		if d.Ask && (len(d.Asks) != 1 || d.Asks[0][0] != ".venv/bin/npm") {
			t.Errorf("rule %q: asks %q, want the program's path", c.rule, d.Asks)
		}
	}
}
