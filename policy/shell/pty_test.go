package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"admit/policy/rule"
)

// terminalAttack is a line (or lines, typed one after another into the
// same terminal) that bash -c would run harmlessly but that the real
// interactive shell turns into a change of marker.
type terminalAttack struct {
	prof   Profile
	note   string
	setup  func(t *testing.T, sb *sandbox)
	lines  []string
	marker string // relative to the sandbox's root: changed only if the attack works
}

// payload is a program in the workspace that leaves the marker w/M.
const payload = "#!/bin/sh\ntouch M\n"

func gitRepo(t *testing.T, sb *sandbox) {
	t.Helper()
	writeFile(t, filepath.Join(sb.work, "notes.txt"), "hi there\n", 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "notes.txt", "a.txt"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = sb.work, sb.env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v: %s", args, err, out)
		}
	}
}

func payloadIn(rel string) func(*testing.T, *sandbox) {
	return func(t *testing.T, sb *sandbox) {
		writeFile(t, filepath.Join(sb.root, rel), payload, 0o755)
	}
}

var terminalAttacks = []terminalAttack{
	// Interactive bash.
	{prof: BashInteractive, note: "history expansion makes an option that runs a program", setup: gitRepo,
		lines: []string{`echo -O"touch M"; git grep !#:1 hi`}, marker: "w/M"},
	{prof: BashInteractive, note: "^U erases what came before it", lines: []string{"echo 'ok\x15touch M #'"}, marker: "w/M"},
	{prof: BashInteractive, note: "ESC . inserts the last word of the line before",
		lines: []string{"echo M", "touch \x1b."}, marker: "w/M"},
	{prof: BashInteractive, note: "a trailing backslash joins the next call", lines: []string{`touch \`, `M`}, marker: "w/M"},
	{prof: BashInteractive, note: "quick substitution reruns the line before, changed",
		lines: []string{"echo M", "^echo^touch"}, marker: "w/M"},
	{prof: BashInteractive, note: "fc reruns the line before, changed", lines: []string{"echo M", "fc -s echo=touch"}, marker: "w/M"},
	{prof: BashInteractive, note: "a hash entry outlives its call and points git at a workspace program",
		setup: payloadIn("w/payload"), lines: []string{"hash -p ./payload git", "git status"}, marker: "w/M"},

	// Interactive zsh.
	{prof: Zsh, note: "# is no comment", lines: []string{"cat a.txt # ; touch M"}, marker: "w/M"},
	{prof: Zsh, note: ">! writes the file after it", lines: []string{"echo x >! ~/.bashrc"}, marker: "home/.bashrc"},
	{prof: Zsh, note: ">&! writes the file after it", lines: []string{"echo x >&! ~/.bashrc"}, marker: "home/.bashrc"},
	{prof: Zsh, note: "=name is the program's path", setup: func(t *testing.T, sb *sandbox) {
		writeFile(t, filepath.Join(sb.bin, "victimtool"), "#!/bin/sh\necho victim\n", 0o755)
		writeFile(t, filepath.Join(sb.work, "payload.sh"), payload, 0o755)
	}, lines: []string{"cp payload.sh =victimtool"}, marker: "bin/victimtool"},
	{prof: Zsh, note: "***/ follows a symbolic link out of the workspace", setup: func(t *testing.T, sb *sandbox) {
		if err := os.MkdirAll(filepath.Join(sb.outside, "x", "z"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../outside", filepath.Join(sb.work, "link")); err != nil {
			t.Fatal(err)
		}
	}, lines: []string{"cp a.txt ***/z"}, marker: "outside/x/z/a.txt"},
	{prof: Zsh, note: "history expansion", setup: gitRepo, lines: []string{`echo -O"touch M"; git grep !#:1 hi`}, marker: "w/M"},
	{prof: Zsh, note: "r reruns the line before, changed", lines: []string{"echo M", "r echo=touch"}, marker: "w/M"},
	{prof: Zsh, note: "^U erases what came before it", lines: []string{"echo ok\\\x15touch M"}, marker: "w/M"},
	{prof: Zsh, note: "ESC . inserts the last word of the line before", lines: []string{"echo M", "touch \x1b."}, marker: "w/M"},
	{prof: Zsh, note: "a trailing backslash joins the next call", lines: []string{`touch \`, `M`}, marker: "w/M"},
	{prof: Zsh, note: "cd +1 goes to the folder stack, not to the folder +1", setup: func(t *testing.T, sb *sandbox) {
		for _, d := range []string{"+1", "d"} {
			if err := os.MkdirAll(filepath.Join(sb.work, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}, lines: []string{"setopt autopushd", "cd d", "cd +1 && touch M"}, marker: "w/M"},

	// fish.
	{prof: Fish, note: `\x escapes outside quotes read a file outside`, setup: func(t *testing.T, sb *sandbox) {
		writeFile(t, filepath.Join(sb.outside, "s"), "secret\n", 0o644)
	}, lines: []string{`cp \x2e\x2e\x2foutside\x2fs M`}, marker: "w/M"},
	{prof: Fish, note: `\' inside single quotes`, lines: []string{`echo 'x\'' ; touch M #'`}, marker: "w/M"},
	{prof: Fish, note: "not is a keyword", lines: []string{"not touch M"}, marker: "w/M"},
	{prof: Fish, note: ">| is a pipe", lines: []string{"echo x >| touch M"}, marker: "w/M"},
	{prof: Fish, note: "no brace sequences", lines: []string{"touch M{1..3}"}, marker: "w/M{1..3}"},
	{prof: Fish, note: "^U erases what came before it", lines: []string{"echo ok\\\x15touch M"}, marker: "w/M"},
	{prof: Fish, note: "a trailing backslash joins the next call", lines: []string{`touch \`, `M`}, marker: "w/M"},
}

// TestTerminalAttacks types each attack into the real interactive shell.
// Typed as it is, the attack changes its marker, and bash -c running the
// same lines does not: the gap is real. The profile refuses at least one
// of its lines, and typed through the gate (only the lines the profile
// admits reach the terminal) the marker stays as it was.
func TestTerminalAttacks(t *testing.T) {
	p := NewParser(home)
	for _, a := range terminalAttacks {
		t.Run(string(a.prof)+"/"+a.note, func(t *testing.T) {
			needShell(t, a.prof)
			refused := 0
			for _, line := range a.lines {
				if _, prob := p.Parse(line, Analyze); prob != nil {
					t.Logf("analyze refuses %q too: %s", line, prob.Reason)
				}
				_, prob := p.Parse(line, a.prof)
				if prob == nil {
					continue
				}
				refused++
				if prob.Rule != rule.ShellSyntax || prob.Hint == "" || !strings.Contains(prob.Reason, a.prof.shellName()) {
					t.Errorf("Parse(%q, %s) = %s %q, hint %q: want shell-syntax naming %s, with a hint",
						line, a.prof, prob.Rule, prob.Reason, prob.Hint, a.prof.shellName())
				}
			}
			if refused == 0 {
				t.Fatalf("%s admits every line of %q", a.prof, a.lines)
			}

			sb := newSandbox(t)
			setup := func() map[string]string {
				sb.reset(t)
				if a.setup != nil {
					a.setup(t, sb)
				}
				return sb.snapshot(t)
			}

			// bash -c, as analyze judges it: the marker stays.
			before := setup()
			for _, line := range a.lines {
				sb.runBashC(t, line)
			}
			if after := sb.snapshot(t); after[a.marker] != before[a.marker] {
				t.Fatalf("bash -c changes the marker %s itself: %q", a.marker, after[a.marker])
			}

			// The real shell, typed as it is: the marker changes.
			before = setup()
			tm := startTerminal(t, sb, a.prof)
			out, _ := tm.typeLines(3*time.Second, a.lines...)
			if after := sb.snapshot(t); after[a.marker] == before[a.marker] {
				t.Fatalf("typed into %s, %q leaves the marker %s as it was, so the test shows nothing; the terminal showed:\n%s",
					a.prof, a.lines, a.marker, out)
			}

			// Through the gate: only admitted lines are typed.
			before = setup()
			tm = startTerminal(t, sb, a.prof)
			for _, line := range a.lines {
				if _, prob := p.Parse(line, a.prof); prob != nil {
					continue
				}
				if out, ok := tm.typeLine(line); !ok {
					t.Errorf("the admitted line %q left %s waiting for more:\n%s", line, a.prof, out)
				}
			}
			if after := sb.snapshot(t); after[a.marker] != before[a.marker] {
				t.Errorf("through the gate the marker %s changed to %q", a.marker, after[a.marker])
			}
		})
	}
}

// ordinaryTerminalLines are lines agents write every day, each with
// output that does not depend on a terminal. Every profile that can run
// them must admit them, and the real shell must do with them exactly what
// bash -c does. not lists the profiles that refuse a line, by design.
var ordinaryTerminalLines = []struct {
	line string
	not  []Profile
}{
	{line: "git status --short"},
	{line: "git log --oneline -1 --format=%s"},
	{line: `grep -n "t" a.txt`},
	{line: "cat a.txt | head -5"},
	{line: "wc -l a.txt b.txt"},
	{line: "mkdir -p src/{a,b} && touch src/a/x.go"},
	{line: `echo "done: ok" > log.txt`},
	{line: `printf '%s\n' 'wow!' "it's" > q.txt`},
	{line: `echo "fix!" > m.txt`, not: []Profile{Zsh}},
	{line: "cat a.txt # a note", not: []Profile{Zsh}},
	{line: `cat a.txt # a note that ends in C:\`, not: []Profile{Zsh}},
	{line: "echo x > ! && cat ./!"},
	{line: `touch 'a b' c\ d`},
	{line: "cp a.txt b2.txt && cat b2.txt"},
	{line: "test -f a.txt && echo yes || echo no"},
	{line: "sed -n '2,3p' a.txt"},
	{line: "cat d/* && ls -1 d"},
	{line: "touch ~/hm && cat ~/hm"},
	{line: "false || echo no; echo after"},
	{line: `echo "home: $HOME" $?`, not: []Profile{Zsh, Fish}},
	{line: `echo "home: $HOME" $PWD`},
	{line: "sort -r b.txt a.txt > sorted.txt 2>&1"},
	{line: "git diff HEAD~1 -- a.txt 2>&1 | head -3"},
	{line: "find . -name '*.txt' -newer nothing 2>&1 | sort"},
	{line: "echo a; echo b\n"},
	{line: "CI=true NODE_ENV='test x' printenv CI NODE_ENV"},
	{line: `for f in a.txt b.txt; do wc -l "$f"; done`, not: []Profile{Fish}},
	{line: `while IFS= read -r f; do wc -l "$f"; done < <(find d -type f)`, not: []Profile{Fish}},
	{line: `for f in a b; do echo $f-1; done`, not: []Profile{Fish}},
	{line: "if test -f a.txt; then echo yes; else echo no; fi", not: []Profile{Fish}},
	{line: "while false; do echo never; done; echo after", not: []Profile{Fish}},
}

// ansi matches the escape sequences terminals and line editors emit.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>()][0-9A-Za-z]?`)

// typedAhead is the terminal's echo of the sync line (terminal.sync),
// typed while the line before it still runs: the terminal driver shows
// it wherever the output has got to, between two lines of it.
var typedAhead = regexp.MustCompile(`printf '%s_%s\\n' __admit [0-9]+\n`)

// TestTerminalOrdinary types ordinary lines into each real interactive
// shell and compares what they did with bash -c: the same files, and
// bash -c's output shown in the terminal.
func TestTerminalOrdinary(t *testing.T) {
	p := NewParser(home)
	for _, prof := range []Profile{BashInteractive, Zsh, Fish} {
		t.Run(string(prof), func(t *testing.T) {
			needShell(t, prof)
			sb := newSandbox(t)
			tm := startTerminal(t, sb, prof)
			for _, c := range ordinaryTerminalLines {
				_, prob := p.Parse(c.line, prof)
				refuses := false
				for _, n := range c.not {
					refuses = refuses || n == prof
				}
				if refuses {
					if prob == nil {
						t.Errorf("Parse(%q, %s) admits a line this profile must refuse", c.line, prof)
					}
					continue
				}
				if prob != nil {
					t.Errorf("Parse(%q, %s) refuses an ordinary line: %s", c.line, prof, prob.Reason)
					continue
				}
				sb.reset(t)
				gitRepo(t, sb)
				want := sb.runBashC(t, c.line)
				wantSnap := sb.snapshot(t)
				sb.reset(t)
				gitRepo(t, sb)
				out, ok := tm.typeLine(c.line)
				if !ok {
					t.Errorf("%q left %s waiting for more:\n%s", c.line, prof, out)
					continue
				}
				if d := diffSnapshots(wantSnap, sb.snapshot(t)); d != "" {
					t.Errorf("%q: bash -c and %s left different files (bash -c first):\n%s", c.line, prof, d)
				}
				shown := typedAhead.ReplaceAllString(strings.ReplaceAll(ansi.ReplaceAllString(out, ""), "\r\n", "\n"), "")
				if !strings.Contains(shown, want) {
					t.Errorf("%q: bash -c printed %q, the %s terminal showed %q", c.line, want, prof, shown)
				}
				tm.cd(sb.work)
			}
		})
	}
}
