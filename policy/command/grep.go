package command

import (
	"fmt"
	"strings"

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
		w.skip.shows = searchShows(ps, w.ops[:w.first], "-v --invert-match")
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
		w.skip.shows = searchShows(&w.ps, w.ops[:w.first], "-v --invert-match --passthru --passthrough -f --file -E --encoding")
	}
	for _, o := range files {
		w.add(access{word: o, what: "operand", mode: modeRead})
	}
	w.follows(files)
}

// searchShows are the strings one of which a line must hold for grep or
// rg to print it, in lower case: the search's patterns (-e's, or first),
// each a fixed string (-F) or alternatives (a|b) made only of characters
// that every dialect of regular expression reads as themselves. nil (any line may
// be printed) when one is not, when one is empty, or when an option
// anyLine names is given (an inverted search, patterns from a file).
func searchShows(ps *parsed, first []string, anyLine string) []string {
	patterns := append(optionValues(ps, "-e --regexp"), first...)
	if len(patterns) == 0 || printsNoText(ps, anyLine) {
		return nil
	}
	fixed := printsNoText(ps, "-F --fixed-strings")
	var shows []string
	for _, p := range patterns {
		for _, line := range strings.Split(p, "\n") { // grep reads each line as a pattern
			alts := []string{line}
			if !fixed {
				// a|b: either, in the extended dialects; in the basic
				// one "a|b" itself, a line holding which holds a.
				alts = strings.Split(line, "|")
			}
			for _, a := range alts {
				if a == "" || !fixed && strings.ContainsFunc(a, notLiteral) || strings.ContainsFunc(a, notPrintable) {
					return nil
				}
				shows = append(shows, strings.ToLower(a))
			}
		}
	}
	return shows
}

// notLiteral reports whether a regular expression (basic, extended,
// Perl's or Rust's) may read r as more than itself.
func notLiteral(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(" _-:=,/@#%'\"<>!&;~", r))
}

// notPrintable reports whether r is outside printable ASCII.
func notPrintable(r rune) bool { return r < ' ' || r > '~' }
