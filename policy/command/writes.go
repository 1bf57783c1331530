package command

// The write programs with rules of their own. mkdir, tee and chmod need
// none: their operands are all targets (plainOperands), and their table
// entries say what a target is meant to become (Program.intent).

// remove judges rm and rmdir: each operand is removed, the link itself
// and not what it leads to; rm -r needs the folder's listing observed.
func (j *judge) remove(w *words) {
	rec := w.ps.has("recursive") != nil
	for _, o := range w.ops {
		w.add(access{word: o, what: "operand", mode: modeWrite, nofollow: true, recursive: rec, target: true, op: OpRemove})
	}
}

// touch judges touch: each operand exists afterwards, or with -c keeps
// existing only if it did. "-" names standard output, which touch changes
// instead of a file.
func (j *judge) touch(w *words) {
	nofollow := w.ps.has("nofollow") != nil
	op := OpCreate
	if hasName(&w.ps, "-c") || hasName(&w.ps, "--no-create") {
		op = OpUpdate
	}
	for _, o := range w.ops {
		a := access{word: o, what: "operand", mode: modeWrite, nofollow: nofollow, target: true, op: op}
		if o == "-" {
			a.op = OpNone
		}
		w.add(a)
	}
}
