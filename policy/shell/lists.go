package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

// A list of names: COMMAND $(LIST) with the substitution a whole unquoted
// word of its arguments (wc -l $(git ls-files)), or for NAME in $(LIST)
// (Parser.Lists). Every shell runs LIST first and splits its output into
// words: bash and zsh at blanks, fish at newlines, and bash then expands
// each word as a pattern (zsh too with GLOB_SUBST). They are read as
// LIST | xargs COMMAND and LIST | while read NAME would be: LIST a command
// of the line before, as the left side of a pipe, and each word of its
// output ReadValue in a command whose Read has Split set. The command
// policy admits it only where LIST prints names of a walk it judged and
// no name under that walk holds a blank, a quote, a pattern character or
// a leading "-" (lists.go there), so that every shell gives the command
// the same names, each whole. Where the output is empty, the command gets
// no word, as xargs runs it with none.

// listSubst is the statement of w, the k-th word of a command (never its
// name), when Lists is set and w is one whole unquoted $(LIST) of one
// simple command without assignments or redirections.
func (p *Parser) listSubst(k int, w *syntax.Word) []*syntax.Stmt {
	if !p.Lists || p.strict || k == 0 || p.Substitutions && p.prof == Analyze {
		return nil
	}
	return listOf(w)
}

// listOf is the statement of w when it is one whole $(LIST) of a simple
// command that may print names: one of listers.
func listOf(w *syntax.Word) []*syntax.Stmt {
	call := oneCommandSubstitution(w)
	if call == nil || !listers[call.Args[0].Lit()] {
		return nil
	}
	if call.Args[0].Lit() == "git" && (len(call.Args) < 2 || !gitListers[call.Args[1].Lit()]) {
		return nil
	}
	return w.Parts[0].(*syntax.CmdSubst).Stmts
}

// listers are the programs the command policy may take as printing names
// one a line (namePrinter there); any other $(...) stays a dynamic word.
var listers = map[string]bool{"git": true, "find": true, "ls": true, "grep": true, "egrep": true, "fgrep": true, "rg": true}

// gitListers are git's commands that may print names.
var gitListers = map[string]bool{"ls-files": true, "diff": true, "grep": true}

// listProducer adds LIST, the statement of a $(LIST), as a command of the
// line joined by joiner, and returns the Read of the command that takes
// its names; nil when LIST is refused or is more than one command.
func (p *Parser) listProducer(list []*syntax.Stmt, joiner string) *ReadLoop {
	n, problems := len(p.cmds), len(p.ps.items)
	p.procLists([][]*syntax.Stmt{list}, "command substitution", joiner)
	if len(p.cmds) != n+1 || len(p.ps.items) != problems {
		if len(p.ps.items) == problems {
			p.ps.add(classDynamic, "command substitution of more than one command", p.src(list[0]))
		}
		return nil
	}
	return &ReadLoop{Producer: n, Raw: true, Blanks: true, Split: true}
}

// forList flattens for NAME in $(LIST); do BODY; done: LIST, then BODY
// once with "$NAME" (or $NAME: the names are checked to split into
// nothing else) standing for each name. It reports whether c is such a
// loop (then it reported its problems itself).
func (p *Parser) forList(c *syntax.ForClause, wi *syntax.WordIter, joiner string, sub bool) bool {
	if len(wi.Items) != 1 {
		return false
	}
	// Not listSubst: Substitutions keeps no loop's word.
	if !p.Lists || p.strict {
		return false
	}
	list := listOf(wi.Items[0])
	if list == nil {
		return false
	}
	n := len(p.cmds)
	if rl := p.listProducer(list, joiner); rl != nil {
		start := len(p.cmds)
		p.bound = append(p.bound, binding{name: wi.Name.Value, value: ReadValue, split: true})
		p.stmts(c.Do, ";", sub)
		p.bound = p.bound[:len(p.bound)-1]
		p.readBody(start, rl, "for loop", c)
	}
	if len(p.cmds) == n {
		return true
	}
	p.loopGrew(n, c)
	p.noteShellOnly("for loop")
	return true
}

// readBody gives the commands of a loop over lines from start on their
// Read: a cd in them is refused (how often it runs is not known), and so
// is a loop over lines or names inside, whose commands have their own.
func (p *Parser) readBody(start int, rl *ReadLoop, name string, c syntax.Node) {
	for i := start; i < len(p.cmds); i++ {
		if p.cmds[i].Argv[0] == "cd" {
			p.ps.add(classSyntax, "cd inside a "+name, p.src(c))
			return
		}
		if p.cmds[i].Read != nil {
			// The inner one's names are not the outer's: judged by the
			// outer producer, "$g" of cat x.txt | while read g would pass
			// for a name git ls-files prints.
			p.ps.add(classSyntax, "loop over lines or names inside a "+name, p.src(c))
			return
		}
		p.cmds[i].Read = rl
	}
}

// splitBound reports whether the innermost loop variable called name is
// one of a for loop over $(LIST).
func (p *Parser) splitBound(name string) bool {
	for i := len(p.bound) - 1; i >= 0; i-- {
		if p.bound[i].name == name {
			return p.bound[i].split
		}
	}
	return false
}
