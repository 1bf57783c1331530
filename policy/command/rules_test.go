package command

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"admit/policy/rule"
)

// TestRulesTable checks the dispatch table against the built-in table:
// every rules name a program gives is a family, and every family is used.
func TestRulesTable(t *testing.T) {
	used := map[string]bool{}
	for name, p := range DefaultTable().Programs {
		if p.rules == "" {
			continue
		}
		if _, ok := programRules[p.rules]; !ok {
			t.Errorf("program %s: rules %q is not in programRules", name, p.rules)
		}
		used[p.rules] = true
	}
	for name, r := range programRules {
		if !used[name] {
			t.Errorf("rule family %q is used by no built-in program", name)
		}
		if (r.argv == nil) == (r.operands == nil) {
			t.Errorf("rule family %q must set exactly one of argv and operands", name)
		}
	}
	for _, sub := range gitTable() {
		if _, ok := gitRules[sub.rules]; !ok && sub.rules != "text" {
			t.Errorf("git %s: rules %q is not in gitRules", sub.Name, sub.rules)
		}
	}
	tab := DefaultTable()
	tab.Programs["cat"].rules = "nosuch"
	if err := tab.compile(); err == nil || !strings.Contains(err.Error(), `programs.cat.rules: "nosuch"`) {
		t.Errorf("compile with an unknown rules name: %v", err)
	}
}

// TestParseTableRules: a policy file's entry may name a family of
// built-in rules, and a name that is none is an error naming the program
// and the value.
func TestParseTableRules(t *testing.T) {
	w := newWorkspace(t)
	tab, err := ParseTable([]byte(`{
		"whence": {"rules": "names", "operands": "text", "options": {"-a": ""}},
		"lsd": {"rules": "ls", "options": {"-d": ""}},
		"test": null
	}`))
	if err != nil {
		t.Fatal(err)
	}
	p := New(tab)
	for _, c := range []cmdCase{
		{"names family: a name", "whence -a ls", R, "", ok},
		{"names family: a path is refused", "whence /etc/passwd", R, "", flag},
		{"ls family: lists the working folder", "lsd", R, "", ok},
		{"ls family: a folder outside", "lsd /etc", R, "", "ask:" + string(rule.OutsideRead)},
		{"ls family: a private folder outside", "lsd /proc/1", R, "", out},
		{"[ without test", "[ -f a.txt ]", R, "", ok},
		{"[ without test, outside", "[ -f /etc/passwd ]", R, "", out},
		{"test removed: a program in no table asks", "test -f a.txt", R, "", askU},
	} {
		d := p.Evaluate(c.line, w.ws, w.context(c.write, c.obs))
		checkDecision(t, w, c, d)
		if c.line == "lsd" && !slices.Contains(d.Listed, w.ws) {
			t.Errorf("lsd listed %v, want the working folder", d.Listed)
		}
	}
	for _, b := range []struct{ json, want string }{
		{`{"mygrep": {"rules": "grpe"}}`, `programs.mygrep.rules: "grpe" is not one of the built-in rules`},
		{`{"mygrep": {"rules": "Grep"}}`, `programs.mygrep.rules: "Grep"`},
		{`{"t": {"rules": "ls", "wrapper": true}}`, `programs.t: rules "ls" and "wrapper": true exclude each other`},
		{`{"ls": {"rules": "ls"}}`, `programs.ls: ls has built-in rules`},
	} {
		_, err := ParseTable([]byte(b.json))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseTable(%s) = %v, want an error containing %q", b.json, err, b.want)
		}
	}
}

