package command

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
)

// Commands run on names only known when the line runs: find -exec PROG
// {} \; (or +), find -execdir, and xargs PROG fed by a command that
// prints names. PROG and its arguments are judged as ever, with each name
// standing as an operand (runtimeName): a name is read, listed or probed
// as the program would, so a program that changes its operands (rm, mv,
// sed -i) is refused, since a change needs its targets named. The names
// are known to be inside the workspace only when they come from a walk
// the policy judged (find's starting folders, git ls-files, grep -l, rg
// --files), never through a symlink that leads outside (the workspace's
// links are looked for, as for -L), and, for xargs, only separated by NUL
// bytes (xargs -0 with find -print0, git -z, grep -Z, rg -0): split at
// blanks, a file named "a /home/u/.ssh/id_rsa" would be three names.

// namesCommand judges inner, a command find or xargs runs on names, in
// the command's folder; by names the program that runs it, for reasons.
// It reports whether inner reads the names (namesRead).
func (j *judge) namesCommand(by string, inner []string, starts []string) bool {
	j.namesRead = false
	if len(inner) == 0 {
		j.refuse(rule.NoTarget, by+" names no command to run", "")
		return false
	}
	if p := j.p.progs[inner[0]]; p != nil && p.Write && !strings.Contains(inner[0], "/") {
		j.refuse(rule.NoTarget, fmt.Sprintf("%s would run %s on names only known when it runs, and a change needs its targets named", by, inner[0]),
			"list the files first, then run "+inner[0]+" on them by name")
		return false
	}
	if j.c.FS != nil {
		for _, d := range starts {
			r, ok := j.quietResolve(d)
			if !ok || !r.Dir {
				continue
			}
			if links := j.c.FS.LinksOutside(r.Path); len(links) > 0 {
				j.refuse(rule.DynamicWord, fmt.Sprintf("%s runs %s on the names a walk of %q finds, and %q there is a symlink that leads outside the workspace, so a name could lead there", by, inner[0], d, links[0]),
					"name the files explicitly")
				return false
			}
		}
	}
	j.program(inner, 1)
	return j.namesRead
}

// findExec reads the command of a find -exec or -execdir primary from
// args (after the primary), up to its ";" or "+": each word holding {}
// is a name. It returns the command and how many words it took; ok is
// false when refused.
func (j *judge) findExec(primary string, args []string) ([]string, int, bool) {
	end := -1
	for k, a := range args {
		if a == ";" || (a == "+" && k > 0 && args[k-1] == "{}") {
			end = k
			break
		}
	}
	if end < 0 {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("find %s needs its command ended by \";\" (or \"{} +\")", primary), "")
		return nil, 0, false
	}
	inner := make([]string, 0, end)
	for _, w := range args[:end] {
		switch {
		case strings.Contains(w, "{}"):
			inner = append(inner, runtimeName)
		case primary == "-execdir" && pathLike(w):
			j.refuse(rule.DynamicWord, fmt.Sprintf("find -execdir runs its command in each file's folder, so %q would name a different path for each", w),
				"use -exec, whose command runs in find's folder")
			return nil, 0, false
		default:
			inner = append(inner, w)
		}
	}
	return inner, end + 1, true
}

// xargsOpts are xargs's options: the value each takes ("" none, "v" a
// value, "o" an optional value attached only).
var xargsOpts = map[string]string{
	"0": "", "null": "", "r": "", "no-run-if-empty": "", "t": "", "verbose": "", "x": "", "exit": "", "show-limits": "",
	"n": "v", "max-args": "v", "L": "v", "max-lines": "v", "l": "o", "P": "v", "max-procs": "v", "s": "v", "max-chars": "v",
	"process-slot-var": "v", "I": "v", "i": "o", "replace": "o", "d": "v", "delimiter": "v", "E": "v", "e": "o", "eof": "o",
	"a": "v", "arg-file": "v", "p": "", "interactive": "", "o": "", "open-tty": "",
}

