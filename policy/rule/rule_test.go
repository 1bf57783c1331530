package rule_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"admit/policy/rule"
)

// ruleWord is how every rule is spelled: lower-case words joined by "-".
var ruleWord = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

// declared returns the constants of the package whose type is typ, by
// name, read from the package's own source so that a constant added
// without a catalogue entry cannot hide.
func declared(t *testing.T, typ string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok || id.Name != typ {
					continue
				}
				for i, n := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: %s is not a string literal", fset.Position(n.Pos()), n.Name)
					}
					v, _ := strconv.Unquote(lit.Value)
					out[n.Name] = v
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no constants of type %s found", typ)
	}
	return out
}

// TestLeaf checks that the package imports only the standard library, so
// that every package of admit can import it.
func TestLeaf(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") || first == "admit" {
				t.Errorf("%s imports %s: the rule package is a leaf", name, p)
			}
		}
	}
}

func TestCatalogue(t *testing.T) {
	cat := rule.Catalogue()
	consts := declared(t, "Rule")
	inCat := map[rule.Rule]bool{}
	for _, in := range cat {
		if inCat[in.Rule] {
			t.Errorf("%s is in the catalogue twice", in.Rule)
		}
		inCat[in.Rule] = true
	}
	for name, v := range consts {
		if !inCat[rule.Rule(v)] {
			t.Errorf("rule.%s (%q) has no catalogue entry", name, v)
		}
	}
	if len(cat) != len(consts) {
		t.Errorf("the catalogue has %d rules, the package declares %d", len(cat), len(consts))
	}
	var prev rule.Stage
	for _, in := range cat {
		if !ruleWord.MatchString(string(in.Rule)) {
			t.Errorf("%q is not spelled as a rule (lower-case words joined by -)", in.Rule)
		}
		if in.Stage < prev {
			t.Errorf("%s (stage %s) comes after a rule of stage %s: the catalogue is not in decision order", in.Rule, in.Stage, prev)
		}
		prev = in.Stage
		if !slices.Contains(rule.Stages(), in.Stage) {
			t.Errorf("%s: unknown stage %d", in.Rule, in.Stage)
		}
		last := in.Stage
		for _, s := range in.Also {
			if s <= last {
				t.Errorf("%s: also-stage %s is not after %s", in.Rule, s, last)
			}
			last = s
		}
		for field, text := range map[string]string{"meaning": in.Meaning, "remedy": in.Remedy} {
			if text == "" || strings.ContainsAny(text, "\n\r") || !strings.HasSuffix(text, ".") || text != strings.TrimSpace(text) {
				t.Errorf("%s: the %s must be one line, a full sentence: %q", in.Rule, field, text)
			}
		}
		switch in.Outcome {
		case "", rule.OutcomeAllow, rule.OutcomeAsk, rule.OutcomeDeny:
		default:
			t.Errorf("%s: unknown outcome %q", in.Rule, in.Outcome)
		}
		// A person decides everything the person stage gives; the records
		// of the tape and of results decide nothing.
		if in.Stage == rule.StagePerson && in.Outcome != rule.OutcomeAsk {
			t.Errorf("%s: a rule of the person stage has outcome %q, want ask", in.Rule, in.Outcome)
		}
		if in.Stage == rule.StageResult && in.Outcome != "" {
			t.Errorf("%s: a result record has outcome %q, want none", in.Rule, in.Outcome)
		}
	}
}

func TestCatalogueIsACopy(t *testing.T) {
	c := rule.Catalogue()
	for i := range c {
		if len(c[i].Also) > 0 {
			c[i].Also[0] = 0
		}
		c[i].Remedy = "changed"
	}
	for _, in := range rule.Catalogue() {
		if in.Remedy == "changed" || slices.Contains(in.Also, 0) {
			t.Fatalf("changing a returned Info changed the catalogue: %+v", in)
		}
	}
	in, _ := rule.Lookup(rule.OutsideWorkspace)
	in.Also[0] = 0
	if again, _ := rule.Lookup(rule.OutsideWorkspace); again.Also[0] == 0 {
		t.Fatal("changing Lookup's Also changed the catalogue")
	}
}

func TestLookup(t *testing.T) {
	in, ok := rule.Lookup(rule.EditMismatch)
	if !ok || in.Rule != rule.EditMismatch || in.Stage != rule.StageMutators || in.Outcome != rule.OutcomeDeny {
		t.Fatalf("Lookup(edit-mismatch) = %+v, %v", in, ok)
	}
	if in, ok := rule.Lookup("no-such-rule"); ok || in.Rule != "" {
		t.Fatalf("Lookup(no-such-rule) = %+v, %v", in, ok)
	}
	// The four rules documented nowhere before the catalogue.
	for _, r := range []rule.Rule{"tape-unwritable", "edit-mismatch", "write-result", "run-result"} {
		if _, ok := rule.Lookup(r); !ok {
			t.Errorf("%s is not in the catalogue", r)
		}
	}
}

