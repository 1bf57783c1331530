package command

import (
	"path/filepath"
	"strings"
	"testing"

	"admit/internal/cases"
	"admit/policy/rule"
)

// Rule shorthands for the case tables of this file. The corpus of cases
// the policy, the gate and admit check share is internal/cases.
const (
	ok     = string(rule.Allowed)
	unsup  = string(rule.UnsupportedProgram)
	askU   = "ask:" + unsup
	hidden = string(rule.HiddenCommand)
	flag   = string(rule.ForbiddenFlag)
	out    = string(rule.OutsideWorkspace)
	notgt  = string(rule.NoTarget)
	prot   = string(rule.ProtectedPath)
	askP   = "ask:" + prot
	W      = true  // workspace-write
	R      = false // read-only
)

// cmdCase is one command line judged in base/ws.
type cmdCase struct {
	note  string
	line  string
	write bool   // workspace-write effects
	obs   string // observations: "d:dir f:file s:stale-file", relative to ws
	want  string // the rule; "ask:rule" for a decision that asks
}

// outcome is d's class, as policy.Decision.Outcome reads it.
func outcome(d Decision) rule.Outcome {
	switch {
	case d.Allowed:
		return rule.OutcomeAllow
	case d.Ask:
		return rule.OutcomeAsk
	}
	return rule.OutcomeDeny
}

func checkDecision(t *testing.T, w *workspace, c cmdCase, d Decision) {
	t.Helper()
	got := string(d.Rule)
	if d.Ask {
		got = "ask:" + string(d.Rule)
	}
	if got != c.want {
		t.Errorf("%s: %q (write=%v obs=%q): got %s (%s), want %s", c.note, c.line, c.write, c.obs, got, d.Reason, c.want)
	}
	if want, fixed := rule.OutcomeOf(d.Rule); fixed && outcome(d) != want {
		t.Errorf("%s: %q: outcome %s with rule %s, whose class the catalogue fixes as %s", c.note, c.line, outcome(d), d.Rule, want)
	}
	if d.Allowed != (c.want == ok) {
		t.Errorf("%s: %q: Allowed=%v with rule %s", c.note, c.line, d.Allowed, d.Rule)
	}
	if d.Allowed || d.Ask {
		for _, list := range [][]string{d.Reads, d.Writes, d.Listed} {
			for _, p := range list {
				if !inside(p, w.roots) {
					t.Errorf("%s: %q: allowed with %q outside the roots", c.note, c.line, p)
				}
			}
		}
	}
	if !d.Allowed && d.Reason == "" {
		t.Errorf("%s: %q: refused without a reason", c.note, c.line)
	}
}

// TestRecords checks what allowed commands report for observations.
func TestRecords(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	j := func(s ...string) string { return strings.Join(s, ",") }
	rel := func(list []string) string {
		var out []string
		for _, s := range list {
			r, _ := filepath.Rel(w.ws, s)
			out = append(out, r)
		}
		return j(out...)
	}
	cases := []struct {
		line, obs            string
		write                bool
		reads, writes, lists string
		kind                 string
	}{
		{"cat a.txt link-in", "", R, "a.txt,src/a.go", "", "", "read"},
		{"ls", "", R, "", "", ".", "read"},
		{"ls src docs a.txt", "", R, "", "", "src,docs", "read"},
		{"find src -name x", "", R, "", "", "src", "read"},
		{"cd src && ls", "", R, "", "", "src", "read"},
		{"sort a.txt > out.txt", "d:.", W, "a.txt", "out.txt", "", "write"},
		{"rm -r build", "d:build", W, "", "build", "", "write"},
		{"cp a.txt docs", "d:docs", W, "a.txt", "docs/a.txt", "", "write"},
		{"grep -rn x src", "", R, "", "", "", "read"},
		{"uniq a.txt -", "", R, "a.txt", "", "", "read"},
		{"stat a.txt", "", R, "", "", "", "read"},
		// What a variable has the program read is not the model's read.
		{"SSL_CERT_FILE=a.txt cat b.txt", "", R, "b.txt", "", "", "read"},
		{"SSL_CERT_DIR=src ls docs", "", R, "", "", "docs", "read"},
	}
	for _, c := range cases {
		d := p.Evaluate(c.line, w.ws, w.context(c.write, c.obs))
		if !d.Allowed {
			t.Errorf("%q: refused: %s %s", c.line, d.Rule, d.Reason)
			continue
		}
		if rel(d.Reads) != c.reads || rel(d.Writes) != c.writes || rel(d.Listed) != c.lists || d.Kind != c.kind {
			t.Errorf("%q: reads=%q writes=%q listed=%q kind=%s; want %q %q %q %s", c.line, rel(d.Reads), rel(d.Writes), rel(d.Listed), d.Kind, c.reads, c.writes, c.lists, c.kind)
		}
	}
}

