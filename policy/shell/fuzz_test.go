package shell

import (
	"slices"
	"strings"
	"testing"

	"admit/policy/rule"
)

// FuzzParse checks properties that hold for any input in either profile:
// no panic; exactly one of Script and Problem; every command has a program
// name; every Problem has a known rule, items and a reason; and refuse is
// never more lenient than analyze.
func FuzzParse(f *testing.F) {
	for _, c := range cases {
		f.Add(c.line, false)
		f.Add(c.line, true)
	}
	for _, line := range benchLines {
		f.Add(line, false)
	}
	p := NewParser(home)
	f.Fuzz(func(t *testing.T, line string, refuse bool) {
		prof := Analyze
		if refuse {
			prof = Refuse
		}
		script, prob := p.Parse(line, prof)
		checkResult(t, line, prof, script, prob)
		if refuse && prob == nil {
			// Whatever refuse accepts, analyze accepts the same way.
			other, oprob := p.Parse(line, Analyze)
			if oprob != nil {
				t.Fatalf("refuse accepts %q, analyze refuses: %s", line, oprob.Reason)
			}
			if !slices.EqualFunc(script.Commands, other.Commands, func(a, b Command) bool {
				return slices.Equal(a.Argv, b.Argv) && len(a.Redirects) == len(b.Redirects)
			}) {
				t.Fatalf("%q: refuse %q, analyze %q", line, argvs(script), argvs(other))
			}
		}
	})
}

func checkResult(t *testing.T, line string, prof Profile, script *Script, prob *Problem) {
	t.Helper()
	if (script == nil) == (prob == nil) {
		t.Fatalf("Parse(%q, %s) = %v, %v: want exactly one", line, prof, script, prob)
	}
	if prob != nil {
		switch prob.Rule {
		case rule.ShellSyntax, rule.DynamicWord, rule.EmptyCommand:
		default:
			t.Fatalf("Parse(%q, %s): unknown rule %q", line, prof, prob.Rule)
		}
		if prob.Reason == "" || len(prob.Items) == 0 || prob.Hint == "" {
			t.Fatalf("Parse(%q, %s): problem without reason, items or hint: %+v", line, prof, prob)
		}
		return
	}
	if len(script.Commands) == 0 {
		t.Fatalf("Parse(%q, %s): script without commands", line, prof)
	}
	for i, c := range script.Commands {
		if len(c.Argv) == 0 || c.Argv[0] == "" {
			t.Fatalf("Parse(%q, %s): command %d has no program: %q", line, prof, i, c.Argv)
		}
		switch c.Joiner {
		case "", ";", "&&", "||", "|":
		default:
			t.Fatalf("Parse(%q, %s): joiner %q", line, prof, c.Joiner)
		}
		if (i == 0) != (c.Joiner == "") {
			t.Fatalf("Parse(%q, %s): command %d has joiner %q", line, prof, i, c.Joiner)
		}
		for _, r := range c.Redirects {
			if (r.Target != "") != (r.Read || r.Write) || r.Fd < 0 || r.Op == "" {
				t.Fatalf("Parse(%q, %s): redirect %+v", line, prof, r)
			}
		}
	}
}

// literalAlphabet is the characters FuzzLiteral builds words from: none of
// them means anything to a shell on its own.
const literalAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/=,:+@%-"

// FuzzLiteral checks that a line of plain words, joined by single spaces,
// is accepted by both profiles and yields exactly those words. Two kinds of
// first word are left out because bash itself gives them meaning: a
// NAME=value assignment and a reserved word or declaration builtin (if,
// for, time, export, ...). Both are refused by design. (mvdan reads a
// lone "else" or "in" as a program name; bash would refuse the line, so
// nothing runs either way.)
func FuzzLiteral(f *testing.F) {
	f.Add([]byte("git diff HEAD"))
	f.Add([]byte("ls -la src/a.go"))
	f.Add([]byte("a=b c"))
	f.Add([]byte("x --opt=1,2:3+4@5%6"))
	p := NewParser(home)
	f.Fuzz(func(t *testing.T, data []byte) {
		words := literalWords(data)
		if len(words) == 0 || assignmentLike(words[0]) || shellWord(words[0]) {
			return
		}
		line := strings.Join(words, " ")
		for _, prof := range []Profile{Analyze, Refuse} {
			script, prob := p.Parse(line, prof)
			if prob != nil {
				t.Fatalf("Parse(%q, %s) refused: %s: %s", line, prof, prob.Rule, prob.Reason)
			}
			if len(script.Commands) != 1 || !slices.Equal(script.Commands[0].Argv, words) {
				t.Fatalf("Parse(%q, %s) = %q, want %q", line, prof, argvs(script), words)
			}
		}
	})
}

// literalWords maps each byte to a character of literalAlphabet or to a
// word break.
func literalWords(data []byte) []string {
	var words []string
	var cur strings.Builder
	for _, b := range data {
		i := int(b) % (len(literalAlphabet) + 1)
		if i == len(literalAlphabet) {
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteByte(literalAlphabet[i])
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

// shellWord reports whether bash reads word, as a command's first word, as
// syntax rather than a program name.
func shellWord(word string) bool {
	switch word {
	case "if", "then", "elif", "fi", "case", "esac", "for", "select",
		"while", "until", "do", "done", "function", "time", "coproc",
		"declare", "local", "export", "readonly", "typeset", "nameref", "let":
		return true
	}
	return false
}
