package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Values answers what a command substitution's command prints, where the
// caller can know it when the line is judged: pwd, git rev-parse
// --show-toplevel read from the repository's files, nproc, date +%F. The
// parser then reads $(COMMAND) as that text, quoted or unquoted as
// written, so the command around it is judged with the words it will get
// (cd "$(git rev-parse --show-toplevel)", make -j$(nproc)).
type Values interface {
	// Value is what argv, the literal words of one simple command
	// inside $(...), prints (trailing newlines removed); ok is false
	// when that is not known.
	Value(argv []string) (v Value, ok bool)
}

// Value is a command substitution's output as Values knows it.
type Value struct {
	Text string
	// Cwd: the text depends on the working folder (pwd, the
	// repository's top level and branch). A cd earlier in the line
	// leaves it unknown.
	Cwd bool
	// Shape is nil when Text is what the command prints when the line
	// runs. Otherwise the text may differ by then (the clock moved, the
	// short hash is longer), and Shape reports whether a text is one
	// it may print: the command policy checks that no file of that
	// shape stands where the judged one would (Command.Varying).
	Shape func(string) bool
}

// Valued are what a command's words took from Values.
type Valued struct {
	// Commands are the commands of the $(COMMAND) words (pwd, git
	// rev-parse --show-toplevel, nproc): Argv holds their output where
	// each stood. They run all the same, so the command policy judges
	// each as a command of the line.
	Commands [][]string
	// Varying are the words of Argv holding such an output that may
	// differ when the line runs (date +%F, nproc), with its shape.
	Varying []Varying
}

// Varying is a word of a command whose text holds a Value with a Shape:
// Dir (as written, "" for the working folder, ending in "/" otherwise)
// and then a name Prefix + value + Suffix.
type Varying struct {
	Index               int
	Dir, Prefix, Suffix string
	Shape               func(string) bool
	By                  string // the $(...) as written, for reasons
}

// knownSub is a command substitution of the command in progress whose
// value the parser took from Values.
type knownSub struct {
	x *syntax.CmdSubst
	v Value
}

// valueOf is the value Values gives x, a $(COMMAND) in a command's
// arguments, or false. The command must be one simple command of plain
// words, with nothing before it in the line that changes what it prints:
// an export (PATH, GIT_DIR, TZ), or a cd for a value of the working folder.
func (p *Parser) valueOf(x *syntax.CmdSubst) (Value, bool) {
	for _, k := range p.known {
		if k.x == x {
			return k.v, true
		}
	}
	if !p.valuesHold() || x.Backquotes || x.TempFile || x.ReplyVar {
		return Value{}, false
	}
	argv, ok := plainCommand(x)
	if !ok {
		return Value{}, false
	}
	v, ok := p.Values.Value(argv)
	if !ok || strings.ContainsAny(v.Text, "\n\x00") || v.Cwd && p.cdBefore() {
		return Value{}, false
	}
	p.known = append(p.known, knownSub{x: x, v: v})
	p.valued = append(p.valued, argv)
	return v, true
}

// valuesHold reports whether Values' answers stand for the word being
// judged: a command's argument, in a profile that reads values, with no
// export earlier in the line (PATH, GIT_DIR, TZ change what is printed).
// The working folder's values also need no cd before (cdBefore).
func (p *Parser) valuesHold() bool {
	return p.Values != nil && p.inArgs && !p.strict && len(p.exported) == 0
}

// cdBefore reports a command of the line before this one that changes the
// shell's folder.
func (p *Parser) cdBefore() bool {
	for _, c := range p.cmds {
		name := c.Argv[0]
		if (name == "builtin" || name == "command") && len(c.Argv) > 1 {
			name = c.Argv[1]
		}
		switch name {
		case "cd", "pushd", "popd":
			return true
		}
	}
	return false
}

// valueWordOK reports whether v stands as written where x is: inside
// double quotes always; unquoted only when word splitting and pathname
// expansion leave it one word, the same in every shell (fish drops a word
// whose substitution prints nothing; bash keeps the rest of it).
func (p *Parser) valueWordOK(x *syntax.CmdSubst, v Value) bool {
	if p.inDouble {
		return true
	}
	if v.Text == "" || strings.ContainsAny(v.Text, " \t\n*?[]\\") {
		p.ps.add(classDynamic, "unquoted command substitution whose output would be split or expanded (quote it)", p.src(x))
		return false
	}
	return true
}