// xargs judges xargs [OPTIONS] [PROG ARGS...]: its options (parsed as
// getopt does, clusters included), where its names come from, and PROG
// with the names as operands.
func (j *judge) xargs(_ *Program, argv []string) {
	null, replace := false, ""
	type opt struct{ name, value string }
	var opts []opt
	i := 1
args:
	for ; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			i++
			break args
		case !strings.HasPrefix(a, "-") || a == "-":
			break args
		case strings.HasPrefix(a, "--"):
			name, value, attached := strings.Cut(a[2:], "=")
			if (name == "version" || name == "help") && !attached {
				return // GNU xargs prints and exits as it parses it: no command runs
			}
			kind, ok := xargsOpts[name]
			if !ok || len(name) == 1 {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of xargs is not in the accepted options", "--"+name), "")
				return
			}
			if kind == "v" && !attached {
				if i+1 >= len(argv) {
					j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of xargs needs a value", "--"+name), "")
					return
				}
				i++
				value = argv[i]
			}
			opts = append(opts, opt{name, value})
		default:
			for k := 1; k < len(a); k++ {
				name := string(a[k])
				kind, ok := xargsOpts[name]
				if !ok {
					j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of xargs is not in the accepted options", "-"+name), "")
					return
				}
				if kind == "" {
					opts = append(opts, opt{name, ""})
					continue
				}
				value := a[k+1:]
				if value == "" && kind == "v" {
					if i+1 >= len(argv) {
						j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of xargs needs a value", "-"+name), "")
						return
					}
					i++
					value = argv[i]
				}
				opts = append(opts, opt{name, value})
				break
			}
		}
	}
	for _, o := range opts {
		switch o.name {
		case "0", "null":
			null = true
		case "I", "i", "replace":
			replace = o.value
			if replace == "" {
				replace = "{}"
			}
		case "d", "delimiter":
			if o.value != `\0` && o.value != "\x00" {
				j.refuse(rule.DynamicWord, fmt.Sprintf("xargs -d %q splits names at a character a file name may hold", o.value), "use find -print0 | xargs -0")
				return
			}
			null = true
		case "a", "arg-file":
			j.refuse(rule.DynamicWord, "xargs --arg-file reads the names from a file, which the gate cannot read to judge them", "name the files, or use find -exec")
			return
		case "p", "interactive", "o", "open-tty":
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of xargs asks on the terminal", o.name), "leave it out")
			return
		}
	}
	inner := slices.Clone(argv[i:])
	if len(inner) == 0 {
		inner = []string{"echo"}
	}
	if !j.namesFromWalk(null) {
		return
	}
	if !j.namesNotOptions(inner, replace) {
		return
	}
	if replace != "" {
		for k := 1; k < len(inner); k++ {
			if strings.Contains(inner[k], replace) {
				inner[k] = runtimeName
			}
		}
	} else {
		inner = append(inner, runtimeName)
	}
	producer := j.line[j.cmd-1].Argv
	j.namesSecretFilter("xargs "+inner[0], producer)
	if j.namesCommand("xargs", inner, j.walked(producer)) {
		j.namesWalkSecrets("xargs "+inner[0], producer)
	}
}

// walked are the folders producer, a command that prints names, walks:
// find's starting folders, else every root.
func (j *judge) walked(producer []string) []string {
	if path.Base(producer[0]) != "find" {
		return j.c.Roots // git ls-files, grep -r, rg: whatever folders they name
	}
	var starts []string
	for _, a := range producer[1:] {
		switch {
		case a == "-H" || a == "-L" || a == "-P":
			continue
		case strings.HasPrefix(a, "-") || a == "(" || a == "!":
		default:
			starts = append(starts, a)
			continue
		}
		break
	}
	if len(starts) == 0 {
		return []string{"."}
	}
	return starts
}

// namesFromWalk checks that xargs reads NUL-separated names from a pipe
// fed by a command that prints names of the workspace.
func (j *judge) namesFromWalk(null bool) bool {
	src, _ := j.stdinOf()
	if src != "pipe" || j.cmd == 0 || j.cmd-1 >= len(j.line) || !j.line[j.cmd].Fed {
		j.refuse(rule.DynamicWord, "xargs reads the names it runs its command on from standard input, which here is no command of the line that prints names of the workspace",
			"use find ... -exec PROG {} +, or find ... -print0 | xargs -0 PROG")
		return false
	}
	producer := j.line[j.cmd-1].Argv
	name := innerProgram(producer)
	if !namePrinter(name, producer, null) {
		sep := "separated by NUL bytes"
		if !null {
			sep = "one a line"
		}
		j.refuse(rule.DynamicWord, fmt.Sprintf("xargs takes its names from %s, whose output is not only names of the workspace %s", name, sep),
			"use find -print0, git ls-files -z, grep -lZ or rg -l0 before xargs -0, or find -exec")
		return false
	}
	if !null {
		if odd := j.splitName(j.walked(producer)); odd != "" {
			j.refuse(rule.DynamicWord, fmt.Sprintf("xargs without -0 splits its input at blanks and reads quotes in it, and %q is a name it would not take whole (a file named \"a /home/u/.ssh/id_rsa\" gives a name outside the workspace)", odd),
				"print the names NUL-separated and use xargs -0")
			return false
		}
	}
	return true
}

