package command

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// judge judges the simple commands of one script in one working folder.
type judge struct {
	p      *Policy
	c      *Context
	cwd    string
	acc    *accum
	argv   bool   // an argv without a shell: "~" is expanded here
	cmd    int    // the index of the command in its script
	newCwd string // set by cd
	globs  []int  // argv indexes of --opt=PATTERN words (shell.Command.GlobOptions)
}

// access modes: what a command does with a path.
const (
	modeRead  = iota // reads the file's contents
	modeProbe        // looks at the path's metadata (stat, test -f, readlink)
	modeList         // lists the folder
	modeWrite        // creates, changes or removes it
)

// access is one path a command would open, and how.
type access struct {
	word      string // as written
	what      string // what named it, for reasons: "operand", "option -o", "redirection >"
	mode      int
	nofollow  bool // the program acts on a final symlink itself (rm, mv, stat)
	recursive bool // rm -r: the folder's listing must have been observed
	dironly   bool // ls -d: the folder is not listed
	target    bool // a change target of a write program (not a redirection)
}

// command judges one simple command and its redirections.
func (j *judge) command(argv []string, redirs []shell.Redirect, depth int) {
	j.program(argv, depth)
	for _, r := range redirs {
		if j.acc.refused {
			return
		}
		j.redirect(r)
	}
}

func (j *judge) refuse(r rule.Rule, reason, hint string) { j.acc.refuse(r, reason, hint) }

// wrote notes that the command changes files.
func (j *judge) wrote() {
	j.acc.write = true
	if !slices.Contains(j.acc.writers, j.cmd) {
		j.acc.writers = append(j.acc.writers, j.cmd)
	}
}

// program judges argv (without redirections).
func (j *judge) program(argv []string, depth int) {
	if len(argv) == 0 || argv[0] == "" {
		j.refuse(RuleEmptyCommand, "the command has no program name", "")
		return
	}
	name := argv[0]
	if strings.ContainsRune(name, '/') {
		j.refuse(RuleUnsupported, fmt.Sprintf("program %q is given as a path; only programs named by their bare name from the policy table run", name),
			"name the program without a folder, e.g. "+path.Base(name))
		return
	}
	if name == "cd" {
		j.cd(argv[1:])
		return
	}
	prog := j.p.progs[name]
	if prog == nil {
		j.refuse(RuleUnsupported, fmt.Sprintf("program %q is not in the policy's program table", name),
			"supported programs: "+j.p.names)
		return
	}
	if len(j.globs) > 0 && (prog.Wrapper || depth > 0 || ownParser(prog.rules)) {
		j.refuseGlobs(argv)
		return
	}
	if prog.Wrapper {
		j.wrapper(prog, argv, depth)
		return
	}
	switch prog.rules {
	case "git":
		j.git(argv)
		return
	case "find":
		j.find(argv)
		return
	case "test":
		j.test(argv)
		return
	case "printf":
		if len(argv) > 1 && strings.HasPrefix(argv[1], "-v") {
			j.refuse(RuleForbiddenFlag, "option \"-v\" of printf assigns a shell variable; print to standard output instead", "")
		}
		return
	}
	ps, err := parseArgs(prog, argv[1:], false)
	if err != nil {
		j.refuse(RuleForbiddenFlag, err.reason, "leave the option out, or use an accepted one (see "+name+" --help)")
		return
	}
	if !j.globsAreText(argv, ps) {
		j.refuseGlobs(argv)
		return
	}
	j.generic(prog, ps)
}

// ownParser reports whether a program's arguments are read by its own
// rules rather than the option table: no option-value pattern is judged
// there.
func ownParser(rules string) bool {
	return rules == "git" || rules == "find" || rules == "test" || rules == "printf"
}