func TestRemedy(t *testing.T) {
	in, _ := rule.Lookup(rule.UnobservedTarget)
	for _, c := range []struct {
		note string
		r    rule.Rule
		hint string
		want string
	}{
		{"the decision's hint wins", rule.UnobservedTarget, "List the folder src first.", "List the folder src first."},
		{"a hint is trimmed", rule.UnobservedTarget, "  Read a.txt first.\n", "Read a.txt first."},
		{"a blank hint is no hint", rule.UnobservedTarget, " \t\n", in.Remedy},
		{"no hint: the catalogue's", rule.UnobservedTarget, "", in.Remedy},
		{"an unknown rule with a hint", "no-such-rule", "Do this.", "Do this."},
		{"an unknown rule without one", "no-such-rule", "", ""},
	} {
		if got := rule.Remedy(c.r, c.hint); got != c.want {
			t.Errorf("%s: Remedy(%s, %q) = %q, want %q", c.note, c.r, c.hint, got, c.want)
		}
	}
}

func TestOutcomeOf(t *testing.T) {
	for _, c := range []struct {
		r    rule.Rule
		want rule.Outcome
		ok   bool
	}{
		{rule.Allowed, rule.OutcomeAllow, true},
		{rule.CapsOff, rule.OutcomeAllow, true},
		{rule.NotInAllowList, rule.OutcomeDeny, true},
		{rule.TapeUnwritable, rule.OutcomeDeny, true},
		{rule.GitConfigExec, rule.OutcomeAsk, true},
		{rule.NeedsHuman, rule.OutcomeAsk, true},
		{rule.HumanDenied, rule.OutcomeAsk, true},
		{rule.NoApprover, rule.OutcomeAsk, true},
		{rule.ProtectedPath, "", false}, // refused under .admit/, asked under .git/
		{rule.RunResult, "", false},
		{rule.TapeRepaired, "", false},
		{"no-such-rule", "", false},
	} {
		if got, ok := rule.OutcomeOf(c.r); got != c.want || ok != c.ok {
			t.Errorf("OutcomeOf(%s) = %q, %v, want %q, %v", c.r, got, ok, c.want, c.ok)
		}
	}
}

func TestStages(t *testing.T) {
	st := rule.Stages()
	if len(st) == 0 || st[0] != rule.StageMode || st[len(st)-1] != rule.StageAdapter {
		t.Fatalf("Stages() = %v", st)
	}
	seen := map[string]bool{}
	for i, s := range st {
		if i > 0 && s <= st[i-1] {
			t.Errorf("Stages() is not in order at %d: %v", i, st)
		}
		name := s.String()
		if seen[name] || strings.HasPrefix(name, "stage(") {
			t.Errorf("stage %d has a bad or repeated name %q", s, name)
		}
		seen[name] = true
	}
	used := map[rule.Stage]bool{}
	for _, in := range rule.Catalogue() {
		used[in.Stage] = true
	}
	for _, s := range st {
		if !used[s] {
			t.Errorf("no rule is first given at stage %s", s)
		}
	}
	if got := rule.Stage(0).String(); got != "stage(0)" {
		t.Errorf("Stage(0) = %q", got)
	}
	if got := rule.Stage(200).String(); got != "stage(200)" {
		t.Errorf("Stage(200) = %q", got)
	}
}

func TestInfoJSON(t *testing.T) {
	in, _ := rule.Lookup(rule.OutsideWorkspace)
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rule":"outside-workspace","stage":"request","also":["command policy","mutators"],"outcome":"deny","meaning":` + quoteJSON(in.Meaning) + `,"remedy":` + quoteJSON(in.Remedy) + `}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	in, _ = rule.Lookup(rule.RunResult)
	b, _ = json.Marshal(in)
	if strings.Contains(string(b), `"outcome"`) || strings.Contains(string(b), `"also"`) {
		t.Fatalf("empty fields are not left out: %s", b)
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestParseMode(t *testing.T) {
	for _, m := range rule.Modes() {
		got, err := rule.ParseMode(string(m))
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if got := rule.Modes(); !slices.Equal(got, []rule.Mode{rule.Off, rule.Warn, rule.Enforce}) {
		t.Errorf("Modes() = %v", got)
	}
	for _, s := range []string{"", "Enforce", " warn", "on", "warn\x00", "\u00a0off"} {
		got, err := rule.ParseMode(s)
		if err == nil || got != "" {
			t.Errorf("ParseMode(%q) = %q, %v; want an error", s, got, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, strconv.Quote(s)) || !strings.Contains(msg, "off, warn, enforce") {
			t.Errorf("ParseMode(%q) error %q does not name the value and the choices", s, msg)
		}
	}
}

func TestVerdictOf(t *testing.T) {
	if rule.VerdictOf(true) != rule.Allow || rule.VerdictOf(false) != rule.Deny {
		t.Fatal("VerdictOf")
	}
}

func TestDecidedByValues(t *testing.T) {
	by := declared(t, "DecidedBy")
	for name, v := range by {
		if !ruleWord.MatchString(v) {
			t.Errorf("%s = %q is not spelled like the others", name, v)
		}
	}
}
