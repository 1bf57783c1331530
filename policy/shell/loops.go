package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Loops and conditionals whose words the line shows are flattened into
// the simple commands they may run, so each is judged like any other:
//
//   - for NAME in WORDS; do BODY; done, WORDS literal or patterns: BODY
//     once for each word, in order, with $NAME (quoted, or unquoted where
//     splitting and pathname expansion leave the value as it is) replaced
//     by it. A pattern (for f in src/*.go) is replaced by the names it
//     matches, as bash does before the loop starts, through
//     Parser.Loops: the command policy expands it in the line's folder
//     as it expands a command's pattern (a name starting with "-" is
//     refused, the walk is bounded, a link out is not followed). With no
//     Loops, or after a cd, such a loop is refused;
//   - while/until COND; do BODY; done: COND, then BODY, each once (a cd
//     in either is refused: how many times it runs is not known);
//   - if COND; then A; elif C2; then B; else C; fi: every part, in order;
//   - time PIPELINE (bash's keyword): the pipeline.
//
// The joiners keep what the command policy needs from them: the body of
// a for or a while follows its condition with "&&", and an else branch
// follows with "||", so a cd inside may or may not reach what comes after
// (cwd.go). Every other compound command is refused (compound). Not in
// fish, whose loops and conditionals are written another way.

// Bounds of a flattened loop: what a person can still review.
const (
	maxLoopWords    = 32  // the words of one for loop, as written
	maxLoopCommands = 512 // the commands all loops of a line add
)

// LoopExpander expands the pattern of a for loop's words, pattern as in
// Pattern.Word, value the word as bash passes it when nothing matches,
// into the names bash would loop over, in the folder the line starts in.
// The command policy provides it, with the file system; an error refuses
// the loop.
type LoopExpander interface {
	ExpandLoop(value, pattern string) ([]string, error)
}

// Span is a range of a Script's commands, Start to End (excluded).
type Span struct{ Start, End int }

// binding is one loop variable and the value it has in the iteration
// being flattened.
type binding struct {
	name, value string
	split       bool // a for loop over $(LIST): ReadValue, unquoted too (lists.go)
}

// loop flattens c when it is a loop or conditional this file handles,
// and reports whether it did (it reports the problems it finds itself).
func (p *Parser) loop(c syntax.Command, joiner string, sub bool) bool {
	if p.strict || p.prof == Fish {
		return false
	}
	switch c := c.(type) {
	case *syntax.ForClause:
		return p.forLoop(c, joiner, sub)
	case *syntax.WhileClause:
		if p.readLoop(c, joiner, sub) {
			return true
		}
		start := len(p.cmds)
		p.stmts(c.Cond, joiner, sub)
		p.stmts(c.Do, "&&", sub)
		name := "while loop"
		if c.Until {
			name = "until loop"
		}
		for _, cmd := range p.cmds[start:] {
			if cmd.Argv[0] == "cd" {
				p.ps.add(classSyntax, "cd inside a "+name, p.src(c))
				break
			}
		}
		p.loopGrew(start, c)
		p.noteShellOnly(name)
		return true
	case *syntax.TestClause:
		p.testClause(c, joiner, sub)
		return true
	case *syntax.CaseClause:
		p.caseClause(c, joiner, sub)
		return true
	case *syntax.TimeClause:
		// time PIPELINE: the pipeline, timed; it runs what the pipeline
		// runs. A bare time times nothing.
		if c.Stmt == nil {
			return false
		}
		p.stmt(c.Stmt, joiner, sub)
		p.noteShellOnly("time keyword")
		return true
	case *syntax.IfClause:
		start := len(p.cmds)
		j := joiner
		for clause := c; clause != nil; clause = clause.Else {
			if len(clause.Cond) == 0 {
				// else: runs when the last condition failed.
				p.stmts(clause.Then, "||", sub)
				break
			}
			p.stmts(clause.Cond, j, sub)
			p.stmts(clause.Then, "&&", sub)
			j = "||"
		}
		p.loopGrew(start, c)
		p.noteShellOnly("if clause")
		return true
	}
	return false
}

// forLoop flattens a for loop over literal words.
func (p *Parser) forLoop(c *syntax.ForClause, joiner string, sub bool) bool {
	wi, ok := c.Loop.(*syntax.WordIter)
	if c.Select || !ok || !wi.InPos.IsValid() {
		// select reads the terminal; a C-style loop counts; for NAME
		// alone loops over the positional parameters.
		return false
	}
	name := wi.Name.Value
	if !loopName(name) {
		p.ps.add(classSyntax, "for loop variable that is not a lowercase name (it may be a variable the commands read from their environment)", name)
		return true
	}
	if p.forList(c, wi, joiner, sub) {
		return true
	}
	var words []string
	ok = true
	outer := p.patterns
	p.patterns, p.loopList = nil, true
	for _, w := range wi.Items {
		var wok bool
		words, wok = p.fields(words, w, false)
		ok = ok && wok
	}
	pats := p.patterns
	p.patterns, p.loopList = outer, false
	if !ok {
		return true
	}
	if len(words) > maxLoopWords {
		p.ps.add(classSyntax, "for loop over more than 32 words", p.src(c))
		return true
	}
	if len(pats) > 0 {
		if words, ok = p.loopNames(words, pats, c); !ok {
			return true
		}
	}
	if len(words) == 0 {
		// for NAME in; do ...: the body never runs, whatever it is (a
		// background job or not): the loop runs no command.
		p.ps.add(classEmpty, "for loop over no words", p.src(c))
		return true
	}
	start := len(p.cmds)
	j := joiner
	for _, v := range words {
		p.bound = append(p.bound, binding{name: name, value: v})
		p.stmts(c.Do, j, sub)
		p.bound = p.bound[:len(p.bound)-1]
		j = ";"
		if !p.loopGrew(start, c) {
			break
		}
	}
	if len(pats) > 0 {
		p.expanded = append(p.expanded, Span{start, len(p.cmds)})
	}
	p.noteShellOnly("for loop")
	return true
}