// plainCommand is the words of the one simple command x holds, each
// plain text (unquoted without anything a shell expands, or quoted
// without escapes or expansions), with no assignment or redirection.
func plainCommand(x *syntax.CmdSubst) ([]string, bool) {
	if len(x.Stmts) != 1 {
		return nil, false
	}
	s := x.Stmts[0]
	if s.Negated || s.Background || s.Coprocess || s.Disown || len(s.Redirs) > 0 {
		return nil, false
	}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 || len(call.Args) > 8 {
		return nil, false
	}
	argv := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		var b strings.Builder
		for _, part := range w.Parts {
			switch x := part.(type) {
			case *syntax.Lit:
				if strings.ContainsAny(x.Value, "\\~*?[]{}$`!#") || b.Len() == 0 && (strings.HasPrefix(x.Value, "=") || strings.HasPrefix(x.Value, "%")) {
					return nil, false
				}
				b.WriteString(x.Value)
			case *syntax.SglQuoted:
				if x.Dollar || strings.ContainsAny(x.Value, "\\'") {
					return nil, false
				}
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				if x.Dollar {
					return nil, false
				}
				for _, in := range x.Parts {
					lit, ok := in.(*syntax.Lit)
					if !ok || strings.ContainsAny(lit.Value, "\\$`!") {
						return nil, false
					}
					b.WriteString(lit.Value)
				}
			default:
				return nil, false
			}
		}
		if b.Len() == 0 {
			return nil, false
		}
		argv = append(argv, b.String())
	}
	return argv, true
}

// noteVarying records, for the word just built in p.val, the value with
// a Shape it holds between start and end; false (and a problem) when the
// value stands inside a folder name, where the folder would change.
func (p *Parser) noteVarying(w *syntax.Word, v Value, start, end int) bool {
	prefix, suffix := string(p.val[:start]), string(p.val[end:])
	if strings.Contains(suffix, "/") {
		p.ps.add(classDynamic, "command substitution whose output may change before the line runs, inside a folder name", p.src(w))
		return false
	}
	dir := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dir, prefix = prefix[:i+1], prefix[i+1:]
	}
	p.varyWord = &Varying{Dir: dir, Prefix: prefix, Suffix: suffix, Shape: v.Shape, By: p.src(w)}
	return true
}

// knownWord reports whether w is one $(COMMAND) whose value Values gives.
func (p *Parser) knownWord(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	x, ok := w.Parts[0].(*syntax.CmdSubst)
	if !ok {
		return false
	}
	_, ok = p.valueOf(x)
	return ok
}

// procSubst is the list of w, the k-th word of a command (never its
// name), when w is one whole <(LIST) in a shell that reads it as bash
// does (bash and zsh; fish has none): nil otherwise, and w is then
// refused as any other expansion. >(LIST) is not kept: LIST would read
// what the command writes there.
func (p *Parser) procSubst(k int, w *syntax.Word) *syntax.ProcSubst {
	if k == 0 || p.strict || len(w.Parts) != 1 || !(p.prof == Analyze || p.prof == BashInteractive || p.prof == Zsh) {
		return nil
	}
	ps, ok := w.Parts[0].(*syntax.ProcSubst)
	if !ok || ps.Op != syntax.CmdIn || len(ps.Stmts) == 0 {
		return nil
	}
	return ps
}

// printedSubst is LIST when w is one whole "$(LIST)" that echo, or
// printf after its format, only prints: bash, zsh and fish 3.4+ all
// read the quoted form as one word, LIST's output with its trailing
// newlines removed, so whatever it holds is text (an unquoted $(LIST)
// splits on blanks in bash and on newlines in fish, and `LIST` is not
// fish's). Not for the refuse profile.
func (p *Parser) printedSubst(name string, k int, w *syntax.Word) []*syntax.Stmt {
	if p.strict || !(name == "echo" && k > 0 || name == "printf" && k > 1) || len(w.Parts) != 1 {
		return nil
	}
	dq, ok := w.Parts[0].(*syntax.DblQuoted)
	if !ok || dq.Dollar || len(dq.Parts) != 1 {
		return nil
	}
	cs, ok := dq.Parts[0].(*syntax.CmdSubst)
	if !ok || cs.Backquotes || cs.TempFile || cs.ReplyVar || len(cs.Stmts) == 0 {
		return nil
	}
	// Even a known value ($(pwd), a branch) is judged as its command
	// here: whatever it prints is only text, never read again.
	return cs.Stmts
}

// procLists adds the commands of each <(LIST) of the command in progress
// before it, as the left side of a pipeline into it (they run beside it,
// and it reads their output), the first joined by joiner; it returns
// the command's own joiner, "|". The command's state is kept across.
func (p *Parser) procLists(lists [][]*syntax.Stmt, what, joiner string) string {
	globs, patterns, params, feeders, valued, varying, zshPats := p.globs, p.patterns, p.params, p.feeders, p.valued, p.varying, p.zshPats
	p.noteShellOnly(what)
	restore := p.keepExports()
	p.pipeLeft++
	for i, list := range lists {
		j := joiner
		if i > 0 {
			j = "|"
		}
		p.stmts(list, j, true)
	}
	p.pipeLeft--
	restore()
	p.globs, p.patterns, p.params, p.feeders, p.valued, p.varying, p.zshPats = globs, patterns, params, feeders, valued, varying, zshPats
	p.inArgs = false
	return "|"
}
