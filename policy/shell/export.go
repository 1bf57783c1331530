package shell

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// export NAME=value (literal values, as before a command) is passed on as
// what it is: a command "export NAME=value ..." the command policy judges
// (what a variable changes can reach past the line in a shell that lives
// on), and the variables in the environment of every later command of the
// same shell, each judged as NAME=value written before it (Command.Env).
// A pipeline's side, a ( ) group and a background job are subshells,
// whose exports end with them; an export inside && or || is taken to have
// run. cd gets none: it is a builtin, and the policy refuses a variable
// that would move it. Any other form (export alone, -p, -n, -f, a name
// without a value) stays refused with the other declaration builtins, and
// so does export in the refuse profile and in fish.

// export handles c when it is an export this file reads, and reports
// whether it did (it reports the problems of its values itself).
func (p *Parser) export(c *syntax.DeclClause, joiner string, sub bool) bool {
	if p.strict || p.prof == Fish || c.Variant == nil || c.Variant.Value != "export" || len(c.Args) == 0 {
		return false
	}
	for _, a := range c.Args {
		if a.Naked || a.Name == nil {
			return false
		}
	}
	argv := []string{"export"}
	ok := true
	for _, a := range c.Args {
		v, aok := p.assignValue(a)
		ok = ok && aok
		argv = append(argv, a.Name.Value+"="+v)
	}
	if !ok {
		return true
	}
	p.cmds = append(p.cmds, Command{Argv: argv, Joiner: joiner, Subshell: sub})
	p.exported = slices.Concat(p.exported, argv[1:])
	p.noteShellOnly("export")
	return true
}

// keepExports saves the exports in scope, for a subshell: the function it
// returns puts them back when the subshell ends.
func (p *Parser) keepExports() func() {
	saved := p.exported
	return func() { p.exported = saved }
}