// loopNames replaces the patterns among a for loop's words (pats, their
// indexes in words) with the names Loops gives for them.
func (p *Parser) loopNames(words []string, pats []Pattern, c *syntax.ForClause) ([]string, bool) {
	if p.Loops == nil {
		p.ps.add(classDynamic, "unquoted pattern in a for loop's words (no folder to expand it in)", words[pats[0].Index])
		return nil, false
	}
	for _, cmd := range p.cmds {
		if cmd.Argv[0] == "cd" {
			p.ps.add(classDynamic, "for loop over a pattern after a cd (the folder it is expanded in is not known for certain)", p.src(c))
			return nil, false
		}
	}
	out := make([]string, 0, len(words)+8)
	next := 0
	for _, pt := range pats {
		out = append(out, words[next:pt.Index]...)
		names, err := p.Loops.ExpandLoop(words[pt.Index], pt.Word)
		if err != nil {
			p.ps.addItem(classDynamic, "for loop over a pattern that cannot be expanded here "+quote(words[pt.Index])+": "+err.Error())
			return nil, false
		}
		out = append(out, names...)
		next = pt.Index + 1
	}
	out = append(out, words[next:]...)
	if len(out) > MaxMatches {
		p.ps.add(classSyntax, "for loop over more than 256 names", p.src(c))
		return nil, false
	}
	return out, true
}

// loopGrew checks the bound on what loops add; false when it is passed.
func (p *Parser) loopGrew(start int, c syntax.Node) bool {
	p.loopAdded += len(p.cmds) - start
	if p.loopAdded > maxLoopCommands {
		p.ps.add(classSyntax, "loops that run more than 512 commands", p.src(c))
		p.loopAdded = -1 << 30 // reported once
		return false
	}
	return true
}

// loopName reports a loop variable the gate can bind: a lowercase name
// that no shell treats specially. A name in capitals may be exported (PATH,
// NODE_OPTIONS), and setting it changes what the loop's commands run; zsh
// ties path, fpath and others to its own settings.
func loopName(name string) bool {
	if name == "" || zshSpecial[name] {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return name != "_"
}

// zshSpecial are zsh's lowercase parameters with a meaning of their own.
var zshSpecial = map[string]bool{
	"path": true, "cdpath": true, "fpath": true, "manpath": true, "module_path": true, "mailpath": true,
	"psvar": true, "status": true, "pipestatus": true, "argv": true, "options": true, "commands": true,
	"aliases": true, "functions": true, "parameters": true, "history": true, "watch": true, "prompt": true,
	"fignore": true, "histchars": true, "signals": true, "dirstack": true, "builtins": true, "modules": true,
	"nameddirs": true, "userdirs": true, "jobstates": true, "jobtexts": true, "reply": true, "match": true,
	"mbegin": true, "mend": true, "funcstack": true, "widgets": true, "keymaps": true, "terminfo": true,
}

// boundValue is the value of a loop variable x names, if x is a plain
// $NAME or ${NAME} of one in scope, or the working folder $PWD names.
func (p *Parser) boundValue(x *syntax.ParamExp) (string, bool) {
	if x.Param == nil || !plainParam(x) {
		return "", false
	}
	for i := len(p.bound) - 1; i >= 0; i-- {
		if p.bound[i].name == x.Param.Value {
			return p.bound[i].value, true
		}
	}
	if x.Param.Value == "PWD" {
		return p.pwdValue()
	}
	return "", false
}

// pwdValue is what $PWD expands to, where $(pwd) would print it: the
// shell keeps PWD the folder it is in (every shell checks an inherited
// one against "."), so it is the working folder Values gives, until a cd
// or an export earlier in the line changes it (an assignment to it, a
// read into it, are refused on their own).
func (p *Parser) pwdValue() (string, bool) {
	if !p.valuesHold() || p.cdBefore() {
		return "", false
	}
	v, ok := p.Values.Value([]string{"pwd"})
	if !ok || !v.Cwd || v.Shape != nil || v.Text == "" || strings.ContainsAny(v.Text, "\n\x00") {
		return "", false
	}
	return v.Text, true
}

// boundWordOK reports whether the value v of a loop variable stands as
// written where x is: inside double quotes always; unquoted only when
// word splitting and pathname expansion leave it whole.
func (p *Parser) boundWordOK(x *syntax.ParamExp, v string) bool {
	if p.inDouble {
		return true
	}
	if v == ReadValue && p.splitBound(x.Param.Value) {
		// The names of a $(LIST) are split and expanded alike quoted or
		// not: the command policy admits none that either would change.
		return true
	}
	if v == ReadValue {
		p.ps.add(classDynamic, "unquoted read variable, whose line would be split or expanded (quote it)", p.src(x))
		return false
	}
	if v == "" || strings.ContainsAny(v, " \t\n*?[") {
		p.ps.add(classDynamic, "unquoted loop variable whose value would be split or expanded (quote it)", p.src(x))
		return false
	}
	return true
}
