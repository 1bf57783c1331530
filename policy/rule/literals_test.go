package rule_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"admit/policy/rule"
)

// ruleCalls are the functions whose first rule-like string argument is a
// rule: refuse(d, RULE, reason, hint), acc.asks(RULE, ...), ToolError(RULE, ...).
var ruleCalls = map[string]bool{"refuse": true, "refusal": true, "asks": true, "ToolError": true}

// ruleLiterals returns the string literals in f that stand where a rule
// does: a Rule field in a composite literal, an assignment to a .Rule, a
// comparison with a .Rule, the rule argument of ruleCalls, and the value
// of a constant named Rule*. Reasons are sentences, so only literals
// spelled like a rule count.
func ruleLiterals(f *ast.File) []*ast.BasicLit {
	var out []*ast.BasicLit
	lit := func(e ast.Expr) {
		if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
			if v, err := strconv.Unquote(b.Value); err == nil && ruleWord.MatchString(v) {
				out = append(out, b)
			}
		}
	}
	isRuleSel := func(e ast.Expr) bool {
		s, ok := e.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Rule"
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Rule" {
				lit(n.Value)
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if isRuleSel(l) {
						lit(n.Rhs[i])
					}
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				if isRuleSel(n.X) {
					lit(n.Y)
				}
				if isRuleSel(n.Y) {
					lit(n.X)
				}
			}
		case *ast.CallExpr:
			name := ""
			switch fn := n.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if ruleCalls[name] {
				for _, a := range n.Args {
					if b, ok := a.(*ast.BasicLit); ok && b.Kind == token.STRING {
						lit(b)
						break
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if strings.HasPrefix(id.Name, "Rule") && i < len(n.Values) {
					lit(n.Values[i])
				}
			}
		}
		return true
	})
	return out
}

// TestRuleLiterals walks every Go file of the module (tests aside, whose
// made-up rules are the point) and fails on a rule spelled as a literal
// that the catalogue does not have: a new rule needs its entry, with a
// meaning and a remedy, before a verdict can carry it.
func TestRuleLiterals(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path == root:
			case strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "extension":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		files++
		for _, b := range ruleLiterals(f) {
			v, _ := strconv.Unquote(b.Value)
			if _, ok := rule.Lookup(rule.Rule(v)); !ok {
				t.Errorf("%s: rule %q is not in the catalogue (policy/rule/catalogue.go)", fset.Position(b.Pos()), v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked only %d Go files from %s", files, root)
	}
}

// TestRuleLiteralsFinds shows what the walk counts as a rule.
func TestRuleLiteralsFinds(t *testing.T) {
	src := `package p
const RuleNew = "brand-new"
func f() {
	d := Decision{Rule: "in-literal", Reason: "not a rule, a sentence"}
	d.Rule = "assigned"
	v.Verdict, v.Rule = "deny", "paired"
	if x.Rule == "compared" {}
	refuse(d, "refused-here", "a reason", "a hint")
	acc.asks("asked-here", "a reason", "")
	policy.ToolError("tool-error", "reason", "")
	other("not-counted")
	d.Reason = "not-counted-either"
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range ruleLiterals(f) {
		v, _ := strconv.Unquote(b.Value)
		got = append(got, v)
	}
	want := "brand-new in-literal assigned paired compared refused-here asked-here tool-error"
	if strings.Join(got, " ") != want {
		t.Fatalf("found %q, want %q", strings.Join(got, " "), want)
	}
}
