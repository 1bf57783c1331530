package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

// A [[ ... ]] test and a case clause run no program of their own; what
// they may do is read a file's metadata (-f x), and then run the branches
// of the line. Each is flattened into what the command policy judges:
//
//   - [[ EXPR ]]: one test command for each test of EXPR, in order
//     ([[ -f a && -n "$v" ]] is test -f a, then test -n "$v"), so the
//     operands of file tests are judged as paths, as test's are. Patterns
//     (== *.go, =~ ^v) are text, never names on disk. An operand of an
//     arithmetic test must be an integer: bash evaluates -eq's operands
//     as arithmetic, and a[$(touch M)] there runs touch; -v and -R take
//     a plain name for the same reason. Braces are refused (the shell
//     does not expand them inside [[, the gate's words would).
//   - case WORD in PAT) LIST;; ... esac: every LIST, in order, the first
//     joined as the clause is and the rest by "||" (each may run or not);
//     WORD and the patterns are text.
//
// A plain $NAME is taken as text wherever text is (the string tests,
// case's WORD): its name goes to the command's ParamNames, so the command
// policy refuses a secret, which a comparison could reveal a character at
// a time; -n and -z only tell whether it is empty, and keep no name. It
// is never a file test's operand: the path would be unknown.

// testClause flattens a [[ ]] test into test commands.
func (p *Parser) testClause(c *syntax.TestClause, joiner string, sub bool) {
	start := len(p.cmds)
	p.testExpr(c.X, c, joiner, sub)
	if !p.ps.empty() {
		return
	}
	for i := start + 1; i < len(p.cmds); i++ {
		p.cmds[i].Joiner = "&&"
	}
	p.noteShellOnly("test clause")
}

// testExpr appends the test commands of x.
func (p *Parser) testExpr(x syntax.TestExpr, c *syntax.TestClause, joiner string, sub bool) {
	switch x := x.(type) {
	case *syntax.ParenTest:
		p.testExpr(x.X, c, joiner, sub)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsNot {
			p.testExpr(x.X, c, joiner, sub)
			return
		}
		w, ok := x.X.(*syntax.Word)
		if !ok {
			p.ps.add(classSyntax, "test of a test", p.src(x))
			return
		}
		op := x.Op.String()
		switch x.Op {
		case syntax.TsEmpStr, syntax.TsNempStr:
			// Whether it is empty, nothing of the value: any plain $NAME.
			if v, _, ok := p.testWord(w, false); ok {
				p.emitTest(joiner, sub, nil, "test", op, v)
			}
		case syntax.TsOptSet, syntax.TsFdTerm:
			if v, name, ok := p.testWord(w, false); ok {
				p.emitTest(joiner, sub, names(name), "test", op, v)
			}
		case syntax.TsVarSet, syntax.TsRefVar:
			// bash evaluates an array subscript in the name: a[$(touch M)].
			if v, name, ok := p.testWord(w, false); ok {
				if name != "" || !plainName(v) {
					p.ps.add(classDynamic, "variable test of a word that is not a plain name", p.src(x))
					return
				}
				p.emitTest(joiner, sub, nil, "test", "-n", v)
			}
		default:
			// A file test: the operand is a path.
			if v, ok := p.testPath(w); ok {
				p.emitTest(joiner, sub, nil, "test", op, v)
			}
		}
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.AndTest, syntax.OrTest:
			p.testExpr(x.X, c, joiner, sub)
			p.testExpr(x.Y, c, joiner, sub)
			return
		}
		l, lok := x.X.(*syntax.Word)
		r, rok := x.Y.(*syntax.Word)
		if !lok || !rok {
			p.ps.add(classSyntax, "test of a test", p.src(x))
			return
		}
		op := x.Op.String()
		switch x.Op {
		case syntax.TsNewer, syntax.TsOlder, syntax.TsDevIno:
			a, aok := p.testPath(l)
			b, bok := p.testPath(r)
			if aok && bok {
				p.emitTest(joiner, sub, nil, "test", a, op, b)
			}
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			a, aok := p.testInteger(l)
			b, bok := p.testInteger(r)
			if aok && bok {
				p.emitTest(joiner, sub, nil, "test", a, op, b)
			}
		default:
			// ==, =, !=, <, >, =~: text against text or a pattern.
			a, an, aok := p.testWord(l, false)
			p.textRegex = x.Op == syntax.TsReMatch
			b, bn, bok := p.testWord(r, true)
			p.textRegex = false
			if aok && bok {
				if op == "==" || op == "=~" {
					op = "=" // test's own spelling; the judge reads both as text
				}
				p.emitTest(joiner, sub, names(an, bn), "test", a, op, b)
			}
		}
	case *syntax.Word:
		// [[ WORD ]]: whether WORD is not empty.
		if v, _, ok := p.testWord(x, false); ok {
			p.emitTest(joiner, sub, nil, "test", "-n", v)
		}
	default:
		p.ps.add(classSyntax, "test expression", p.src(c))
	}
}