// formatIntents writes intents as "op path <- from (keep) by @dir",
// paths relative to the workspace root.
func formatIntents(w *workspace, ins []Intent) []string {
	rel := func(p string) string {
		if r, err := filepath.Rel(w.ws, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	var out []string
	for _, in := range ins {
		s := fmt.Sprintf("%s %s", in.Op, rel(in.Path))
		if in.From != "" {
			s += " <- " + rel(in.From)
		}
		if in.Keep {
			s += " (keep)"
		}
		s += " by " + in.By
		if in.Dir != w.ws {
			s += " @" + rel(in.Dir)
		}
		out = append(out, s)
	}
	return out
}

// TestIntents checks what each admitted write is meant to do, in every
// option spelling the parser accepts: the reading that resolved the
// targets is the one recorded.
func TestIntents(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	const obs = "d:. d:src d:build d:docs d:empty d:deep d:deep/sub"
	for _, c := range []struct {
		line string
		want []string
	}{
		{"cp --target-directory src a.txt", []string{"copy src/a.txt <- a.txt by cp"}},
		{"cp --target-directory=src a.txt", []string{"copy src/a.txt <- a.txt by cp"}},
		{"cp --target src a.txt", []string{"copy src/a.txt <- a.txt by cp"}},
		{"cp --targ=src a.txt", []string{"copy src/a.txt <- a.txt by cp"}},
		{"cp -t src a.txt", []string{"copy src/a.txt <- a.txt by cp"}},
		{"cp -tsrc a.txt", []string{"copy src/a.txt <- a.txt by cp"}},
		{"cp -rt src a.txt b.txt", []string{"copy src/a.txt <- a.txt by cp", "copy src/b.txt <- b.txt by cp"}},
		{"cp a.txt -t src", []string{"copy src/a.txt <- a.txt by cp"}},
		{"cp -- a.txt src", []string{"copy src/a.txt <- a.txt by cp"}},
		{"cp -t src -- -n", []string{"copy src/-n <- -n by cp"}},
		{"cp a.txt b.txt src", []string{"copy src/a.txt <- a.txt by cp", "copy src/b.txt <- b.txt by cp"}},
		{"cp a.txt new.txt", []string{"copy new.txt <- a.txt by cp"}},
		{"cp -T a.txt new.txt", []string{"copy new.txt <- a.txt by cp"}},
		{"cp -rT src copy", []string{"copy copy <- src by cp"}},
		{"cp -r src copy", []string{"copy copy <- src by cp"}},
		{"cp -r src build", []string{"copy build/src <- src by cp"}},
		{"cp -n a.txt b.txt", []string{"copy b.txt <- a.txt (keep) by cp"}},
		{"cp --no-clobber a.txt b.txt", []string{"copy b.txt <- a.txt (keep) by cp"}},
		{"cp -u a.txt b.txt", []string{"copy b.txt <- a.txt (keep) by cp"}},
		{"cp --attributes-only a.txt n.txt", []string{"create n.txt by cp"}},
		{"cp -b a.txt b.txt", []string{"copy b.txt <- a.txt by cp"}},
		{"cp link-in build", []string{"copy build/link-in <- link-in by cp"}},
		{"mv a.txt src", []string{"move src/a.txt <- a.txt by mv"}},
		{"mv -t src a.txt b.txt", []string{"move src/a.txt <- a.txt by mv", "move src/b.txt <- b.txt by mv"}},
		{"mv --target=src a.txt", []string{"move src/a.txt <- a.txt by mv"}},
		{"mv -ft src a.txt", []string{"move src/a.txt <- a.txt by mv"}},
		{"mv -T a.txt c2", []string{"move c2 <- a.txt by mv"}},
		{"mv -n a.txt src", []string{"move src/a.txt <- a.txt by mv"}},
		{"mv --exchange a.txt b.txt", []string{"exchange b.txt <- a.txt by mv"}},
		{"mv link-in new", []string{"move new <- link-in by mv"}},
		{"rm -f a.txt", []string{"remove a.txt by rm"}},
		{"rm -r build", []string{"remove build by rm"}},
		{"rm -- -n", []string{"remove -n by rm"}},
		{"rm link-in", []string{"remove link-in by rm"}},
		{"rmdir empty", []string{"remove empty by rmdir"}},
		{"mkdir -p new/sub", []string{"create-folder new/sub by mkdir"}},
		{"mkdir --parents -m 700 new", []string{"create-folder new by mkdir"}},
		{"touch x.txt", []string{"create x.txt by touch"}},
		{"touch -c a.txt", []string{"update a.txt by touch"}},
		{"touch --no-c a.txt", []string{"update a.txt by touch"}},
		{"touch -r b.txt a.txt", []string{"create a.txt by touch"}},
		{"tee out.txt", []string{"change out.txt by tee"}},
		{"tee -a a.txt b.txt", []string{"change a.txt by tee", "change b.txt by tee"}},
		{"chmod a+x a.txt", []string{"change a.txt by chmod"}},
		{"chmod -v -- 644 a.txt", []string{"change a.txt by chmod"}},
		{"sed -i s/a/b/ a.txt", []string{"change a.txt by sed"}},
		{"sed --in-place -e s/a/b/ a.txt b.txt", []string{"change a.txt by sed", "change b.txt by sed"}},
		{"sed --in-pl s/a/b/ a.txt", []string{"change a.txt by sed"}},
		{"uniq a.txt out.txt", []string{"change out.txt by uniq"}},
		{"sort -o out.txt a.txt", []string{"change out.txt by sort"}},
		{"sort --outp=out.txt a.txt", []string{"change out.txt by sort"}},
		{"echo hi > out.txt", []string{"change out.txt by redirection >"}},
		{"echo hi >> a.txt", []string{"change a.txt by redirection >>"}},
		{"cat a.txt > /dev/null", nil},
		{"cat a.txt", nil},
		{"cd src && touch n.go", []string{"create src/n.go by touch @src"}},
		{"cd src; touch n.go", []string{"create src/n.go by touch @src", "create n.go by touch"}},
		{"mkdir d && cp a.txt d", []string{"create-folder d by mkdir", "copy d/a.txt <- a.txt by cp"}},
		{"mkdir -p out/x; mv -f a.txt out/x", []string{"create-folder out/x by mkdir", "move out/x/a.txt <- a.txt by mv"}},
		{"mkdir d && cp -T a.txt d", []string{"create-folder d by mkdir", "copy d <- a.txt by cp"}},
		{"cp a.txt d && mkdir d", []string{"copy d <- a.txt by cp", "create-folder d by mkdir"}},
	} {
		d := p.Evaluate(c.line, w.ws, w.context(W, obs))
		if !d.Allowed {
			t.Errorf("%q: %s: %s", c.line, d.Rule, d.Reason)
			continue
		}
		if got := formatIntents(w, d.Intents); !slices.Equal(got, c.want) {
			t.Errorf("%q: intents\n  %q\nwant\n  %q", c.line, got, c.want)
		}
	}
	// An argv has the same reading, and the words are literal.
	d := p.EvaluateArgv([]string{"cp", "--target", "src", "a b"}, w.ws, w.context(W, obs))
	if got := formatIntents(w, d.Intents); !d.Allowed || !slices.Equal(got, []string{"copy src/a b <- a b by cp"}) {
		t.Errorf("argv: %s %s: %q", d.Rule, d.Reason, got)
	}
	// A refused line's intents are never run; a read-only one has none.
	if d := p.Evaluate("cp a.txt /etc/x", w.ws, w.context(W, obs)); d.Allowed {
		t.Errorf("cp outside allowed")
	}
}