// splitName is a name under the folders starts that xargs without -0
// would split or read quotes in, or a start folder written so; "" when
// there is none, so that its input means what -0's would. Without a
// file system to look in, every name is taken as one.
func (j *judge) splitName(starts []string) string {
	if j.c.FS == nil {
		return "(names not known)"
	}
	for _, d := range starts {
		if strings.ContainsAny(d, splitChars) {
			return d
		}
		r, ok := j.quietResolve(d)
		if !ok || !r.Dir {
			continue
		}
		if by := j.namesChangedBy(r.Path); by != "" {
			return "(names written by " + by + ")"
		}
		for _, n := range j.c.FS.SplitNames(r.Path) {
			// xargs expands no pattern: only what it splits at counts (the
			// bound's sentinel holds blanks).
			if strings.ContainsAny(path.Base(n), splitChars) || !strings.HasPrefix(n, r.Path+"/") {
				return n
			}
		}
	}
	return ""
}

// splitChars are what xargs without -0 splits a name at, or reads as
// quoting.
const splitChars = " \t\n\v\f\r'\"\\"

// namePrinter reports a producer that prints only names of the
// workspace: find (without -printf or -ls), git ls-files (and git diff
// --name-only, git grep -l), grep -l, rg -l or --files, ls (one a line,
// lsPrintsNames). With nul, they
// must be NUL-separated (find -print0, git -z, grep -Z, rg -0), as xargs
// -0 reads them; without, one a line, as a command substitution's output
// is read (substitute.go).
func namePrinter(name string, argv []string, nul bool) bool {
	has := func(words ...string) bool {
		for _, w := range argv[1:] {
			if slices.Contains(words, w) {
				return true
			}
		}
		return false
	}
	// What a command substitution splits at blanks: NUL bytes are dropped,
	// so -z names would run together.
	sep := func(words ...string) bool { return has(words...) == nul }
	switch name {
	case "find":
		if nul {
			return has("-print0") && !has("-printf", "-fprintf", "-ls", "-fls", "-print", "-fprint", "-fprint0", "-L", "-follow")
		}
		// -exec and -delete print nothing of their own, but are not a walk
		// that only prints.
		return !has("-print0", "-printf", "-fprintf", "-ls", "-fls", "-fprint", "-fprint0", "-L", "-follow", "-exec", "-execdir", "-ok", "-okdir", "-delete")
	case "git":
		return len(argv) > 1 && (argv[1] == "ls-files" || argv[1] == "diff" && has("--name-only") || argv[1] == "grep" && has("-l", "--name-only", "--files-with-matches")) &&
			sep("-z") && !has("--format", "-s", "--stage", "-t", "--debug", "--eol")
	case "grep", "egrep", "fgrep":
		return (has("-l", "-L", "--files-with-matches", "--files-without-match") || clusterHas(argv, 'l')) && (has("-Z", "--null") || clusterHas(argv, 'Z')) == nul
	case "rg":
		return (has("-l", "--files", "--files-with-matches", "--files-without-match") || clusterHas(argv, 'l')) && (has("-0", "--null") || clusterHas(argv, '0')) == nul && !has("-L", "--follow")
	case "ls":
		return !nul && lsPrintsNames(argv)
	}
	return false
}

// lsPrintsNames reports an ls whose output into a pipe is names one a
// line, as they are: only options that sort (-1, -A, -r, -t, -S, -X,
// -v, -U), never -a (. and .. would be names), -R (headers), -l, -F or
// -p (marks after names), -Q or -b (quoting), --color (escapes).
func lsPrintsNames(argv []string) bool {
	for _, w := range argv[1:] {
		if w == "--" {
			return true
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			continue
		}
		if strings.HasPrefix(w, "--") || strings.Trim(w[1:], "1ArtSXvU") != "" {
			return false
		}
	}
	return true
}

