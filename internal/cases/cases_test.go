package cases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseArchive(t *testing.T) {
	a := parseArchive([]byte("comment\n-- one --\nline: a\n-- two --\n--not a marker --\n-- three --"))
	if a.comment != "comment\n" || len(a.sections) != 3 {
		t.Fatalf("%+v", a)
	}
	for i, want := range []section{{"one", 2, "line: a\n"}, {"two", 4, "--not a marker --\n"}, {"three", 6, ""}} {
		if a.sections[i] != want {
			t.Errorf("section %d = %+v, want %+v", i, a.sections[i], want)
		}
	}
}

func TestParseCaseErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"want: allowed\n", "exactly one of line"},
		{"line: ls\nargv: [\"ls\"]\nwant: allowed\n", "exactly one of line"},
		{"line: ls\n", "no want"},
		{"line: ls\nwant: maybe\n", `"maybe": want allowed, allowed rule-allows, refused RULE or asked RULE`},
		{"line: ls\nwant: refused allowed\n", "want allowed, allowed rule-allows, refused RULE"},
		{"line: ls\nwant: allowed\nwant: allowed\n", "want: given twice"},
		{"line: ls\nefects: workspace-write\nwant: allowed\n", "efects: unknown field"},
		{"line: ls\neffects: all\nwant: allowed\n", `"all": want read-only or workspace-write`},
		{"tool: Read\nwant: allowed\n", "tool needs args"},
		{"tool: Read\nargs: {\nwant: allowed\n", "args: not valid JSON"},
		{"line: \"unterminated\nwant: allowed\n", "line: invalid syntax"},
		{"just words\n", "want key: value"},
		{"line: ls\nrules: {\"allow\": [\"*\"]}\nwant: allowed\n", "a rule over every command is refused"},
		{"line: ls\nrules: {\"alow\": []}\nwant: allowed\n", `alow: unknown field`},
		{"line: ls\nwant: allowed rule-denies\n", "want allowed, allowed rule-allows"},
	} {
		_, err := parseCase(section{name: "x", data: c.body})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want one containing %q", c.body, err, c.want)
		}
	}
	c, err := parseCase(section{name: "x", data: "line: \"a\\nb \"\ncwd: src\nobserved: a b\nnote: one\nnote: two\nwant: asked protected-path\n"})
	if err != nil || c.Line != "a\nb " || !c.LineSet || c.Cwd != "src" || len(c.Observed) != 2 || len(c.Notes) != 2 || c.Want != (Want{Asked, "protected-path"}) {
		t.Errorf("%+v %v", c, err)
	}
	if c, err := parseCase(section{name: "x", data: "line:\nwant: refused empty-command\n"}); err != nil || !c.LineSet || c.Line != "" {
		t.Errorf("an empty line is a line: %+v %v", c, err)
	}
}

func TestParseThemeErrors(t *testing.T) {
	if _, err := parseTheme("t", []byte("-- a --\nline: ls\nwant: allowed\n-- a --\nline: ls -l\nwant: allowed\n")); err == nil || !strings.Contains(err.Error(), `a second case named "a"`) {
		t.Errorf("a duplicate name: %v", err)
	}
	if _, err := parseTheme("t", []byte("policy: {\n-- a --\nline: ls\nwant: allowed\n")); err == nil || !strings.Contains(err.Error(), "policy: not valid JSON") {
		t.Errorf("a bad policy: %v", err)
	}
	if _, err := parseTheme("t", []byte("nothing\n")); err == nil {
		t.Error("a theme without cases")
	}
}

// TestCorpus loads the whole corpus: every archive parses, and none has
// lost its cases to a broken marker (a section swallowed by the one above
// it fails to parse instead).
func TestCorpus(t *testing.T) {
	themes, err := Themes()
	if err != nil {
		t.Fatal(err)
	}
	n, outcomes := 0, map[Outcome]int{}
	for _, th := range themes {
		if th.Doc == "" {
			t.Errorf("%s.txtar: no comment saying what the theme holds", th.Name)
		}
		for _, c := range th.Cases {
			outcomes[c.Want.Outcome]++
			n++
		}
	}
	if n < 1600 || outcomes[Allowed] < 600 || outcomes[Refused] < 800 || outcomes[Asked] < 50 {
		t.Errorf("%d cases (%v): the corpus has lost some", n, outcomes)
	}
	t.Logf("%d themes, %d cases: %v", len(themes), n, outcomes)
}

func TestBuild(t *testing.T) {
	w := Build(t, nil)
	if w.Root != filepath.Join(w.Base, "ws") || len(w.Roots) != 4 || w.Home != filepath.Join(w.Base, "home") {
		t.Fatalf("%+v", w)
	}
	if target, err := os.Readlink(filepath.Join(w.Root, "link-out")); err != nil || target != filepath.Join(w.Base, "outside/secret.txt") {
		t.Errorf("link-out -> %q, %v", target, err)
	}
	if fi, err := os.Stat(filepath.Join(w.Root, "hookrepo/.git/hooks/post-index-change")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the hook: %v %v", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(w.Root, "emptydir")); err != nil || !fi.IsDir() {
		t.Errorf("emptydir: %v %v", fi, err)
	}
	th := &Theme{Roots: []string{"ws/nested-ws"}, Policy: `{"label": "x"}`}
	w = Build(t, th)
	if w.Root != filepath.Join(w.Base, "ws/nested-ws") || len(w.Roots) != 1 {
		t.Errorf("a theme's roots: %+v", w)
	}
	if data, err := os.ReadFile(filepath.Join(w.Root, ".admit/policy.json")); err != nil || string(data) != "{\"label\": \"x\"}\n" {
		t.Errorf("a theme's policy: %q %v", data, err)
	}
}
