//go:build unix

package command

import (
	"os"
	"path/filepath"
	"testing"

	"admit/policy/rule"
)

// TestReadLoopNames: a while read loop fed by a walk is judged as xargs
// is, in a workspace that holds only plain names: allowed; a name that
// starts with "-", or one read would change, refuses it; lines from a
// file are asked, whatever the file holds.
func TestReadLoopNames(t *testing.T) {
	build := func(t *testing.T, names ...string) (string, *Context) {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root, &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir()}
	}
	type want struct {
		line    string
		allowed bool
		ask     bool
		rule    rule.Rule
	}
	p := New(nil)
	check := func(t *testing.T, root string, c *Context, tests []want) {
		t.Helper()
		for _, tt := range tests {
			d := p.Evaluate(tt.line, root, c)
			if d.Allowed != tt.allowed || d.Ask != tt.ask || (tt.rule != "" && d.Rule != tt.rule) {
				t.Errorf("%q: allowed %v ask %v %s (%s), want allowed %v ask %v %s", tt.line, d.Allowed, d.Ask, d.Rule, d.Reason, tt.allowed, tt.ask, tt.rule)
			}
		}
	}
	t.Run("plain names", func(t *testing.T) {
		root, c := build(t, "src/a.go", "src/b.go", "list.txt", "docs/x y.md")
		check(t, root, c, []want{
			{line: `git ls-files | while read f; do wc -l "$f"; done`, allowed: true},
			{line: `git ls-files -z | while IFS= read -r -d '' f; do head -1 "$f"; done`, allowed: true},
			{line: `git ls-files | while read -r f; do rm "$f"; done`, rule: rule.NoTarget},
			{line: `git ls-files | while read -r f; do cat "$f" > "$f.bak"; done`, rule: rule.DynamicWord},
			{line: `git ls-files -z | while read -r f; do cat "$f"; done`, ask: true, rule: rule.DynamicWord}, // -z names read one a line
			{line: `while read -r f; do wc -l "$f"; done < list.txt`, ask: true, rule: rule.DynamicWord},
			{line: `cat list.txt | while read -r f; do wc -l "$f"; done`, ask: true, rule: rule.DynamicWord},
			{line: `for f in src/*.go; do wc -l "$f"; done`, allowed: true},
			{line: `for f in *; do wc -l "$f"; done`, allowed: true},
			{line: `git ls-files '*.pem' | while read -r f; do cat "$f"; done`, ask: true, rule: rule.SecretRead},
			{line: `ls src | while read -r f; do wc -l "$f"; done`, allowed: true},
			{line: `ls -1At | while read -r f; do wc -l "$f"; done`, allowed: true},
			{line: `ls -a | while read -r f; do wc -l "$f"; done`, ask: true, rule: rule.DynamicWord},
			{line: `ls --color=always | while read -r f; do wc -l "$f"; done`, ask: true, rule: rule.DynamicWord},
			{line: `git ls-files -z '*.pem' | xargs -0 cat`, ask: true, rule: rule.SecretRead},
		})
	})
	t.Run("a name like an option", func(t *testing.T) {
		root, c := build(t, "src/a.go", "-rf")
		check(t, root, c, []want{
			{line: `git ls-files | while read -r f; do wc -l "$f"; done`, rule: rule.DynamicWord},
			{line: `find . -type f | while read -r f; do wc -l "$f"; done`, allowed: true}, // ./-rf
			{line: `for f in *; do wc -l "$f"; done`, rule: rule.DynamicWord},
			{line: `for f in ./*; do wc -l "$f"; done`, allowed: true},
		})
	})
	t.Run("names read would change", func(t *testing.T) {
		root, c := build(t, "src/a.go", "src/trail ", `src/back\slash`)
		check(t, root, c, []want{
			{line: `git ls-files | while read f; do wc -l "$f"; done`, rule: rule.DynamicWord},
			{line: `find src | while read -r f; do wc -l "$f"; done`, rule: rule.DynamicWord},
			{line: `find src | while IFS= read -r f; do wc -l "$f"; done`, allowed: true},
		})
	})
}