// clusterHas reports a short-option cluster of argv holding c (-lZ).
func clusterHas(argv []string, c byte) bool {
	for _, w := range argv[1:] {
		if len(w) > 2 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w[1:], c) >= 0 {
			return true
		}
	}
	return false
}

// namesNotOptions refuses xargs when a name it hands its command could be
// read as an option, as a pattern's is (shell.ErrOptionName): a
// committed file named "--compress-program=sh" that git ls-files prints
// makes sort run sh. find prints every name under the folder it starts
// from ("./-S1"), and a name after "--" is an operand; otherwise the
// folders the producer walks must hold no name starting with "-".
func (j *judge) namesNotOptions(inner []string, replace string) bool {
	producer := j.line[j.cmd-1].Argv
	if path.Base(innerProgram(producer)) == "find" {
		return true
	}
	dash := slices.Index(inner, "--")
	if dash > 0 && !j.endsOptions(inner, dash) {
		dash = -1 // sort -o --: the value of -o, the names after it options
	}
	exposed := dash < 0
	if replace != "" {
		exposed = false
		for k := 1; k < len(inner) && (dash < 0 || k < dash); k++ {
			if strings.HasPrefix(inner[k], replace) {
				exposed = true
			}
		}
	}
	if !exposed {
		return true
	}
	if j.c.FS == nil {
		j.refuse(rule.DynamicWord, "xargs hands its command names that could start with \"-\", and without a file system to look in the gate cannot tell", "put \"--\" before the names: xargs -0 "+inner[0]+" --")
		return false
	}
	for _, d := range j.walked(producer) {
		r, ok := j.quietResolve(d)
		if !ok || !r.Dir {
			continue
		}
		if by := j.namesChangedBy(r.Path); by != "" {
			j.refuse(rule.DynamicWord, fmt.Sprintf("xargs hands %s the names %s prints, and %s changes the files there first, so which names it prints (one starting with \"-\", read as an option) is only known when it runs", inner[0], innerProgram(producer), by),
				"run that command as a line of its own, then the one with xargs; or put \"--\" before the names (xargs -0 "+inner[0]+" --)")
			return false
		}
		if names := j.c.FS.OptionNames(r.Path); len(names) > 0 {
			j.refuse(rule.DynamicWord, fmt.Sprintf("xargs hands %s the names %s prints, and %q starts with \"-\": %s would read it as an option, as it would a pattern's", inner[0], innerProgram(producer), names[0], inner[0]),
				"put \"--\" before the names (xargs -0 "+inner[0]+" --), or use find, whose names start with its folder")
			return false
		}
	}
	return true
}

// namesChangedBy names a command of the line that changes the files
// under dir before (or while) the command feeding xargs lists them: a
// write there, or a git command that changes the working tree (git
// checkout of a branch with other files), or "". The names the gate reads
// in dir now are then not the ones xargs is handed.
func (j *judge) namesChangedBy(dir string) string {
	under := func(p string) bool { return p == dir || strings.HasPrefix(p, dir+"/") || strings.HasPrefix(dir, p+"/") }
	for _, w := range j.acc.written {
		if j.writesBefore(w) && w.cmd != j.cmd-1 && under(w.path) && !j.plainWrite(w) {
			return fmt.Sprintf("the write of %q", w.word)
		}
	}
	for _, t := range j.acc.treeChanged {
		if t.cmd != j.cmd && under(t.path) {
			return fmt.Sprintf("%s (at %s)", t.by, t.word)
		}
	}
	return ""
}

// plainWrite reports a write that adds no name xargs could misread: a
// file whose name neither starts with "-" nor holds what xargs without -0
// splits at, by a command that is no archive's (tar -x, unzip bring
// names of their own below the path written).
func (j *judge) plainWrite(w lineWrite) bool {
	base := path.Base(w.path)
	if strings.HasPrefix(base, "-") || strings.ContainsAny(base, splitChars) || w.cmd < 0 || w.cmd >= len(j.line) {
		return false
	}
	switch path.Base(innerProgram(j.line[w.cmd].Argv)) {
	case "tar", "bsdtar", "unzip", "7z", "7za", "cpio", "pax", "ar", "rsync", "git", "curl", "wget":
		return false
	}
	return true
}
