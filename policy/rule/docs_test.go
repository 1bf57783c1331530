package rule_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"admit/approvals"
	"admit/internal/golden"
	"admit/policy/command"
	"admit/policy/rule"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md from the catalogue")

// root is the module's folder, from this package's.
const root = "../.."

// TestRulesDoc renders the catalogue as docs/rules.md: go test
// ./policy/rule -update rewrites it, and otherwise the test fails when the
// file and the catalogue disagree.
func TestRulesDoc(t *testing.T) {
	golden.Check(t, filepath.Join(root, "docs", "rules.md"), renderRules(), *update)
}

func renderRules() []byte {
	var b bytes.Buffer
	b.WriteString(`# admit's rules

<!-- Generated from policy/rule/catalogue.go by go test ./policy/rule -update. Edit the catalogue, not this file. -->

Every verdict and every tape record names a rule: why the call was decided the way it
was. A model reads it in the refusal, the tape stores it, a person filters by it
(` + "`admit tape --rule RULE`" + `). The rules are typed constants of the leaf package
` + "`admit/policy/rule`" + `, listed here in decision order: a call passes the stages in
this order and the first that decides, decides (README.md, "The decision order").

Each rule has its meaning, the remedy a person or a model can act on (a refusal's
own hint, when it gives one, is more precise: it names the program, option or
path), the stage that first gives it (and the later stages that give it too), and
its outcome class:

- **allow**: admitted by rule, with no person;
- **ask**: a person decides; with nobody to ask, the call is refused with a
  reason that says it needed a person;
- **deny**: refused by a rule, and never put to a person;
- **depends**: the rule alone does not fix it (` + "`protected-path`" + ` refuses under
  ` + "`.admit/`" + ` and asks elsewhere), or the record is no decision (a result, a repair).

| stage | rules given at the stage |
| --- | --- |
`)
	cat := rule.Catalogue()
	for _, s := range rule.Stages() {
		var names []string
		for _, in := range cat {
			if in.Stage == s || slices.Contains(in.Also, s) {
				names = append(names, "[`"+string(in.Rule)+"`](#"+string(in.Rule)+")")
			}
		}
		fmt.Fprintf(&b, "| %s | %s |\n", s, strings.Join(names, ", "))
	}
	stage := rule.Stage(0)
	n := 0
	for _, in := range cat {
		if in.Stage != stage {
			stage = in.Stage
			n++
			fmt.Fprintf(&b, "\n## %d. %s\n", n, stage)
		}
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n", in.Rule, in.Meaning)
		outcome := string(in.Outcome)
		if outcome == "" {
			outcome = "depends"
		}
		fmt.Fprintf(&b, "- outcome: %s\n", outcome)
		if len(in.Also) > 0 {
			also := make([]string, len(in.Also))
			for i, s := range in.Also {
				also[i] = s.String()
			}
			fmt.Fprintf(&b, "- also given at: %s\n", strings.Join(also, ", "))
		}
		fmt.Fprintf(&b, "- remedy: %s\n", in.Remedy)
	}
	return b.Bytes()
}

// readmeItem is one step of the README's decision order.
type readmeItem struct {
	line  int // 1-based line in README.md
	num   int
	stage string
	text  string
}

var (
	itemStart = regexp.MustCompile(`^(\d+)\. ([a-z ]+): `)
	backquote = regexp.MustCompile("`([^`]+)`")
)

// decisionOrder returns the section "The decision order" of the README:
// its numbered items, and all its text.
func decisionOrder(t *testing.T, readme string) ([]readmeItem, string) {
	t.Helper()
	const heading = "## The decision order\n"
	i := strings.Index(readme, heading)
	if i < 0 {
		t.Fatal("README.md has no section \"The decision order\"")
	}
	start := strings.Count(readme[:i], "\n") + 2
	section := readme[i+len(heading):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	var items []readmeItem
	in := false
	for k, line := range strings.Split(section, "\n") {
		if m := itemStart.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			items = append(items, readmeItem{line: start + k, num: n, stage: m[2], text: line[len(m[0]):]})
			in = true
			continue
		}
		switch {
		case line == "":
			in = false
		case in && strings.HasPrefix(line, "   "):
			items[len(items)-1].text += " " + strings.TrimSpace(line)
		default:
			in = false
		}
	}
	return items, section
}

// otherWords are the words of admit's vocabulary that are spelled like
// rules but are not: effect modes, a person's answers, who decided.
func otherWords() map[string]bool {
	w := map[string]bool{
		string(command.ReadOnly): true, string(command.WorkspaceWrite): true,
		string(approvals.AllowOnce): true, string(approvals.AllowSession): true,
	}
	for _, by := range []rule.DecidedBy{rule.ByRule, rule.ByPerson, rule.ByGrant, rule.ByTimeout, rule.ByCancelled,
		rule.BySessionClosed, rule.ByShutdown, rule.ByDisconnected, rule.ByHeadless, rule.ByTape} {
		w[string(by)] = true
	}
	return w
}

// TestReadmeDecisionOrder checks README.md's "The decision order" against
// the catalogue: it lists every stage once, in the catalogue's order; each
// stage's item names every rule first given at that stage, and only rules
// the catalogue gives there; and the section names no rule the catalogue
// does not have.
func TestReadmeDecisionOrder(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range readmeProblems(t, string(b)) {
		t.Error(p)
	}
}

