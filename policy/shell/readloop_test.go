package shell

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"admit/policy/rule"
)

// namesLoops expands every pattern to the same names, or fails.
type namesLoops struct {
	names []string
	err   error
}

func (n namesLoops) ExpandLoop(value, pattern string) ([]string, error) {
	return n.names, n.err
}

func TestForLoopOverPattern(t *testing.T) {
	tests := []struct {
		line  string
		names []string
		err   error
		argv  [][]string
		rule  rule.Rule
		has   string
	}{
		{line: `for f in *.go; do wc -l "$f"; done`, names: []string{"a.go", "b.go"}, argv: [][]string{{"wc", "-l", "a.go"}, {"wc", "-l", "b.go"}}},
		{line: `for f in *.go; do wc -l $f; done`, names: []string{"a.go"}, argv: [][]string{{"wc", "-l", "a.go"}}},
		{line: `for f in *.go; do wc -l $f; done`, names: []string{"a b.go"}, rule: rule.DynamicWord, has: "unquoted loop variable"},
		{line: `for f in *; do cat "$f"; done`, names: []string{"$(touch M)"}, argv: [][]string{{"cat", "$(touch M)"}}},
		{line: `for f in x *.go; do echo "$f"; done`, names: []string{"a.go"}, argv: [][]string{{"echo", "x"}, {"echo", "a.go"}}},
		{line: `for f in *; do cat "$f"; done`, err: ErrOptionName, rule: rule.DynamicWord, has: "cannot be expanded"},
		{line: `cd src; for f in *; do cat "$f"; done`, names: []string{"a"}, rule: rule.DynamicWord, has: "after a cd"},
		{line: `for f in *; do [[ "$f" -eq 0 ]]; done`, names: []string{"a[$(touch M)]"}, rule: rule.DynamicWord, has: "not a decimal integer"},
	}
	for _, tt := range tests {
		p := NewParser(home)
		p.Loops = namesLoops{tt.names, tt.err}
		script, prob := p.Parse(tt.line, Analyze)
		if tt.rule != "" {
			if prob == nil || prob.Rule != tt.rule || !strings.Contains(prob.Reason, tt.has) {
				t.Errorf("%q: got %v, want %s with %q", tt.line, prob, tt.rule, tt.has)
			}
			continue
		}
		if prob != nil {
			t.Errorf("%q: %s", tt.line, prob.Reason)
			continue
		}
		if got := argvs(script); !slices.EqualFunc(got, tt.argv, slices.Equal) {
			t.Errorf("%q: %q, want %q", tt.line, got, tt.argv)
		}
		if len(script.Expanded) != 1 || script.Expanded[0] != (Span{0, len(script.Commands)}) {
			t.Errorf("%q: Expanded %v", tt.line, script.Expanded)
		}
	}
	// Without Loops, a pattern in a loop's words is refused.
	if _, prob := NewParser(home).Parse(`for f in *.go; do wc -l "$f"; done`, Analyze); prob == nil || prob.Rule != rule.DynamicWord {
		t.Errorf("no Loops: %v", prob)
	}
	// The error is named.
	p := NewParser(home)
	p.Loops = namesLoops{err: errors.New("boom")}
	if _, prob := p.Parse(`for f in *.go; do :; done`, Analyze); prob == nil || !strings.Contains(prob.Reason, "boom") {
		t.Errorf("error: %v", prob)
	}
}

func TestReadLoop(t *testing.T) {
	tests := []struct {
		line     string
		argv     [][]string
		producer int // of the last command
		raw, nul bool
		blanks   bool
		rule     rule.Rule
		has      string
	}{
		{line: `git ls-files | while read f; do wc -l "$f"; done`, argv: [][]string{{"git", "ls-files"}, {"wc", "-l", ReadValue}}, producer: 0},
		{line: `find . -name '*.go' | while read -r f; do head -1 "$f"; done`, argv: [][]string{{"find", ".", "-name", "*.go"}, {"head", "-1", ReadValue}}, producer: 0, raw: true},
		{line: `find . -print0 | while IFS= read -r -d '' f; do cat "$f"; done`, argv: [][]string{{"find", ".", "-print0"}, {"cat", ReadValue}}, producer: 0, raw: true, nul: true, blanks: true},
		{line: `while read f; do echo "== $f"; done < list.txt`, argv: [][]string{{"echo", "== " + ReadValue}}, producer: -1},
		{line: `git ls-files | while read f; do wc -l "$f"; done < list.txt`, argv: [][]string{{"git", "ls-files"}, {"wc", "-l", ReadValue}}, producer: -1},
		{line: `(echo /etc/shadow; git ls-files) | while read f; do cat "$f"; done`, argv: [][]string{{"echo", "/etc/shadow"}, {"git", "ls-files"}, {"cat", ReadValue}}, producer: -1},
		{line: `git ls-files | grep x | while read f; do cat "$f"; done`, argv: [][]string{{"git", "ls-files"}, {"grep", "x"}, {"cat", ReadValue}}, producer: 1},
		{line: `git ls-files | while read f; do wc -l $f; done`, rule: rule.DynamicWord, has: "unquoted read variable"},
		{line: `while read PATH; do ls; done < x`, rule: rule.ShellSyntax, has: "read into a variable"},
		{line: `while read IFS; do ls; done < x`, rule: rule.ShellSyntax, has: "read into a variable"},
		{line: `find . -type d | while read d; do cd "$d"; done`, rule: rule.ShellSyntax, has: "cd inside a while loop"},
	}
	for _, tt := range tests {
		script, prob := NewParser(home).Parse(tt.line, Analyze)
		if tt.rule != "" {
			if prob == nil || prob.Rule != tt.rule || !strings.Contains(prob.Reason, tt.has) {
				t.Errorf("%q: got %v, want %s with %q", tt.line, prob, tt.rule, tt.has)
			}
			continue
		}
		if prob != nil {
			t.Errorf("%q: %s", tt.line, prob.Reason)
			continue
		}
		if got := argvs(script); !slices.EqualFunc(got, tt.argv, slices.Equal) {
			t.Errorf("%q: %q, want %q", tt.line, got, tt.argv)
			continue
		}
		last := script.Commands[len(script.Commands)-1]
		if last.Read == nil {
			t.Errorf("%q: no Read", tt.line)
			continue
		}
		if want := (ReadLoop{Producer: tt.producer, Raw: tt.raw, Nul: tt.nul, Blanks: tt.blanks}); *last.Read != want {
			t.Errorf("%q: Read %+v, want %+v", tt.line, *last.Read, want)
		}
	}
	// A while loop whose condition is another read is judged as before.
	script, prob := NewParser(home).Parse(`while read -p x f; do :; done`, Analyze)
	if prob != nil || script.Commands[0].Argv[0] != "read" {
		t.Errorf("read -p: %v %v", script, prob)
	}
}
