package command

import (
	"fmt"
	"slices"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// A list of names, COMMAND $(LIST) or for f in $(LIST), where the host's
// shell runs the line (shell.Parser.Lists): LIST is a command of the
// line, and COMMAND is judged as a while read loop's command is, with
// each name standing as runtimeName, when LIST prints names of a walk
// the policy judged (namePrinter, one a line). The shells differ in what
// they make of the output: bash splits it at blanks and expands each word
// as a pattern, zsh splits it and expands it only with GLOB_SUBST (then
// also a leading "=" or "~"), fish splits it at newlines alone. So the
// names are taken only where none under the walk holds what any of them
// would split at or expand (SplitNames reports those too) and none would
// be read as an option: then every shell hands COMMAND the same names,
// as LIST | xargs COMMAND would.

// patternChars are what bash (extglob included) or zsh with GLOB_SUBST
// and EXTENDED_GLOB read as a pattern in a word an expansion gave.
const patternChars = "*?[]()<>|^#~"

// listedNames checks the names of argv's $(LIST) (rl.Split):
// LIST, a command of the line, prints names of the workspace one a line,
// and namesWhole.
func (j *judge) listedNames(argv []string, rl *shell.ReadLoop) bool {
	if rl.Producer < 0 || rl.Producer >= len(j.line) {
		j.refuse(rule.DynamicWord, fmt.Sprintf("%s takes the words of a $(...) the gate cannot find", argv[0]), "name the files")
		return false
	}
	producer := j.line[rl.Producer].Argv
	name := innerProgram(producer)
	if !namePrinter(name, producer, false) {
		// As xargs without -0 is judged: its words could be any text.
		j.refuse(rule.DynamicWord, fmt.Sprintf("%s takes the words of a $(...) of %s, whose output is not only names of the workspace, one a line", argv[0], name),
			"use git ls-files, git diff --name-only, find (printing) or ls inside $(...), or name the files")
		return false
	}
	return j.namesWhole(argv, name, j.walked(producer), rl)
}

// afterDashes reports whether every name a loop or a list gives argv
// stands after a "--" that ends its options (endsOptions), where a program
// reads none.
func (j *judge) afterDashes(argv []string) bool {
	dash := slices.Index(argv, "--")
	return dash > 0 && j.endsOptions(argv, dash) && !slices.Contains(argv[1:dash], shell.ReadValue)
}

// endsOptions reports whether argv[d], a "--", surely ends the options
// rather than being an option's value: sort -o -- writes a file named
// "--" and reads the names after it as options. The word before must be
// the program's name, no option, a --name=value, or an option argv[0]'s
// table knows takes no value there (wc -l --); an option it does not know
// fails closed.
func (j *judge) endsOptions(argv []string, d int) bool {
	if d < 1 || d >= len(argv) || argv[d] != "--" {
		return false
	}
	prev := argv[d-1]
	if d == 1 || !strings.HasPrefix(prev, "-") || prev == "-" {
		return true
	}
	p := j.p.progs[argv[0]]
	if p == nil {
		return false
	}
	ix := p.index()
	if ix.err != nil {
		return false
	}
	if long, ok := strings.CutPrefix(prev, "--"); ok {
		if strings.Contains(long, "=") {
			return true
		}
		o := ix.long[long]
		return o != nil && (o.Arg == NoArg || o.Arg == OptionalArg)
	}
	for k := 1; k < len(prev); k++ {
		o := ix.short[prev[k]]
		if o == nil {
			return false
		}
		if o.Arg != NoArg && o.Arg != OptionalArg {
			return k+1 < len(prev) // -n5: the value attached
		}
	}
	return true
}
