package command

import (
	"fmt"

	"admit/policy/rule"
)

// grep judges grep (egrep, fgrep): its files after the pattern, the
// current folder when it recurses without any, and -R following links.
func (j *judge) grep(w *words) {
	ps := &w.ps
	rec := ps.has("recursive") != nil || ps.has("follow") != nil
	if u := ps.has("directories"); u != nil {
		switch u.value {
		case "recurse":
			rec = true
		case "read", "skip":
		default:
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("value %q of grep %s is not one of read, skip, recurse", u.value, u.name), "")
			return
		}
	}
	if u := ps.has("devices"); u != nil && u.value != "skip" {
		// grep skips the FIFOs, sockets and devices it finds while it
		// recurses, unless told to read them; a FIFO blocks until some
		// process writes it.
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("grep %s %s reads FIFOs, sockets and devices, which the policy does not read (a FIFO may block forever)", u.name, u.value), "leave out "+u.name+", or give it skip")
		return
	}
	files := w.files()
	if rec && len(files) == 0 {
		files = []string{"."}
	}
	w.skip = walkSkips{git: true, modules: true} // a folder named without -r is not read
	if rec {
		j.askSecretFilter("grep", optionValues(ps, "--include"))
		w.skip, w.walks = grepSkips(ps), true
	}
	for _, o := range files {
		w.add(access{word: o, what: "operand", mode: modeRead})
	}
	w.follows(files)
}

// rg judges ripgrep: it always walks folders, the current one when no
// path is given.
func (j *judge) rg(w *words) {
	files := w.files()
	if w.ps.has("files") != nil {
		files = w.ops // --files takes no pattern: every operand is a folder to list
	}
	if len(files) == 0 {
		files = []string{"."}
	}
	w.skip = walkSkips{git: true, modules: true} // --files prints names only
	if w.ps.has("files") == nil {
		j.askSecretFilter("rg", optionValues(&w.ps, "-g --glob --iglob"))
		w.skip, w.walks = rgSkips(&w.ps), true
	}
	for _, o := range files {
		w.add(access{word: o, what: "operand", mode: modeRead})
	}
	w.follows(files)
}