// names is the non-empty ones of ns.
func names(ns ...string) []string {
	var out []string
	for _, n := range ns {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// emitTest appends one test command.
func (p *Parser) emitTest(joiner string, sub bool, params []string, argv ...string) {
	p.cmds = append(p.cmds, Command{Argv: argv, Joiner: joiner, Subshell: sub, ParamNames: params})
}

// testWord is the text of w, an operand of a test or a case clause: a
// plain $NAME (its name returned, its text as written), or a static word
// without braces whose unquoted *, ? and [ are kept as text when pattern
// is true (a pattern to match against, never a name on disk).
func (p *Parser) testWord(w *syntax.Word, pattern bool) (value, name string, ok bool) {
	if x := soleParam(w); x != nil {
		if _, bound := p.boundValue(x); !bound {
			if !plainParam(x) {
				p.ps.add(classDynamic, "parameter expansion", p.src(x))
				return "", "", false
			}
			return p.src(w), x.Param.Value, true
		}
	}
	if countBraces(w.Parts) > 0 {
		p.ps.add(classSyntax, "brace inside a test or case pattern (the shell does not expand it there)", p.src(w))
		return "", "", false
	}
	if !p.parts(w.Parts) {
		return "", "", false
	}
	p.textPattern = pattern
	v, _, ok := p.literal(w, w.Parts, false)
	p.textPattern = false
	return v, "", ok
}

// testPath is the path a file test's operand names: a static word, no
// pattern, no $NAME.
func (p *Parser) testPath(w *syntax.Word) (string, bool) {
	v, name, ok := p.testWord(w, false)
	if ok && name != "" {
		p.ps.add(classDynamic, "file test of a path only known when the line runs", p.src(w))
		return "", false
	}
	return v, ok
}

// testInteger is an operand of an arithmetic test: a decimal integer or
// $? only, since anything else is evaluated as an arithmetic expression.
func (p *Parser) testInteger(w *syntax.Word) (string, bool) {
	v, name, ok := p.testWord(w, false)
	if !ok {
		return "", false
	}
	if name != "" && name != "?" || name == "" && !decimal(v) {
		p.ps.add(classDynamic, "arithmetic test of a word that is not a decimal integer (bash evaluates it as an expression)", p.src(w))
		return "", false
	}
	return v, true
}

// decimal reports an optionally signed run of decimal digits.
func decimal(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	return allDigits(s)
}

// plainName reports a shell variable name.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// soleParam is the one parameter expansion w is, bare or alone between
// double quotes, or nil.
func soleParam(w *syntax.Word) *syntax.ParamExp {
	if len(w.Parts) != 1 {
		return nil
	}
	switch x := w.Parts[0].(type) {
	case *syntax.ParamExp:
		return x
	case *syntax.DblQuoted:
		if len(x.Parts) == 1 && !x.Dollar {
			if pe, ok := x.Parts[0].(*syntax.ParamExp); ok {
				return pe
			}
		}
	}
	return nil
}

// caseClause flattens case WORD in PAT) LIST;; esac into every LIST.
func (p *Parser) caseClause(c *syntax.CaseClause, joiner string, sub bool) {
	_, name, ok := p.testWord(c.Word, false)
	for _, item := range c.Items {
		for _, pat := range item.Patterns {
			if _, _, pok := p.testWord(pat, true); !pok {
				ok = false
			}
		}
	}
	if !ok {
		return
	}
	start := len(p.cmds)
	j := joiner
	for _, item := range c.Items {
		p.stmts(item.Stmts, j, sub)
		if len(p.cmds) > start {
			j = "||"
		}
	}
	if name != "" {
		// The branches run by what the word holds: a secret's value
		// would show in which one ran.
		for i := start; i < len(p.cmds); i++ {
			p.cmds[i].ParamNames = append(p.cmds[i].ParamNames, name)
		}
	}
	p.loopGrew(start, c)
	p.noteShellOnly("case clause")
}
