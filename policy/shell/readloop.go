package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

// A while read loop, PRODUCER | while read [-r] NAME; do BODY; done or
// while read [-r] NAME; do BODY; done < FILE, runs BODY once for each line
// of its input, with NAME holding the line: values only known when it
// runs. It is flattened into BODY once, the read itself not a command,
// with "$NAME" standing as ReadValue and each command's Read saying where
// the lines come from. The command policy judges a ReadValue as xargs's
// names are when the producer is a command that prints names of the
// workspace (git ls-files, find), one a line, and otherwise asks: a file
// of lines can name any path (/etc/shadow, ../../.ssh/id_rsa).
//
// Handled are read with -r, -d '' (NUL-separated input) and IFS= before
// it, into one lowercase name (the loop variables' rule: read into PATH
// or IFS changes what the body runs). NAME unquoted, or inside a longer
// word ("$f.bak", "src/$f"), is refused: only a whole quoted "$NAME" is a
// name the policy can judge, and only echo and printf print it as text.

// ReadValue is what a "$NAME" of a while read loop stands as in Argv or
// a redirection's Target: the line only known when it runs. It reads as
// an absolute path outside any workspace, so that a judgment that does
// not know read loops refuses it rather than take it for a name inside.
const ReadValue = "/\x00read"

// ReadLoop says where the lines of a while read loop come from.
type ReadLoop struct {
	// Producer is the index in Script.Commands of the command whose
	// output the loop reads through a pipe, or -1: the loop reads a
	// file (< FILE), a here-document, or the line's own input.
	Producer int
	Raw      bool // read -r: backslashes are kept
	Blanks   bool // IFS= read: blanks at either end are kept
	Nul      bool // read -d '': lines end at a NUL byte
	// Split: the names are the words of an unquoted $(PRODUCER), which
	// the shell splits at blanks (fish at newlines) and bash expands as
	// patterns (Parser.Lists); Raw and Blanks are set.
	Split bool
}

// readLoop flattens c when it is a while read loop this file handles; it
// reports whether it did (or refused it).
func (p *Parser) readLoop(c *syntax.WhileClause, joiner string, sub bool) bool {
	if c.Until || len(c.Cond) != 1 {
		return false
	}
	s := c.Cond[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || len(s.Redirs) > 0 || len(call.Args) < 2 || call.Args[0].Lit() != "read" {
		return false
	}
	rl := &ReadLoop{Producer: -1}
	for _, a := range call.Assigns {
		// IFS= read: only an empty IFS, which keeps a line's blanks.
		if a.Name == nil || a.Name.Value != "IFS" || a.Append || a.Naked || a.Index != nil || a.Array != nil || a.Value != nil && len(a.Value.Parts) > 0 {
			return false
		}
		rl.Blanks = true
	}
	args := call.Args[1:]
	for len(args) > 0 {
		switch lit := args[0].Lit(); {
		case lit == "-r":
			rl.Raw = true
		case lit == "-d" && len(args) > 1 && emptyQuoted(args[1]):
			rl.Nul = true
			args = args[1:]
		case lit == "-rd" && len(args) > 1 && emptyQuoted(args[1]):
			rl.Raw, rl.Nul = true, true
			args = args[1:]
		default:
			goto names
		}
		args = args[1:]
	}
names:
	if len(args) != 1 {
		return false // read alone, several names, or options not handled here
	}
	name := args[0].Lit()
	if !loopName(name) {
		p.ps.add(classSyntax, "read into a variable that is not a lowercase name (it may be a variable the commands read from their environment)", p.src(call))
		return true
	}
	if joiner == "|" && p.feed >= 0 && (p.fedStmt == p.loopStmt || !stdinRedirected(p.loopStmt)) {
		rl.Producer = p.feed
	}
	start := len(p.cmds)
	p.bound = append(p.bound, binding{name: name, value: ReadValue})
	p.stmts(c.Do, joiner, sub)
	p.bound = p.bound[:len(p.bound)-1]
	p.readBody(start, rl, "while loop", c)
	p.loopGrew(start, c)
	p.noteShellOnly("while loop")
	return true
}

// emptyQuoted reports a word that is ” or "".
func emptyQuoted(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	switch x := w.Parts[0].(type) {
	case *syntax.SglQuoted:
		return x.Value == "" && !x.Dollar
	case *syntax.DblQuoted:
		return len(x.Parts) == 0 && !x.Dollar
	}
	return false
}

// fedLoop is the redirection < <(LIST) of s, a while read loop whose only
// redirection it is, LIST one command or pipeline: the loop reads LIST's
// output as it would through a pipe. nil otherwise, and in the profiles
// that read <(...) otherwise (procSubst).
func (p *Parser) fedLoop(s *syntax.Stmt) *syntax.Redirect {
	w, ok := s.Cmd.(*syntax.WhileClause)
	if !ok || w.Until || len(s.Redirs) != 1 || p.strict || !(p.prof == Analyze || p.prof == BashInteractive || p.prof == Zsh) {
		return nil
	}
	r := s.Redirs[0]
	if r.Op != syntax.RdrIn || r.N != nil && r.N.Value != "0" || r.Word == nil || len(r.Word.Parts) != 1 {
		return nil
	}
	ps, ok := r.Word.Parts[0].(*syntax.ProcSubst)
	if !ok || ps.Op != syntax.CmdIn || len(ps.Stmts) != 1 {
		return nil
	}
	if _, one := lastOfPipe(ps.Stmts[0]).Cmd.(*syntax.CallExpr); !one {
		return nil
	}
	return r
}

// stdinRedirected reports a statement that opens its standard input
// itself (< FILE, <<EOF): then a pipe does not feed it.
func stdinRedirected(s *syntax.Stmt) bool {
	if s == nil {
		return false
	}
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if r.N == nil || r.N.Value == "0" {
				return true
			}
		}
	}
	return false
}