func readmeProblems(t *testing.T, readme string) []string {
	items, section := decisionOrder(t, readme)
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	byName := map[string]rule.Stage{}
	for _, s := range rule.Stages() {
		byName[s.String()] = s
	}
	var listed []rule.Stage
	for i, it := range items {
		if it.num != i+1 {
			add("README.md:%d: item %d is numbered %d", it.line, i+1, it.num)
		}
		s, ok := byName[it.stage]
		if !ok {
			add("README.md:%d: %q is not a stage of the catalogue (%s)", it.line, it.stage, stageList(rule.Stages()))
			continue
		}
		listed = append(listed, s)
	}
	if !slices.Equal(listed, rule.Stages()) {
		add("README.md: the decision order lists the stages %s; the catalogue's order is %s", stageList(listed), stageList(rule.Stages()))
	}

	other := otherWords()
	isRule := func(w string) (rule.Info, bool) {
		if other[w] || !ruleWord.MatchString(w) {
			return rule.Info{}, false
		}
		return rule.Lookup(rule.Rule(w))
	}
	for _, m := range backquote.FindAllStringSubmatch(section, -1) {
		w := m[1]
		if _, ok := isRule(w); !ok && strings.Contains(w, "-") && ruleWord.MatchString(w) && !other[w] {
			add("README.md: the decision order names `%s`, which is not a rule of the catalogue", w)
		}
	}
	named := map[rule.Stage]map[rule.Rule]bool{}
	for _, it := range items {
		s, ok := byName[it.stage]
		if !ok {
			continue
		}
		if named[s] == nil {
			named[s] = map[rule.Rule]bool{}
		}
		for _, m := range backquote.FindAllStringSubmatch(it.text, -1) {
			in, ok := isRule(m[1])
			if !ok {
				continue
			}
			named[s][in.Rule] = true
			if in.Stage != s && !slices.Contains(in.Also, s) {
				add("README.md:%d: the %s step names `%s`, which the catalogue gives at %s", it.line, s, in.Rule, stageList(append([]rule.Stage{in.Stage}, in.Also...)))
			}
		}
	}
	for _, in := range rule.Catalogue() {
		if _, listed := named[in.Stage]; listed && !named[in.Stage][in.Rule] {
			add("README.md: the %s step does not name `%s`", in.Stage, in.Rule)
		}
	}
	return problems
}

func stageList(s []rule.Stage) string {
	names := make([]string, len(s))
	for i, x := range s {
		names[i] = x.String()
	}
	return strings.Join(names, ", ")
}

// TestReadmeProblems shows that the README check catches what it is for.
func TestReadmeProblems(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	items, _ := decisionOrder(t, readme)
	if len(items) < 2 {
		t.Fatalf("the decision order has %d items", len(items))
	}
	swap := func(s string) string {
		a, b := items[0], items[1]
		first := fmt.Sprintf("%d. %s: ", a.num, a.stage)
		second := fmt.Sprintf("%d. %s: ", b.num, b.stage)
		s = strings.Replace(s, first, "\x00", 1)
		s = strings.Replace(s, second, second[:3]+a.stage+": ", 1)
		return strings.Replace(s, "\x00", first[:3]+b.stage+": ", 1)
	}
	for _, c := range []struct {
		note string
		edit func(string) string
		want string
	}{
		{"two stages swapped", swap, "the catalogue's order is"},
		{"an unknown rule", func(s string) string {
			return strings.Replace(s, "1. mode: ", "1. mode: `caps-gone`, ", 1)
		}, "`caps-gone`, which is not a rule"},
		{"a rule at the wrong step", func(s string) string {
			return strings.Replace(s, "4. allow list: ", "4. allow list: `human-denied`, ", 1)
		}, "names `human-denied`, which the catalogue gives at person"},
		{"a rule left out", func(s string) string {
			return strings.Replace(s, "5. budget: `budget-exhausted`", "5. budget: budget", 1)
		}, "does not name `budget-exhausted`"},
		{"an unknown stage", func(s string) string {
			return strings.Replace(s, "1. mode: ", "1. moods: ", 1)
		}, `"moods" is not a stage`},
	} {
		edited := c.edit(readme)
		if edited == readme {
			t.Fatalf("%s: the edit changed nothing; the README section changed shape", c.note)
		}
		got := strings.Join(readmeProblems(t, edited), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q do not say %q", c.note, got, c.want)
		}
	}
}

// TestProtocolDecidedBy checks the protocol page's list of decidedBy values
// against the constants (ByTape is on tape records only, never on a
// verdict).
func TestProtocolDecidedBy(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	i := strings.Index(text, "`decidedBy` is ")
	if i < 0 {
		t.Fatal("docs/protocol.md does not say what decidedBy is")
	}
	sentence := text[i+len("`decidedBy` is "):]
	sentence = sentence[:strings.Index(sentence, ".")]
	var got []string
	for _, m := range backquote.FindAllStringSubmatch(sentence, -1) {
		got = append(got, m[1])
	}
	var want []string
	for _, v := range declared(t, "DecidedBy") {
		if v != string(rule.ByTape) {
			want = append(want, v)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("docs/protocol.md lists decidedBy %v; the constants are %v", got, want)
	}
}