// globsAreText reports whether every --opt=PATTERN word of argv is an
// option whose value is text (grep --include=*.go): bash may replace such a
// word only by file names that start with the same --opt=, so the value
// may change at run time but the option does not, and a text value reads
// and writes nothing.
func (j *judge) globsAreText(argv []string, ps parsed) bool {
	for _, i := range j.globs {
		if i <= 0 || i >= len(argv) {
			return false
		}
		found := false
		for _, u := range ps.opts {
			if u.opt != nil && u.attached && u.name+"="+u.value == argv[i] {
				found = u.opt.Arg == TextArg
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// refuseGlobs refuses a command with a pattern in an option value the
// policy cannot judge as text.
func (j *judge) refuseGlobs(argv []string) {
	var words []string
	for _, i := range j.globs {
		if i >= 0 && i < len(argv) {
			words = append(words, strconv.Quote(argv[i]))
		}
	}
	j.refuse(RuleDynamicWord, fmt.Sprintf("unquoted pattern in %s: bash would expand it against the files present when the command runs, and here it is not an option that takes text", strings.Join(words, ", ")),
		"quote the pattern ('--include=*.go') so the program, not the shell, matches it")
}

// refusedOption refuses the first option ps uses that the table refuses.
func (j *judge) refusedOption(prog *Program, ps *parsed) bool {
	for _, u := range ps.opts {
		if u.opt != nil && u.opt.Refuse != "" {
			j.refuse(RuleForbiddenFlag, fmt.Sprintf("option %q of %s is refused: it %s", u.name, prog.Name, u.opt.Refuse), "leave out "+u.name)
			return true
		}
	}
	return false
}

// optionAccesses lists the paths the parsed options read and write. A
// write option marked "target" (cp -t) names where operands go and is
// judged with them when skipTargets is set.
func optionAccesses(ps parsed, skipTargets bool) []access {
	var acs []access
	for _, u := range ps.opts {
		if u.opt == nil {
			continue
		}
		switch {
		case u.opt.Arg == ReadArg:
			acs = append(acs, access{word: u.value, what: "option " + u.name, mode: modeRead})
		case u.opt.Arg == WriteArg && !(skipTargets && u.opt.Mark == "target"):
			acs = append(acs, access{word: u.value, what: "option " + u.name, mode: modeWrite})
		}
	}
	return acs
}

// generic judges a program by its table entry and its built-in rules.
func (j *judge) generic(prog *Program, ps parsed) {
	if j.refusedOption(prog, &ps) {
		return
	}
	acs := optionAccesses(ps, true)
	ops := ps.operands
	first := 0
	if prog.FirstOperand != nil && len(ops) > 0 && ps.has("pattern") == nil {
		first = 1
		if *prog.FirstOperand == ReadOperands {
			acs = append(acs, access{word: ops[0], what: "operand", mode: modeRead})
		}
	}
	var follow []string // folders walked while following symlinks
	followOpt := ""
	switch prog.rules {
	case "uniq":
		if len(ops) > 2 {
			j.refuse(RuleForbiddenFlag, fmt.Sprintf("uniq takes at most an input and an output file, got extra operand %q", ops[2]), "")
			return
		}
		if len(ops) > 0 {
			acs = append(acs, access{word: ops[0], what: "input", mode: modeRead})
		}
		if len(ops) > 1 && ops[1] != "-" {
			acs = append(acs, access{word: ops[1], what: "output operand", mode: modeWrite})
		}
	case "cmp":
		for i, o := range ops {
			if i < 2 {
				acs = append(acs, access{word: o, what: "operand", mode: modeRead})
			}
		}
	case "grep":
		rec := ps.has("recursive") != nil || ps.has("follow") != nil
		if u := ps.has("directories"); u != nil {
			switch u.value {
			case "recurse":
				rec = true
			case "read", "skip":
			default:
				j.refuse(RuleForbiddenFlag, fmt.Sprintf("value %q of grep %s is not one of read, skip, recurse", u.value, u.name), "")
				return
			}
		}
		files := ops[first:]
		if rec && len(files) == 0 {
			files = []string{"."}
		}
		for _, o := range files {
			acs = append(acs, access{word: o, what: "operand", mode: modeRead})
		}
		if u := ps.has("follow"); u != nil {
			follow, followOpt = files, u.name
		}
	case "names":
		// A name with a slash is a path: which /etc/x would probe it.
		for _, o := range ops {
			if strings.Contains(o, "/") {
				j.refuse(RuleForbiddenFlag, fmt.Sprintf("%s takes program names; %q is a path", prog.Name, o), "give the program's name")
				return
			}
		}
	case "awk":
		if first == 0 {
			j.refuse(RuleForbiddenFlag, "awk without a program", "")
			return
		}
		if err := awkProgram(ops[0]); err != nil {
			j.refuse(RuleForbiddenFlag, fmt.Sprintf("the awk program cannot be admitted: %v", err), "print to standard output only, and let the tools read and write files")
			return
		}
		for _, o := range ops[1:] {
			if o == "-" || awkAssignment(o) {
				continue // standard input; a variable set before the next file
			}
			acs = append(acs, access{word: o, what: "operand", mode: modeRead})
		}
	case "rg":
		files := ops[first:]
		if ps.has("files") != nil {
			files = ops // --files takes no pattern: every operand is a folder to list
		}
		if len(files) == 0 {
			files = []string{"."}
		}
		for _, o := range files {
			acs = append(acs, access{word: o, what: "operand", mode: modeRead})
		}
		if u := ps.has("follow"); u != nil {
			follow, followOpt = files, u.name
		}
	case "sed":
		var scripts []string
		for _, u := range ps.opts {
			if u.opt != nil && u.opt.Mark == "pattern" {
				scripts = append(scripts, u.value)
			}
		}
		if first == 1 {
			scripts = append(scripts, ops[0])
		}
		if len(scripts) == 0 {
			j.refuse(RuleForbiddenFlag, "sed without a script", "")
			return
		}
		// Scripts given in pieces are one script, a line each.
		if err := sedScript(strings.Join(scripts, "\n")); err != nil {
			j.refuse(RuleForbiddenFlag, fmt.Sprintf("the sed script cannot be admitted: %v", err), "print with p and change text with s///, and let the tools read or write other files")
			return
		}
		mode, what := modeRead, "operand"
		if u := ps.has("inplace"); u != nil {
			if u.value != "" {
				j.refuse(RuleForbiddenFlag, fmt.Sprintf("sed %s with a backup suffix %q writes a second file", u.name, u.value), "copy the file first, then run sed -i without a suffix")
				return
			}
			mode, what = modeWrite, "operand of "+u.name
			if len(ops[first:]) == 0 {
				j.refuse(RuleNoTarget, "sed -i names no file to edit", "")
				return
			}
		}
		for _, o := range ops[first:] {
			if o == "-" && mode == modeRead {
				continue // standard input
			}
			acs = append(acs, access{word: o, what: what, mode: mode, target: mode == modeWrite})
		}
	case "ls":
		dironly := ps.has("dironly") != nil
		if len(ops) == 0 {
			ops = []string{"."}
		}
		for _, o := range ops {
			acs = append(acs, access{word: o, what: "operand", mode: modeList, dironly: dironly})
		}
		if u := ps.has("follow"); u != nil && ps.has("recursive") != nil {
			follow, followOpt = ops, u.name
		}
	case "nooperands":
		if len(ops) > 0 {
			why := "takes no operands"
			if prog.Name == "id" {
				why = "looks another user up in the system's user database, outside the workspace; run id without a user"
			}
			j.refuse(RuleForbiddenFlag, fmt.Sprintf("%s %s, got operand %q", prog.Name, why, ops[0]), "")
			return
		}
	case "date":
		// date's only operand that prints is +FORMAT; any other sets the
		// system clock (date MMDDhhmm).
		for i, o := range ops {
			if i > 0 || !strings.HasPrefix(o, "+") {
				j.refuse(RuleForbiddenFlag, fmt.Sprintf("date operand %q is not a +FORMAT: date takes one +FORMAT, and other operands set the system clock", o),
					"give the format as +FORMAT and the date to show with -d")
				return
			}
		}
		// -r only looks at the file's time: a probe, not a read. Every
		// -r is judged, not only the last one date uses.
		for _, u := range ps.opts {
			if u.opt != nil && u.opt.Mark == "reference" {
				acs = append(acs, access{word: u.value, what: "option " + u.name, mode: modeProbe})
			}
		}
	case "tree":
		for _, u := range ps.opts {
			if u.opt != nil && u.opt.Arg != NoArg && u.attached {
				j.refuse(RuleForbiddenFlag, fmt.Sprintf("option %q of tree takes its value as the next word; write %s VALUE on its own", u.name, u.name), "")
				return
			}
		}
		fallthrough
	case "probe", "cp", "mv", "rm", "touch", "diff":
		j.special(prog, ps, &acs, &follow, &followOpt)
	default:
		kind := prog.Operands
		if prog.rules == "" && kind == ListOperands && len(ops) == 0 {
			ops = []string{"."}
		}
		for _, o := range ops[first:] {
			switch kind {
			case ReadOperands:
				acs = append(acs, access{word: o, what: "operand", mode: modeRead})
			case WriteOperands:
				acs = append(acs, access{word: o, what: "operand", mode: modeWrite, target: true})
			case ListOperands:
				acs = append(acs, access{word: o, what: "operand", mode: modeList})
			}
		}
		if u := ps.has("follow"); u != nil {
			follow, followOpt = ops, u.name
		}
	}
	if j.acc.refused {
		return
	}
	j.check(prog, acs)
	if j.acc.refused || followOpt == "" {
		return
	}
	j.linksOutside(prog.Name, followOpt, follow)
}

// special adds the accesses of programs whose operands have built-in
// meanings.
func (j *judge) special(prog *Program, ps parsed, acs *[]access, follow *[]string, followOpt *string) {
	ops := ps.operands
	switch prog.rules {
	case "tree":
		if len(ops) == 0 {
			ops = []string{"."}
		}
		for _, o := range ops {
			*acs = append(*acs, access{word: o, what: "operand", mode: modeList})
		}
		if u := ps.has("follow"); u != nil {
			*follow, *followOpt = ops, u.name
		}
	case "probe":
		nofollow := ps.has("nofollow-off") == nil && prog.Name != "realpath"
		for _, o := range ops {
			*acs = append(*acs, access{word: o, what: "operand", mode: modeProbe, nofollow: nofollow})
		}
	case "diff":
		for _, o := range ops {
			*acs = append(*acs, access{word: o, what: "operand", mode: modeRead})
		}
		if u := ps.has("follow"); u != nil && !hasName(&ps, "--no-dereference") {
			*follow, *followOpt = ops, u.name
		}
	case "rm":
		rec := ps.has("recursive") != nil
		for _, o := range ops {
			*acs = append(*acs, access{word: o, what: "operand", mode: modeWrite, nofollow: true, recursive: rec, target: true})
		}
	case "touch":
		nofollow := ps.has("nofollow") != nil
		for _, o := range ops {
			*acs = append(*acs, access{word: o, what: "operand", mode: modeWrite, nofollow: nofollow, target: true})
		}
	case "cp", "mv":
		var dest string
		destDir := false
		if u := ps.has("target"); u != nil {
			dest, destDir = u.value, true
		} else if len(ops) > 0 {
			dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
		}
		if len(ops) == 0 {
			return // no-target below
		}
		noTargetDir := hasName(&ps, "-T") || hasName(&ps, "--no-target-directory")
		if !noTargetDir && !destDir {
			if r, ok := j.quietResolve(dest); ok && r.Exists && r.Dir {
				destDir = true
			}
			if len(ops) > 1 {
				destDir = true
			}
		}
		// mv moves links and folders (whose relative links then lead
		// elsewhere); cp copies them when it does not dereference.
		relinks := prog.Name == "mv" || ps.has("recursive") != nil || hasName(&ps, "-P") || hasName(&ps, "-d") || hasName(&ps, "--no-dereference")
		if ps.has("follow") != nil {
			relinks = prog.Name == "mv"
		}
		for _, o := range ops {
			if prog.Name == "mv" {
				*acs = append(*acs, access{word: o, what: "source", mode: modeWrite, nofollow: true, target: true})
			} else {
				*acs = append(*acs, access{word: o, what: "source", mode: modeRead})
			}
			t := dest
			if destDir {
				b := path.Base(strings.TrimRight(o, "/"))
				if b == "." || b == ".." || b == "/" {
					t = dest + "/" + b // judged as the folder itself: refused below
				} else {
					t = strings.TrimRight(dest, "/") + "/" + b
				}
			}
			*acs = append(*acs, access{word: t, what: "destination", mode: modeWrite, target: true})
			for _, b := range backupNames(&ps, t) {
				*acs = append(*acs, access{word: b, what: "backup of the destination", mode: modeWrite, target: true})
			}
			if relinks {
				j.noteRelink(prog.Name, o, t)
			}
		}
		if u := ps.has("follow"); u != nil && prog.Name == "cp" {
			*follow, *followOpt = ops, u.name
		}
	}
}

// backupNames are the paths cp and mv rename an existing destination to
// when they make backups (-b, --backup, -S/--suffix, which implies -b):
// DEST plus the suffix ("~" by default, and "~" too when the suffix holds
// a "/", as GNU does), and DEST.~1~ for numbered backups. They are writes
// like the destination: "cp -b -S rc a .env" makes .envrc.
func backupNames(ps *parsed, dest string) []string {
	on, suffix, control := false, "~", ""
	for _, u := range ps.opts {
		switch u.name { // long names are spelt out in full by the parser
		case "-b":
			on = true
		case "--backup":
			on, control = true, u.value
		case "-S", "--suffix":
			on, suffix = true, u.value
		}
	}
	switch control {
	case "none", "off":
		return nil
	}
	if !on {
		return nil
	}
	if suffix == "" || strings.Contains(suffix, "/") {
		suffix = "~"
	}
	dest = strings.TrimRight(dest, "/")
	return []string{dest + suffix, dest + ".~1~"}
}

func hasName(ps *parsed, name string) bool {
	for _, u := range ps.opts {
		if u.name == name {
			return true
		}
	}
	return false
}

// check judges every access of one program: the effect mode first, then
// each path.
func (j *judge) check(prog *Program, acs []access) {
	writes := 0
	for _, a := range acs {
		if a.mode == modeWrite && !specialWrite(j.abs(a.word)) {
			writes++
		}
	}
	if prog.Write || writes > 0 {
		j.wrote() // the kind of the command, allowed or not
	}
	if (prog.Write || writes > 0) && j.c.Effects != WorkspaceWrite {
		what := fmt.Sprintf("%s changes files", prog.Name)
		hint := "ask the person for the workspace-write effect mode"
		if !prog.Write {
			for _, a := range acs {
				if a.mode == modeWrite {
					what = fmt.Sprintf("%s writes %q (%s)", prog.Name, a.word, a.what)
					hint += ", or drop the " + a.what + " and read the output instead"
					break
				}
			}
		}
		j.refuse(RuleReadOnlyEffects, what+", and the effect mode is read-only", hint)
		return
	}
	if prog.Write && writes == 0 {
		j.refuse(RuleNoTarget, fmt.Sprintf("%s needs an explicit target: name the files or folders it changes", prog.Name), "")
		return
	}
	for _, a := range acs {
		j.path(prog.Name, a)
		if j.acc.refused {
			return
		}
	}
}

// abs makes word absolute against the working folder, expanding "~" in
// an argv.
func (j *judge) abs(word string) string {
	if j.argv && (word == "~" || strings.HasPrefix(word, "~/")) && j.c.Home != "" {
		word = j.c.Home + word[1:]
	}
	if strings.HasPrefix(word, "/") {
		return word
	}
	if j.cwd == "/" {
		return "/" + word
	}
	return j.cwd + "/" + word
}

// specialRead is a device a command may read without it being a file of
// the workspace.
func specialRead(abs string) bool {
	switch path.Clean(abs) {
	case "/dev/null", "/dev/stdin", "/dev/fd/0":
		return true
	}
	return false
}

// specialWrite is a device a command may write without it being a change.
func specialWrite(abs string) bool {
	switch path.Clean(abs) {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2":
		return true
	}
	return false
}

// resolve resolves a path word; ok is false (and the decision refused)
// when it cannot be.
func (j *judge) resolve(prog string, a access) (Resolved, bool) {
	abs := j.abs(a.word)
	if j.c.FS == nil {
		j.refuse(RuleOutside, fmt.Sprintf("%s: %q cannot be resolved (no file system to check it against)", prog, a.word), "")
		return Resolved{}, false
	}
	var r Resolved
	var err error
	base := path.Base(abs)
	if a.nofollow && !strings.HasSuffix(abs, "/") && base != "." && base != ".." && base != "/" {
		dir := abs[:strings.LastIndexByte(abs, '/')]
		if dir == "" {
			dir = "/"
		}
		var rd, full Resolved
		rd, err = j.c.FS.Resolve(dir)
		if err == nil {
			full, err = j.c.FS.Resolve(abs)
		}
		p := path.Join(rd.Path, base)
		r = Resolved{Path: p, Exists: full.Exists || full.Path != p, Dir: full.Dir && full.Path == p}
	} else {
		r, err = j.c.FS.Resolve(abs)
	}
	if err != nil {
		j.refuse(RuleOutside, fmt.Sprintf("%s: %q cannot be resolved: %v", prog, a.word, err), "")
		return r, false
	}
	if !inside(r.Path, j.c.Roots) {
		shown := fmt.Sprintf("%q", a.word)
		if r.Path != path.Clean(abs) {
			shown += fmt.Sprintf(" (which resolves to %q)", r.Path)
		}
		j.refuse(RuleOutside, fmt.Sprintf("%s: %s %s is outside the workspace (%s)", prog, a.what, shown, strings.Join(j.c.Roots, ", ")),
			"use paths inside the workspace")
		return r, false
	}
	if len(j.acc.relinked) > 0 {
		if rl := j.relinkedAt(r.Path, path.Clean(abs)); rl != nil {
			j.refuseRelinked(prog, a.what, a.word, rl)
			return r, false
		}
	}
	return r, true
}

// quietResolve resolves a word without judging it.
func (j *judge) quietResolve(word string) (Resolved, bool) {
	if j.c.FS == nil {
		return Resolved{}, false
	}
	r, err := j.c.FS.Resolve(j.abs(word))
	return r, err == nil
}

// inside reports whether p is one of the roots or under one.
func inside(p string, roots []string) bool {
	for _, r := range roots {
		if r == "/" || p == r || (strings.HasPrefix(p, r) && p[len(r)] == '/') {
			return true
		}
	}
	return false
}

// path judges one access.
func (j *judge) path(prog string, a access) {
	switch a.mode {
	case modeRead, modeProbe, modeList:
		if a.word == "" {
			return // names nothing; the program fails on it
		}
		if a.word == "-" && a.mode == modeRead {
			return // standard input
		}
		if specialRead(j.abs(a.word)) {
			return
		}
		r, ok := j.resolve(prog, a)
		if !ok {
			return
		}
		switch {
		case a.mode == modeRead && r.Exists && !r.Dir:
			j.acc.reads = addPath(j.acc.reads, r.Path)
		case a.mode == modeList && r.Exists && r.Dir && !a.dironly:
			j.acc.lists = addPath(j.acc.lists, r.Path)
		}
	case modeWrite:
		if specialWrite(j.abs(a.word)) {
			return
		}
		j.write(prog, a)
	}
}

// write judges one change: inside the roots, not the workspace or the
// working folder itself, not protected, and observed.
func (j *judge) write(prog string, a access) {
	if a.word == "" {
		j.refuse(RuleNoTarget, fmt.Sprintf("%s: %s is an empty path, which names nothing", prog, a.what), "")
		return
	}
	if j.c.Effects != WorkspaceWrite {
		j.refuse(RuleReadOnlyEffects, fmt.Sprintf("%s writes %q (%s), and the effect mode is read-only", prog, a.word, a.what),
			"ask the person for the workspace-write effect mode, or drop the "+a.what)
		return
	}
	r, ok := j.resolve(prog, a)
	if !ok {
		return
	}
	j.noteGitInput(r.Path, a.word)
	if a.target {
		for _, root := range j.c.Roots {
			if r.Path == root {
				j.refuse(RuleNoTarget, fmt.Sprintf("%s: %s %q is the workspace folder itself, which is not a change target; name the files inside it", prog, a.what, a.word), "")
				return
			}
		}
		if r.Path == j.cwd || strings.HasPrefix(j.cwd, r.Path+"/") {
			j.refuse(RuleNoTarget, fmt.Sprintf("%s: %s %q is the working folder or contains it, which is not a change target; name the files inside it", prog, a.what, a.word), "")
			return
		}
	}
	// Both the path as written and where it lands: a link into .admit/
	// is refused, and so is a write through a protected folder that is
	// itself a link elsewhere. A refusal wins over an ask.
	lit := path.Clean(j.abs(a.word))
	var ask Protection
	personal := j.c.Personal
	if personal == nil {
		personal = j.p.Personal(j.c.Home)
	}
	for _, p := range []string{lit, r.Path} {
		pr := ProtectFor(p, j.c.Roots, personal)
		if !pr.Protected {
			continue
		}
		if !pr.Ask {
			j.refuse(RuleProtected, fmt.Sprintf("%s: %s %q is protected: %s", prog, a.what, a.word, pr.Why), "")
			return
		}
		if !ask.Protected {
			ask = pr
		}
	}
	if !j.observed(prog, a, r) {
		return
	}
	if ask.Protected {
		j.acc.asks(RuleProtected, fmt.Sprintf("%s: changing %q needs a person's approval: %s", prog, a.word, ask.Why), "")
	}
	j.wrote()
	j.acc.writes = addPath(j.acc.writes, r.Path)
}

// observed checks that the agent has seen what it changes.
func (j *judge) observed(prog string, a access, r Resolved) bool {
	obs := j.c.Obs
	state := Unobserved
	if obs != nil {
		state = obs.File(r.Path)
	}
	if state == Stale {
		j.refuse(RuleStale, fmt.Sprintf("%s: %q changed since the agent read it", prog, a.word), "read it again, then retry")
		return false
	}
	hint := "read the file or list its folder (ls " + path.Dir(a.word) + ") first"
	if obs == nil {
		j.refuse(RuleUnobserved, fmt.Sprintf("%s: %s %q was not observed before the change", prog, a.what, a.word), hint)
		return false
	}
	if r.Exists {
		if r.Dir && a.recursive {
			if obs.Dir(r.Path) {
				return true
			}
			j.refuse(RuleUnobserved, fmt.Sprintf("%s: folder %q was not listed before removing it recursively", prog, a.word), "list it first (ls -R "+a.word+" or find "+a.word+")")
			return false
		}
		if state == Observed || obs.Dir(path.Dir(r.Path)) || (r.Dir && obs.Dir(r.Path)) {
			return true
		}
		j.refuse(RuleUnobserved, fmt.Sprintf("%s: %s %q was not observed before the change", prog, a.what, a.word), hint)
		return false
	}
	// A new path: its nearest existing folder must have been listed.
	dir := path.Dir(r.Path)
	for range 64 {
		if obs.Dir(dir) {
			return true
		}
		d, err := j.c.FS.Resolve(dir)
		if err != nil || d.Exists || dir == "/" {
			break
		}
		dir = path.Dir(dir)
	}
	j.refuse(RuleUnobserved, fmt.Sprintf("%s: %s %q is new, and its folder %q was not listed first", prog, a.what, a.word, dir), "list the folder first (ls "+path.Dir(a.word)+")")
	return false
}

// linksOutside refuses an option that follows symlinks while walking
// folders that hold a symlink leading outside the workspace.
func (j *judge) linksOutside(prog, opt string, dirs []string) {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	for _, d := range dirs {
		r, ok := j.quietResolve(d)
		if !ok || !r.Dir {
			continue
		}
		if rl := j.relinkedUnder(r.Path); rl != nil {
			j.refuseRelinkedWalk(prog, opt, d, rl)
			return
		}
		if links := j.c.FS.LinksOutside(r.Path); len(links) > 0 {
			j.refuse(RuleForbiddenFlag, fmt.Sprintf("option %q of %s follows symlinks, and %q under %q leads outside the workspace", opt, prog, links[0], d),
				"leave out "+opt+" so symlinks are not followed")
			return
		}
	}
}

// redirect judges one redirection.
func (j *judge) redirect(r shell.Redirect) {
	if r.Target == "" {
		return // a duplication, a close, a here-document
	}
	what := "redirection " + r.Op
	if r.Read {
		j.path("shell", access{word: r.Target, what: what, mode: modeRead})
	}
	if r.Write && !j.acc.refused && !specialWrite(j.abs(r.Target)) {
		j.wrote()
		j.write("shell", access{word: r.Target, what: what, mode: modeWrite})
	}
}

// cd judges the cd builtin and sets the folder the next commands run in.
func (j *judge) cd(args []string) {
	var ops []string
	for i, a := range args {
		if a == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if a == "-L" || a == "-P" || a == "-LP" || a == "-PL" {
			continue
		}
		if a == "-" {
			j.refuse(RuleDynamicWord, "cd - goes to $OLDPWD, which is only known at run time; cd to the folder by name", "")
			return
		}
		if strings.HasPrefix(a, "-") {
			j.refuse(RuleForbiddenFlag, fmt.Sprintf("option %q of cd is not accepted (only -L and -P)", a), "")
			return
		}
		ops = append(ops, a)
	}
	if len(ops) > 1 {
		j.refuse(RuleForbiddenFlag, "cd takes one folder", "")
		return
	}
	word := "~"
	if len(ops) == 1 {
		word = ops[0]
	} else if j.c.Home == "" {
		j.refuse(RuleOutside, "cd without a folder goes to the home directory, which is outside the workspace", "cd to a folder inside the workspace")
		return
	} else {
		word = j.c.Home
	}
	r, ok := j.resolve("cd", access{word: word, what: "folder", mode: modeProbe})
	if !ok {
		return
	}
	// bash's cd is logical: "link/.." is the folder holding link, not the
	// parent of its target. Refuse where the two readings differ.
	if lex, ok := j.quietResolve(path.Clean(j.abs(word))); !ok || lex.Path != r.Path {
		j.refuse(RuleOutside, fmt.Sprintf("cd %q goes through a symlink and then \"..\", which the shell and the kernel read differently; cd to the real folder", word), "")
		return
	}
	if r.Exists && !r.Dir {
		j.refuse(RuleNoTarget, fmt.Sprintf("cd %q: not a folder", word), "")
		return
	}
	j.newCwd = r.Path
}

// wrapper judges a wrapper program declared by a policy: its own options,
// then the command it runs.
func (j *judge) wrapper(prog *Program, argv []string, depth int) {
	if depth >= maxWrapperDepth {
		j.refuse(RuleUnsupported, fmt.Sprintf("%s wraps too many wrappers", prog.Name), "")
		return
	}
	ps, err := parseArgs(prog, argv[1:], true)
	if err != nil {
		j.refuse(RuleForbiddenFlag, err.reason, "")
		return
	}
	if j.refusedOption(prog, &ps) {
		return
	}
	rest := ps.operands
	for len(rest) > 0 && strings.Contains(rest[0], "=") && !strings.HasPrefix(rest[0], "=") {
		if !prog.Assignments {
			j.refuse(RuleForbiddenFlag, fmt.Sprintf("%s %q sets an environment variable for the command, which the policy does not allow for %s", prog.Name, rest[0], prog.Name), "")
			return
		}
		rest = rest[1:]
	}
	if len(rest) < prog.CommandAfter {
		j.refuse(RuleNoTarget, fmt.Sprintf("%s needs %d operand(s) before the command", prog.Name, prog.CommandAfter), "")
		return
	}
	rest = rest[prog.CommandAfter:]
	if len(rest) > 0 && rest[0] == "cd" {
		j.refuse(RuleUnsupported, fmt.Sprintf("%s cannot run cd, a shell builtin", prog.Name), "")
		return
	}
	acs := optionAccesses(ps, false)
	j.check(&Program{Name: prog.Name, Write: prog.Write}, acs)
	if j.acc.refused || len(rest) == 0 {
		return
	}
	j.program(rest, depth+1)
}
