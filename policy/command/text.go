package command

import (
	"fmt"
	"strings"

	"admit/policy/rule"
)

// The text tools whose operands have meanings of their own.

// printf judges printf: only -v, which assigns a shell variable, matters.
func (j *judge) printf(prog *Program, argv []string) {
	if len(argv) > 1 && strings.HasPrefix(argv[1], "-v") {
		j.refuse(rule.ForbiddenFlag, "option \"-v\" of printf assigns a shell variable; print to standard output instead", "")
	}
}

// uniq judges uniq [INPUT [OUTPUT]]: the output operand is written.
func (j *judge) uniq(w *words) {
	ops := w.ops
	if len(ops) > 2 {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("uniq takes at most an input and an output file, got extra operand %q", ops[2]), "")
		return
	}
	if len(ops) > 0 {
		w.add(access{word: ops[0], what: "input", mode: modeRead})
	}
	if len(ops) > 1 && ops[1] != "-" {
		w.add(access{word: ops[1], what: "output operand", mode: modeWrite, op: OpChange})
	}
}

// cmp judges cmp FILE1 [FILE2 [SKIP1 [SKIP2]]]: the skips are numbers.
func (j *judge) cmp(w *words) {
	for i, o := range w.ops {
		if i < 2 {
			w.add(access{word: o, what: "operand", mode: modeRead})
		}
	}
}

// diff judges diff: it reads its operands, and -r follows links unless
// --no-dereference is given.
func (j *judge) diff(w *words) {
	for _, o := range w.ops {
		w.add(access{word: o, what: "operand", mode: modeRead})
	}
	if !hasName(&w.ps, "--no-dereference") {
		w.follows(w.ops)
	}
}

// date judges date, which only prints: one +FORMAT operand (any other
// sets the system clock, date MMDDhhmm), and -r looks at a file's time.
func (j *judge) date(w *words) {
	for i, o := range w.ops {
		if i > 0 || !strings.HasPrefix(o, "+") {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("date operand %q is not a +FORMAT: date takes one +FORMAT, and other operands set the system clock", o),
				"give the format as +FORMAT and the date to show with -d")
			return
		}
	}
	// -r only looks at the file's time: a probe, not a read. Every -r is
	// judged, not only the last one date uses.
	for _, u := range w.ps.opts {
		if u.opt != nil && u.opt.Mark == "reference" {
			w.add(access{word: u.value, what: "option " + u.name, mode: modeProbe})
		}
	}
}

// names judges which and type: their operands are program names, and a
// name with a slash is a path (which /etc/x would probe it).
func (j *judge) names(w *words) {
	for _, o := range w.ops {
		if strings.Contains(o, "/") {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s takes program names; %q is a path", w.prog.Name, o), "give the program's name")
			return
		}
	}
}

// noOperands judges uname, whoami and id, which take no operands.
func (j *judge) noOperands(w *words) {
	if len(w.ops) == 0 {
		return
	}
	why := "takes no operands"
	if w.prog.Name == "id" {
		why = "looks another user up in the system's user database, outside the workspace; run id without a user"
	}
	j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s %s, got operand %q", w.prog.Name, why, w.ops[0]), "")
}
