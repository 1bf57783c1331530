package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The ordinary constructs whose value the line itself shows, taken as
// literal words instead of refused: an assignment before a command
// (CI=true npm test), the text of a here-document or a here-string, a
// "$(cat <<'EOF' ... EOF)" word (Claude Code's own commit form), and the
// pids kill gets from a probe ($(lsof -ti:3000)). Loops over literal
// lists are in loops.go.

// assigns reads the assignments written before a command: each must be
// NAME=value with a literal value that every profile's shell passes as
// written. An assignment with no command after it sets a variable of the
// shell itself (for the rest of the line, or of the terminal), and is
// refused.
func (p *Parser) assigns(c *syntax.CallExpr) ([]string, bool) {
	if len(c.Assigns) == 0 {
		return nil, true
	}
	if len(c.Args) == 0 || p.strict {
		for _, a := range c.Assigns {
			p.ps.add(classSyntax, "assignment", p.src(a))
		}
		return nil, false
	}
	env := make([]string, 0, len(c.Assigns))
	ok := true
	for _, a := range c.Assigns {
		v, aok := p.assignValue(a)
		if !aok {
			ok = false
			continue
		}
		env = append(env, a.Name.Value+"="+v)
	}
	return env, ok
}

// assignValue is the value of one assignment before a command. Only
// NAME=value: no +=, no array or index, and a value whose unquoted text
// holds none of what bash, zsh and fish expand differently there (bash
// expands ~ after = and :, zsh also =cmd, fish also patterns and braces).
func (p *Parser) assignValue(a *syntax.Assign) (string, bool) {
	if a.Append || a.Naked || a.Index != nil || a.Array != nil || a.Name == nil {
		p.ps.add(classSyntax, "assignment", p.src(a))
		return "", false
	}
	if a.Value == nil {
		return "", true
	}
	if !p.parts(a.Value.Parts) {
		return "", false
	}
	for i, part := range a.Value.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		for k := 0; k < len(lit.Value); k++ {
			c := lit.Value[k]
			switch {
			case c == '\\':
				k++
			case strings.IndexByte("~*?[]{}", c) >= 0, c == '=' && i == 0 && k == 0:
				p.ps.add(classSyntax, "assignment with an unquoted "+string(c)+" in its value", p.src(a))
				return "", false
			}
		}
	}
	s, _, ok := p.literal(a.Value, a.Value.Parts, false)
	return s, ok
}

// hdocText is the text a here-document feeds, as bash passes it: the
// body as written after a quoted delimiter; after an unquoted one,
// backslashes before $, `, \ and a newline removed (expansions were
// refused before); for <<-, the leading tabs of each line removed.
func hdocText(r *syntax.Redirect) string {
	if r.Hdoc == nil {
		return ""
	}
	var b strings.Builder
	for _, part := range r.Hdoc.Parts {
		if lit, ok := part.(*syntax.Lit); ok {
			b.WriteString(lit.Value)
		}
	}
	text := b.String()
	if !quotedWord(r.Word) {
		text = unescapeHdoc(text)
	}
	if r.Op == syntax.DashHdoc {
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		text = strings.Join(lines, "\n")
	}
	return text
}

// quotedWord reports whether any character of w is quoted: a
// here-document's delimiter quoted anywhere leaves its body literal.
func quotedWord(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.IndexByte(x.Value, '\\') >= 0 {
				return true
			}
		}
	}
	return false
}

// unescapeHdoc removes what bash removes from the body of a here-document
// with an unquoted delimiter: a backslash before $, ` or \, and a
// backslash-newline.
func unescapeHdoc(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// literalCat reports a command substitution, inside double quotes, that
// only prints a literal here-document: "$(cat <<'EOF' ... EOF)". Its
// value is the text without its trailing newlines, as bash substitutes
// it; the cat is recorded (Command.Feeders) for the policy to judge as a
// program like any other. Not in the refuse profile, nor in an
// interactive one (whose line editor runs each line of a here-document
// as it is typed).
func (p *Parser) literalCat(cs *syntax.CmdSubst) bool {
	if p.strict || p.prof != Analyze || cs.Backquotes || cs.TempFile || cs.ReplyVar || len(cs.Stmts) != 1 {
		return false
	}
	s := cs.Stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || s.Coprocess || s.Disown || len(call.Assigns) > 0 || len(s.Redirs) != 1 {
		return false
	}
	var argv []string
	for _, w := range call.Args {
		lit := w.Lit()
		if lit == "" {
			return false
		}
		argv = append(argv, lit)
	}
	if len(argv) == 0 || argv[0] != "cat" || len(argv) > 2 || len(argv) == 2 && argv[1] != "-" {
		return false
	}
	r := s.Redirs[0]
	if (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.N != nil || r.Hdoc == nil {
		return false
	}
	for _, part := range r.Hdoc.Parts {
		if _, lit := part.(*syntax.Lit); !lit {
			return false
		}
	}
	p.feeders = append(p.feeders, argv)
	p.noteShellOnly("here-document as a word")
	return true
}

// catText is the value of a literal "$(cat <<'EOF' ... EOF)" (see
// literalCat): the here-document's text, trailing newlines removed.
func catText(cs *syntax.CmdSubst) string {
	return strings.TrimRight(hdocText(cs.Stmts[0].Redirs[0]), "\n")
}

// killsPids reports a command named name (its first word's Lit) that
// signals pids: kill, whose arguments may be the output of a probe on the
// same line. Not in the refuse profile, nor in zsh and fish, which do not
// split a substitution into words as bash does.
func (p *Parser) killsPids(name string) bool {
	return name == "kill" && !p.strict && (p.prof == Analyze || p.prof == BashInteractive)
}

// pidSubstitution is the command inside w when the command kills pids
// and w, not its name, is one whole $(PROBE) of one simple command of
// literal words without assignments or redirections.
func (p *Parser) pidSubstitution(killing bool, k int, w *syntax.Word) *syntax.CallExpr {
	if !killing || k == 0 {
		return nil
	}
	call := oneCommandSubstitution(w)
	if call == nil {
		return nil
	}
	p.noteShellOnly("kill of a probe's pids")
	return call
}

// noteShellOnly records a construct only a shell runs (Script.ShellOnly).
func (p *Parser) noteShellOnly(what string) {
	for _, have := range p.shellOnly {
		if have == what {
			return
		}
	}
	p.shellOnly = append(p.shellOnly, what)
}
