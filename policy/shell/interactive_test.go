package shell

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"admit/policy/rule"
)

// ordinaryLines are what agents write every day: every profile admits
// them, with the argv analyze gives.
var ordinaryLines = []string{
	`git status`,
	`ls -la src`,
	`grep -rn "foo" .`,
	`cat a.txt | head -5`,
	`go test ./...`,
	`git diff HEAD~1 -- src/a.go`,
	`git log --oneline -5 | head -3`,
	`git log --format='%h %s' -3`,
	`mkdir -p build/out`,
	`mkdir -p src/{a,b}`,
	`cat a.txt 2>/dev/null`,
	`cd src && ls`,
	`git commit -m 'fix: a > b; c & d'`,
	`git add -A && git commit -m "update the parser"`,
	`sed -n '1,20p' a.go`,
	`sed -i 's/\t/  /g' a.go`,
	`grep -E '^func \w+' a.go`,
	`find . -name '*.go' -not -path './vendor/*'`,
	`wc -l a b`,
	`echo done`,
	`printf '%s\n' one two`,
	`rg -n 'TODO|FIXME' src`,
	`go build ./... && go vet ./...`,
	`npm test -- --watch=false`,
	`python3 -m pytest -q tests/test_a.py`,
	`head -n 20 README.md`,
	`diff -u a.txt b.txt`,
	`cat ~/notes.txt`,
	`ls -la ~/`,
	`tail -n 50 build.log 2>&1`,
	`git show HEAD^ --stat`,
	`echo "it's fine" > notes.txt`,
	`cat 'ünï cødé.txt' 日本`,
	"ls\n",
	`! grep -q x a.txt`,
	`test -f go.mod && echo yes || echo no`,
}