func TestKindOfRefusedWrites(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	for _, line := range []string{"rm a.txt", "echo x > /tmp/x", "sort -o x a.txt", "cat a; mkdir x"} {
		if d := p.Evaluate(line, w.ws, w.context(false, "")); d.Allowed || d.Kind != "write" {
			t.Errorf("%q: allowed=%v kind=%s, want a refused write", line, d.Allowed, d.Kind)
		}
	}
	if d := p.Evaluate("cat a.txt > /dev/null", w.ws, w.context(false, "")); d.Kind != "read" {
		t.Errorf("a redirection to /dev/null is not a write: kind %s", d.Kind)
	}
}

func TestHintsAndReasons(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	cases := []struct{ line, reason, hint string }{
		{"rm a.txt", "rm changes files", "workspace-write"},
		{"sort -o x a.txt", "\"x\"", "drop the option -o"},
		{"tail -f a.txt", "\"-f\"", "leave out -f"},
		{"cat /etc/passwd", "/etc/passwd", "inside the workspace"},
		{"python3 x.py", "python3 x.py", ""},
		{"git push", "git push", "workspace-write"},
		{"mytool --x", "\"mytool\"", "docs/policy-programs.md"},
		{"ls > o.txt", "redirection >", "workspace-write"},
	}
	for _, c := range cases {
		d := p.Evaluate(c.line, w.ws, w.context(false, ""))
		if !strings.Contains(d.Reason, c.reason) || !strings.Contains(d.Hint, c.hint) {
			t.Errorf("%q: reason %q hint %q; want them to contain %q and %q", c.line, d.Reason, d.Hint, c.reason, c.hint)
		}
	}
}

func TestProtect(t *testing.T) {
	roots := []string{"/w"}
	cases := []struct {
		path           string
		protected, ask bool
	}{
		{"/w/.admit/policy.json", true, false},
		{"/w/.admit", true, false},
		{"/w", true, false},
		{"/w/.git/config", true, true},
		{"/w/.git/hooks/pre-commit", true, true},
		{"/w/sub/.git/config", true, true},
		{"/w/.vscode/settings.json", true, true},
		{"/w/.vscode/tasks.json", true, true},
		{"/w/.envrc", true, true},
		{"/w/.github/workflows/ci.yml", true, true},
		{"/w/.github", true, true},
		{"/w/.github/CODEOWNERS", false, false},
		{"/w/.gitattributes", true, true},
		{"/w/src/.gitattributes", true, true},
		{"/w/.gitmodules", true, true},
		{"/w/.husky/pre-commit", true, true},
		{"/w/src/a.go", false, false},
		{"/w/.gitignore", false, false},
		{"/w-evil/.admit/x", false, false},
		{"/elsewhere/.git/config", false, false},
	}
	for _, c := range cases {
		pr := Protect(c.path, roots)
		if pr.Protected != c.protected || pr.Ask != c.ask {
			t.Errorf("Protect(%q) = %+v, want protected=%v ask=%v", c.path, pr, c.protected, c.ask)
		}
		if pr.Protected && pr.Why == "" {
			t.Errorf("Protect(%q): no reason", c.path)
		}
	}
}

