package command

import (
	"fmt"

	"admit/policy/rule"
)

// The programs that list folders or look at a path's metadata.

// ls judges ls: its operands are listed (the current folder when there
// are none), and -L follows links only while it recurses.
func (j *judge) ls(w *words) {
	dironly := w.ps.has("dironly") != nil
	ops := w.ops
	if len(ops) == 0 {
		ops = []string{"."}
	}
	for _, o := range ops {
		w.add(access{word: o, what: "operand", mode: modeList, dironly: dironly})
	}
	if w.ps.has("recursive") != nil {
		w.follows(ops)
	}
}

// tree judges tree, which takes an option's value only as the next word.
func (j *judge) tree(w *words) {
	for _, u := range w.ps.opts {
		if u.opt != nil && u.opt.Arg != NoArg && u.attached {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of tree takes its value as the next word; write %s VALUE on its own", u.name, u.name), "")
			return
		}
	}
	ops := w.ops
	if len(ops) == 0 {
		ops = []string{"."}
	}
	for _, o := range ops {
		w.add(access{word: o, what: "operand", mode: modeList})
	}
	w.follows(ops)
}

// probe judges stat, file, readlink and realpath: they look at their
// operands' metadata, and at a final symlink itself unless told to follow
// it (realpath always does).
func (j *judge) probe(w *words) {
	nofollow := w.ps.has("nofollow-off") == nil && w.prog.Name != "realpath"
	for _, o := range w.ops {
		w.add(access{word: o, what: "operand", mode: modeProbe, nofollow: nofollow})
	}
}