// sameReading reports whether two scripts hold the same commands, less
// the words zsh alone may expand (Command.ZshPatterns), which the command
// policy checks against the folder.
func sameReading(a, b *Script) bool {
	strip := func(s *Script) *Script {
		if s == nil {
			return nil
		}
		c := *s
		c.Commands = slices.Clone(s.Commands)
		for i := range c.Commands {
			c.Commands[i].ZshPatterns = nil
			c.Commands[i].SortedByFish = false // a mark for the expansion, not a reading
		}
		return &c
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

func TestInteractiveOrdinary(t *testing.T) {
	p := NewParser(home)
	for _, line := range ordinaryLines {
		want, prob := p.Parse(line, Analyze)
		if prob != nil {
			t.Fatalf("analyze refuses %q: %s", line, prob.Reason)
		}
		for _, prof := range []Profile{BashInteractive, Zsh, Fish} {
			got, prob := p.Parse(line, prof)
			if prob != nil {
				t.Errorf("Parse(%q, %s) refuses an ordinary line: %s", line, prof, prob.Reason)
				continue
			}
			if !sameReading(got, want) {
				t.Errorf("Parse(%q, %s) = %+v, analyze gives %+v", line, prof, got.Commands, want.Commands)
			}
		}
	}
}

// profileCase is a line and, for each interactive profile, whether it is
// admitted ("") or refused with a reason that contains the text given.
type profileCase struct {
	line           string
	bash, zsh, fsh string // "ok" or text the reason must contain
}

const ok = "ok"

var profileCases = []profileCase{
	// History, and the quick substitution.
	{`echo -O"touch M"; git grep !#:1 hi`, `history expansion "!#:1"`, `history expansion "!#:1"`, ok},
	{`git commit -m "fix!"`, ok, `history expansion "!""`, ok},
	{`echo 'wow!'`, ok, ok, ok},
	{`echo wow!`, ok, ok, ok},
	{`echo a! b`, ok, ok, ok},
	{`[ a != b ]`, ok, ok, ok},
	{`echo !!`, "history expansion", "history expansion", ok},
	{`echo "a!b"`, "history expansion", "history expansion", ok},
	{`echo !"x"`, "history expansion", "history expansion", ok},
	{`ls [!a]*`, "history expansion", "history expansion", "file name pattern"},
	{`echo \!x`, ok, "escaped !", ok},
	{`echo \\!`, ok, "escaped !", ok},
	{`echo "a\!b"`, ok, "escaped ! in double quotes", ok},
	{`echo -e "a\!b"`, ok, "escaped ! in double quotes", "echo with a backslash"},
	{`ls # !!`, "history expansion", `comment "#"`, ok},
	{`^echo^touch`, "quick substitution", "quick substitution", ok},
	{`  ^a^b`, "quick substitution", "quick substitution", ok},
	{`echo a^b HEAD^`, ok, ok, ok},

	// What the line editor acts on, and what joins the next line.
	{"echo 'ok\x15touch M #'", `control character "\x15"`, `control character "\x15"`, `control character "\x15"`},
	{"touch \x1b.", `control character "\x1b"`, `control character "\x1b"`, `control character "\x1b"`},
	{"echo 'a\tb'", "tab", "tab", "tab"},
	{"ls\nrm -rf x", "line break inside the line", "line break inside the line", "line break inside the line"},
	{"ls\n\n", "line break inside the line", "line break inside the line", "line break inside the line"},
	{"echo x\x7f", `control character "\x7f"`, `control character "\x7f"`, `control character "\x7f"`},
	{"echo \xff", "not UTF-8", "not UTF-8", "not UTF-8"},
	{"echo \u009b", "C1 control", "C1 control", "C1 control"},
	{`touch \`, "backslash at the end", "backslash at the end", "backslash at the end"},
	{"touch \\\n", "backslash at the end", "backslash at the end", "backslash at the end"},
	{`ls # in C:\`, ok, "has no comments", ok},
	{`ls # in C:\\`, ok, "has no comments", ok},
	{"ls # in C:\\\n", ok, "has no comments", ok},
	{`echo \\`, ok, "echo with a backslash", ok},
	{"echo ok\n", ok, ok, ok},

	// zsh: comments, clobbering, =word, patterns, its own globs.
	{`cat a.txt # ; touch M`, ok, "has no comments", ok},
	{`ls a#b`, ok, ok, ok},
	{`echo x >! ~/.bashrc`, ok, "clobbering redirection", ok},
	{`echo x >!~/.bashrc`, "history expansion", "clobbering redirection", ok},
	{`echo x >| out`, ok, "clobbering redirection", "reads >| as > followed by a pipe"},
	{`echo x >&! ~/.bashrc`, ok, `clobbering redirection ">&!"`, "duplicates only a descriptor number"},
	{`echo x &>>! out 2>>! err`, ok, "clobbering redirection", ok},
	{`echo x > ! >> !`, ok, "descriptor redirected twice", ok},
	{`echo x > ! 2>&1`, ok, ok, ok},
	{`cat <!`, ok, ok, ok},
	{`cp payload.sh =victimtool`, ok, `= at the start of a word "=victimtool"`, ok},
	{`[ a == b ]`, ok, "= at the start of a word", ok},
	{`echo = a=b x=`, ok, ok, ok},
	{`echo ""=ls`, ok, "~ or = after empty quotes", ok},
	{`cat <<<=ls`, ok, `= at the start of a word "=ls"`, "here-strings"},
	{`cat <<<''=ls`, ok, "~ or = after empty quotes", "here-strings"},
	{`cat <<<~''`, ok, "~ before a quoted character", "here-strings"},
	{`cat <<<a=ls`, ok, ok, "here-strings"},
	{`cat <<<~/x`, ok, ok, "here-strings"},
	{`cat <<<*.go && cat <<<a[`, ok, ok, "here-strings"},
	{`echo {=ls,x}`, ok, "= at the start of a word", ok},
	{`cat ***/x`, ok, "recursive pattern", "recursive pattern"},
	{`ls src/**/*.go`, ok, "recursive pattern", "recursive pattern"},
	{`ls ^*.go`, ok, "zsh pattern operator", ok},
	{`ls *.go~x.go`, ok, "zsh pattern operator", ok},
	{`ls [^a]*`, ok, ok, "file name pattern"},
	{`echo a[ [[ x[y`, ok, "[ without ]", "[ without ]"},
	{`[ -f a ] && echo a] ]]`, ok, ok, ok},
	{`ls *(.) *(e:'touch M':)`, "extended glob", "glob qualifier", "extended glob"},
	{`ls (#i)*.go`, "does not parse", "does not parse", "does not parse"},
	{`cat <1-3> out`, ok, "numeric range pattern", "a < or > right after it"},
	{`cat f<-> x`, ok, "numeric range pattern", "a < or > right after it"},
	{`ls *.go`, ok, ok, ok}, // fish's order is held to bash's where the names are known (TestFishOrderIsFish)
	{`ls ?.go`, ok, ok, "file name pattern"},
	{`grep -r --include=*.go x .`, ok, ok, ok},
	{`rec x | echo *.go`, ok, "pattern in the last command of a pipeline", ok},
	{`rec x | grep a *.go`, ok, ok, ok},
	{`echo x > a > b`, ok, "descriptor redirected twice", ok},
	{`cat < a < b`, ok, "descriptor redirected twice", ok},
	{`echo x > out | cat`, ok, "output redirection before a pipe", ok},
	{`echo x 2>/dev/null | cat`, ok, ok, ok},
	{`ls |& cat 2>/dev/null`, ok, ok, "|&"},
	{`ls 2>e |& cat`, ok, "output redirection before a pipe", "|&"},
	{`echo x | cat < a.txt`, ok, "input redirection after a pipe", ok},
	{`echo x | cat <<< y`, ok, "input redirection after a pipe", "here-strings"},
	{`rec {a} > o`, ok, "{name} before a redirection", ok},
	{`rec {a} x > o`, ok, ok, ok},
	{`rec x 2>&o`, ok, "writes the file named after N>&", "duplicates only a descriptor number"},
	{`rec x >&o`, ok, ok, "duplicates only a descriptor number"},
	{`rec x >&-`, ok, "closed descriptor", "closed descriptor"},
	{`make PREFIX=~/x`, ok, "~ after = or :", "~ after = or :"},
	{`echo ~'' ~"/x"`, ok, "~ before a quoted character", "~ before a quoted character"},
	{`echo ""~/x`, ok, "~ or = after empty quotes", ok},
	{`echo {a,}""~/x`, ok, "~ or = after empty quotes", ok},
	{`echo ~/x ~`, ok, ok, ok},
	{`mkdir -p ~/x/{a,b}`, ok, ok, ok},
	{`echo {~,x} {,b}~`, ok, ok, "~ from a brace expansion"},
	{`echo {a,} x{,}`, ok, "brace expansion to an empty word", "brace expansion to an empty word"},
	{`echo {1..3}`, ok, ok, "brace sequence"},
	{`echo {a,b}{c,d}`, ok, ok, "several brace expansions in one word"},
	{`echo a}`, ok, "unpaired }", "unpaired }"},
	{`echo a{ {a}`, ok, ok, "unpaired {"},
	{`{ls,-la}`, ok, "brace at the start of a command", "brace at the start of a command"},
	{`echo a$= $ "$"`, ok, `$ before punctuation "$="`, `$ "$="`},
	{`%1`, "job", "job", "% at the start of a word"},
	{`kill %1`, "job", "job", "% at the start of a word"},
	{`kill 123`, ok, ok, ok},
	{`r echo=touch`, ok, "zsh builtin", ok},
	{`noglob rm *`, ok, "zsh builtin", ok},
	{`print -r x`, ok, "zsh builtin", ok},
	{`echo a\\nb`, ok, "echo with a backslash", ok},
	{`echo - x`, ok, "echo option", ok},
	{`echo -- x`, ok, ok, "echo option"},
	{`echo -s x`, ok, ok, "echo option"},
	{`echo -n -e x`, ok, ok, ok},
	{`cd a b`, ok, "cd with two folders", ok},
	{`cd -P a`, ok, ok, ok},
	{`cd +1`, ok, "cd to a folder of the stack", ok},
	{`cd -P -2`, ok, "cd to a folder of the stack", ok},
	{`cd ./+1`, ok, ok, ok},
	{`cd -`, ok, ok, "cd -"},
	{`echo x | cd d`, ok, "cd in a pipeline", "cd in a pipeline"},
	{`pwd x`, ok, "pwd with an operand", "pwd with an operand"},

	// Builtins that outlive the call in a terminal.
	{`hash -p ./payload git`, "keeps what it changes", "keeps what it changes", "keeps what it changes"},
	{`fc -s echo=touch`, "keeps what it changes", "keeps what it changes", "keeps what it changes"},
	{`alias ls='rm -rf'`, "keeps what it changes", "keeps what it changes", "keeps what it changes"},
	{`exec ls`, "keeps what it changes", "keeps what it changes", "keeps what it changes"},
	{`read x`, "keeps what it changes", "keeps what it changes", "keeps what it changes"},
	{`printf -v PATH %s /tmp`, "printf -v", "printf -v", "printf -v"},
	{`builtin source x`, "keeps what it changes", "keeps what it changes", "keeps what it changes"},
	{`command umask 0`, "keeps what it changes", "keeps what it changes", "keeps what it changes"},

	// fish: escapes, quoting, $, groups, %, redirections, keywords.
	{`cat \x2fetc\x2fhostname`, ok, ok, `backslash escape "\x2fetc`},
	{`echo a\nb \t`, ok, ok, "backslash escape"},
	{`echo "a\nb"`, ok, "echo with a backslash", ok},
	{`touch a\ b \* \# \~ \$ \;`, ok, ok, ok},
	{`echo 'x\'' ; touch M #'`, ok, "echo with a backslash", "backslash in single quotes"},
	{`grep 'a\\b' f`, ok, ok, "backslash in single quotes"},
	{`grep 'a\.b' f`, ok, ok, ok},
	{"echo \"a\\`b\"", ok, ok, "escaped backquote"},
	{`echo $`, ok, ok, `$ "$"`},
	{`echo "a$"`, ok, ok, `$ "$""`},
	{`echo $'x'`, ok, ok, `$ "$'x'"`},
	{`echo '$HOME'`, ok, ok, ok},
	{`(cd src && ls)`, ok, ok, "( ) group"},
	{`{ ls; pwd; }`, ok, ok, "{ } group"},
	{`touch %self`, ok, ok, "% at the start of a word"},
	{`date +%s`, ok, ok, ok},
	{`not touch M`, ok, ok, "fish builtin"},
	{`and ls`, ok, ok, "fish builtin"},
	{`string match x y`, ok, ok, "fish builtin"},
	{`fish_config`, ok, ok, "fish builtin"},
	{`ls -la && ll`, ok, ok, "fish builtin"},
	{`cat <> f`, ok, ok, "has no <>"},
	{"cat <<< hi", ok, ok, "here-strings"},
	{`> o ls`, ok, ok, "redirection before the command"},
	{`ls > 0<a.txt`, ok, ok, "a < or > right after it"},
	{`ls a\ #b`, ok, ok, "# after an escaped blank"},
	{`ls 2>&1 | cat`, ok, ok, ok},
	{`ls &> o`, ok, ok, ok},
}

func TestInteractiveProfiles(t *testing.T) {
	p := NewParser(home)
	for _, c := range profileCases {
		for _, pc := range []struct {
			prof Profile
			want string
		}{{BashInteractive, c.bash}, {Zsh, c.zsh}, {Fish, c.fsh}} {
			script, prob := p.Parse(c.line, pc.prof)
			checkResult(t, c.line, pc.prof, script, prob)
			if pc.want == ok {
				if prob != nil {
					t.Errorf("Parse(%q, %s) refused: %s", c.line, pc.prof, prob.Reason)
				}
				continue
			}
			if prob == nil {
				t.Errorf("Parse(%q, %s) = %q, want a refusal naming %q", c.line, pc.prof, argvs(script), pc.want)
				continue
			}
			if !strings.Contains(prob.Reason, pc.want) {
				t.Errorf("Parse(%q, %s) reason = %q, want it to contain %q", c.line, pc.prof, prob.Reason, pc.want)
			}
			if prob.Rule != rule.ShellSyntax && pc.want != "extended glob" {
				t.Errorf("Parse(%q, %s) rule = %s, want shell-syntax", c.line, pc.prof, prob.Rule)
			}
			if strings.Contains(pc.want, "parse") || pc.want == "extended glob" {
				continue // analyze's own refusal; no shell named
			}
			if !strings.Contains(prob.Reason, pc.prof.shellName()) {
				t.Errorf("Parse(%q, %s) reason = %q does not name %s", c.line, pc.prof, prob.Reason, pc.prof.shellName())
			}
			if prob.Hint == "" || prob.Hint == hintPlain {
				t.Errorf("Parse(%q, %s): hint %q says nothing about what to write instead", c.line, pc.prof, prob.Hint)
			}
		}
	}
}

// TestInteractiveNotLenient checks that every interactive profile refuses
// whatever analyze refuses, with the same rule.
func TestInteractiveNotLenient(t *testing.T) {
	p := NewParser(home)
	for _, c := range cases {
		want, wprob := p.Parse(c.line, Analyze)
		for _, prof := range []Profile{BashInteractive, Zsh, Fish, Portable} {
			got, prob := p.Parse(c.line, prof)
			switch {
			case wprob != nil && prob == nil:
				t.Errorf("%s admits %q, which analyze refuses: %s", prof, c.line, wprob.Reason)
			case wprob != nil && prob.Rule != wprob.Rule && prob.Rule != rule.ShellSyntax:
				t.Errorf("%s refuses %q as %s, analyze as %s", prof, c.line, prob.Rule, wprob.Rule)
			case wprob == nil && prob == nil && !sameReading(got, want):
				t.Errorf("%s reads %q as %+v, analyze as %+v", prof, c.line, got.Commands, want.Commands)
			}
		}
	}
}

// TestPortableIsTheIntersection checks that portable admits a line
// exactly when interactive bash, zsh and fish all do, reads it as they
// do, and names in its refusal what each shell that refuses it named.
func TestPortableIsTheIntersection(t *testing.T) {
	p := NewParser(home)
	lines := []string{
		"echo -O\"touch M\"; git grep !#:1 hi", "git log\x15", "cat ***/secret.txt", "ls **/x", "ls *.go", "echo hi # c",
		"^a^b", "ls a!b", "echo $HOME", "printf '%s\\n' a", "cd .git", "git status && git diff", "ls -la src",
		"grep -rn 'a b' src/", "sort <<< x", "echo \\x41", "source x", "r", "print hi", "string join a b", "ls &> o",
	}
	for _, c := range profileCases {
		lines = append(lines, c.line)
	}
	for _, c := range cases {
		lines = append(lines, c.line)
	}
	for _, line := range lines {
		got, prob := p.Parse(line, Portable)
		var refusedBy []Profile
		var items []string
		var first *Script
		for _, prof := range portableShells {
			s, pr := p.Parse(line, prof)
			if pr != nil {
				refusedBy = append(refusedBy, prof)
				items = append(items, pr.Items...)
			} else if first == nil {
				first = s
			}
		}
		switch {
		case len(refusedBy) == 0 && prob != nil:
			t.Errorf("portable refuses %q, which bash -i, zsh and fish all admit: %s", line, prob.Reason)
		case len(refusedBy) > 0 && prob == nil:
			t.Errorf("portable admits %q, which %v refuse", line, refusedBy)
		case prob == nil && !sameReading(got, first):
			t.Errorf("portable reads %q as %+v, the shells as %+v", line, got.Commands, first.Commands)
		case prob != nil:
			if prob.Hint == "" {
				t.Errorf("portable refuses %q with no hint", line)
			}
			for _, it := range items[:min(len(items), maxItems)] {
				if !slices.Contains(prob.Items, it) {
					t.Errorf("portable's refusal of %q leaves out %q: %s", line, it, prob.Reason)
				}
			}
			for _, it := range prob.Items {
				if !strings.Contains(prob.Reason, it) {
					t.Errorf("portable's reason for %q does not name %q: %s", line, it, prob.Reason)
				}
			}
		}
	}
}

func TestTerminalProfile(t *testing.T) {
	for path, want := range map[string]Profile{
		"/bin/bash": BashInteractive, "/usr/bin/zsh": Zsh, "/usr/local/bin/fish": Fish, "zsh": Zsh, "/bin/zsh/": Zsh,
		"": Portable, "/bin/sh": Portable, "/bin/dash": Portable, "/usr/bin/nu": Portable, "/bin/bash5": Portable,
	} {
		if got := TerminalProfile(path); got != want {
			t.Errorf("TerminalProfile(%q) = %s, want %s", path, got, want)
		}
	}
}

func TestParseProfile(t *testing.T) {
	for _, prof := range Profiles() {
		got, err := ParseProfile(string(prof))
		if err != nil || got != prof {
			t.Errorf("ParseProfile(%q) = %q, %v", prof, got, err)
		}
	}
	if got, err := ParseProfile(""); err != nil || got != Analyze {
		t.Errorf(`ParseProfile("") = %q, %v, want analyze`, got, err)
	}
	for _, bad := range []string{"bash", "Zsh", "fish ", "interactive", "sh"} {
		_, err := ParseProfile(bad)
		if err == nil {
			t.Errorf("ParseProfile(%q) accepted", bad)
			continue
		}
		for _, want := range []string{`"` + bad + `"`, "analyze", "refuse", "bash-interactive", "zsh", "fish"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("ParseProfile(%q) error %q does not name %q", bad, err, want)
			}
		}
	}
}

// TestHintAlways checks that every Problem says what to write instead.
func TestHintAlways(t *testing.T) {
	p := NewParser(home)
	for _, c := range cases {
		for _, prof := range Profiles() {
			if _, prob := p.Parse(c.line, prof); prob != nil && prob.Hint == "" {
				t.Errorf("Parse(%q, %s): no hint", c.line, prof)
			}
		}
	}
}

// TestZshOperatorWords: a word bash passes as written that zsh's
// extendedglob reads as a pattern by an unquoted ^ or # is kept as its
// superset pattern (Command.ZshPatterns) for the command policy, or
// refused where no names are judged (a redirection, an assignment, a
// loop's words, a substitution, the program's name).
func TestZshOperatorWords(t *testing.T) {
	p := NewParser(home)
	tests := []struct {
		line string
		prof Profile
		want []Pattern
		bad  string // refused with this in the reason
	}{
		{line: `cat .en^`, prof: Zsh, want: []Pattern{{1, ".en*"}}},
		{line: `cat .en#v`, prof: Zsh, want: []Pattern{{1, ".e*"}}},
		{line: `cat .e##nv`, prof: Zsh, want: []Pattern{{1, ".*"}}},
		{line: `cat ^x`, prof: Zsh, want: []Pattern{{1, "*"}}},
		{line: `cat src/^x a`, prof: Zsh, want: []Pattern{{1, "src/*"}}},
		{line: `cat s#rc/x`, prof: Zsh, want: []Pattern{{1, "*/x"}}},
		{line: `cat "a b"^c`, prof: Zsh, want: []Pattern{{1, "a b*"}}},
		{line: `cat a\.#x`, prof: Zsh, want: []Pattern{{1, "a*"}}},
		{line: `cat .en^`, prof: Portable, want: []Pattern{{1, ".en*"}}},
		{line: `cat .en^`, prof: BashInteractive},
		{line: `cat .en^`, prof: Fish},
		{line: `grep -E '^func' a.go`, prof: Zsh},
		{line: `echo "# title" a\^b`, prof: Zsh},
		{line: `cat < .en^`, prof: Zsh, bad: "zsh pattern operator"},
		{line: `X=.en^ env`, prof: Zsh, bad: "zsh pattern operator"},
		{line: `for f in .en^; do cat $f; done`, prof: Zsh, bad: "zsh pattern operator"},
		{line: `.en^ x`, prof: Zsh, bad: "pattern as the program name"},
	}
	for _, tt := range tests {
		s, prob := p.Parse(tt.line, tt.prof)
		if tt.bad != "" {
			if prob == nil || !strings.Contains(prob.Reason, tt.bad) {
				t.Errorf("%s: %q = %v; want refused naming %q", tt.prof, tt.line, prob, tt.bad)
			}
			continue
		}
		if prob != nil {
			t.Errorf("%s: %q refused: %s", tt.prof, tt.line, prob.Reason)
			continue
		}
		if got := s.Commands[0].ZshPatterns; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q: ZshPatterns %v, want %v", tt.prof, tt.line, got, tt.want)
		}
	}
}