func TestParseTable(t *testing.T) {
	w := newWorkspace(t)
	tab, err := ParseTable([]byte(`{
		"xq": {"operands": "read", "firstOperand": "text",
		       "options": {"-r --raw-output": "", "--arg": "text", "-f --from-file": "read"},
		       "refuse": {"--rawfile": "reads a file named by the filter"}},
		"timeout": {"wrapper": true, "commandAfter": 1,
		            "options": {"-s --signal -k --kill-after": "text", "--preserve-status --foreground -v --verbose": ""}},
		"env": {"wrapper": true, "options": {"-i --ignore-environment": ""}},
		"rm": null
	}`))
	if err != nil {
		t.Fatal(err)
	}
	p := New(tab)
	cases := []cmdCase{
		{"xq reads its file", "xq -r .a a.txt", R, "", ok},
		{"xq filter is text", "xq /etc/passwd a.txt", R, "", ok},
		{"xq file outside", "xq . /etc/passwd", R, "", "ask:" + string(rule.OutsideRead)},
		{"xq -f outside", "xq -f /etc/x a.txt", R, "", out},
		{"xq refused option", "xq --rawfile x /etc/passwd .", R, "", flag},
		{"xq unknown option", "xq --slurp . a.txt", R, "", flag},
		{"xq long prefix", "xq --raw-o . a.txt", R, "", ok},
		{"timeout wraps cat", "timeout 5 cat a.txt", R, "", ok},
		{"timeout with options", "timeout -k 2 --preserve-status 5 cat a.txt", R, "", ok},
		{"timeout wraps a command that asks", "timeout 5 cat /etc/passwd", R, "", "ask:" + string(rule.OutsideRead)},
		{"timeout wraps a refused command", "timeout 5 cat ~/.ssh/id_rsa", R, "", out},
		{"timeout wraps sh -c", "timeout 5 sh -c id", R, "", hidden},
		{"timeout wraps rm, which the file removed", "timeout 5 rm a.txt", R, "", askU},
		{"timeout without a command", "timeout", R, "", notgt},
		{"env without assignments", "env cat a.txt", R, "", ok},
		{"env with an assignment", "env PATH=/tmp cat a.txt", R, "", flag},
		{"env wraps env wraps timeout", "env env timeout 1 ls", R, "", ok},
		{"a wrapper cannot run cd", "timeout 1 cd /etc", R, "", hidden},
		{"wrappers nest only so deep", "env env env env env ls", R, "", hidden},
		{"rm removed: a program in no table asks", "rm a.txt", W, "f:a.txt", askU},
		{"jq is built in: the file cannot redefine it, but its entry for xq stands", "jq .a a.txt", R, "", ok},
		{"others still built in", "git status", R, "", ok},
	}
	for _, c := range cases {
		d := p.Evaluate(c.line, w.ws, w.context(c.write, c.obs))
		checkDecision(t, w, c, d)
	}
	bad := []struct{ json, want string }{
		{`{"xq": {"operands": "maybe"}}`, `programs.xq.operands: "maybe"`},
		{`{"xq": {"options": {"-r": "path"}}}`, `programs.xq.options["-r"]: "path"`},
		{`{"xq": {"options": {"r": ""}}}`, `"r" is not an option spelling`},
		{`{"xq": {"optoins": {}}}`, `programs.xq.optoins: unknown field`},
		{`{"git": {"operands": "read"}}`, `programs.git: git has built-in rules`},
		{`{"jq": {"operands": "read"}}`, `programs.jq: jq has built-in rules`},
		{`{"/bin/x": {}}`, `programs./bin/x: "/bin/x" is not a program name`},
		{`{"xq": {"commandAfter": 2}}`, `programs.xq: commandAfter and assignments need`},
		{`[1]`, `programs: must be an object, got JSON array`},
	}
	for _, b := range bad {
		_, err := ParseTable([]byte(b.json))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseTable(%s) = %v, want an error containing %q", b.json, err, b.want)
		}
	}
}

// TestDefaultTableIsFresh checks that a table is never shared: changing one
// does not change the next.
func TestDefaultTableIsFresh(t *testing.T) {
	a := DefaultTable()
	delete(a.Programs, "cat")
	if DefaultTable().Programs["cat"] == nil {
		t.Fatal("DefaultTable shares state")
	}
	for _, name := range strings.Fields("basename cat cmp diff dirname du file find git grep head ls md5sum pwd readlink realpath sha256sum sort stat tail test tree uniq wc cp mkdir mv rm rmdir touch cut tr nl tac rev comm paste seq expand unexpand fold od hexdump date uname whoami id") {
		if a.Programs[name] == nil && name != "cat" {
			t.Errorf("program %s missing", name)
		}
	}
}

// TestConcurrent runs one Policy from many goroutines (go test -race)
// over the corpus's allowed command lines.
func TestConcurrent(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	var allowed []cases.Case
	for _, c := range lineCases(t) {
		if c.Want.Outcome == cases.Allowed && c.Rules == "" {
			allowed = append(allowed, c)
		}
	}
	done := make(chan bool)
	for g := 0; g < 8; g++ {
		go func() {
			defer func() { done <- true }()
			for _, c := range allowed {
				ctx, cwd := w.caseContext(&c)
				if g%2 == 1 {
					ctx.Home = "/nonexistent/home" // a second parser flavour in the pool
				}
				d := p.Evaluate(w.expand(c.Line), cwd, ctx)
				if !d.Allowed && g%2 == 0 {
					t.Errorf("%s: %q: %s", c.Pos, c.Line, d.Rule)
				}
			}
		}()
	}
	for g := 0; g < 8; g++ {
		<-done
	}
}
