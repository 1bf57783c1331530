package command

import (
	"fmt"
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
	// redirs are the redirections of the command being judged, and line
	// the commands of its script (nil for an argv): where an interpreter
	// reads its program from (toolchain.go), and each one's Joiner, for
	// pipeline membership (not copied out per pass).
	redirs []shell.Redirect
	line   []shell.Command
	inGit  bool // the command being judged is git's (treeChangedAt)
	// namesRead: the command find or xargs runs reads the names it is
	// handed (cat, grep), not only lists them (walksecrets.go).
	namesRead bool
	depth     int // how deep in wrappers and runners the command being judged is
	// cur is the argv of the innermost command being judged (wrappers
	// seen through), for its redirections too: who reads a device.
	cur []string
	// via are the runners whose command is being judged, outermost first
	// (runners.go): a rule over one of them answers for it.
	via []viaRunner
	// linked are the folders a cd of the line entered through a symbolic
	// link: the shell's own path there (cd's "..") is the link's side,
	// not the real folder's the gate judges from.
	linked []string

	// words are the words of the program (or git subcommand) being
	// judged, for its rule; they live in the judge (see pass) and are
	// never nested, since no rule judges another program.
	words words
	// lastAbs is abs's last answer (access.go), and cleanCwd the last
	// working folder found clean (joinedClean), kept by the pooled pass.
	lastAbs  absMemo
	cleanCwd string
}

// command judges one simple command and its redirections.
func (j *judge) command(argv []string, redirs []shell.Redirect, depth int) {
	j.redirs = redirs
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
	j.depth, j.cur = depth, argv
	if len(argv) == 0 || argv[0] == "" {
		j.refuse(rule.EmptyCommand, "the command has no program name", "")
		return
	}
	if depth == 0 && hasNUL(argv) {
		j.refuse(rule.ShellSyntax, "a word holds a NUL byte, which no program receives as written", "")
		return
	}
	// The person's deny and ask rules (person.go), then what the program
	// table does not judge: programs given as a path, the shell words
	// with a fixed answer, the toolchains, programs in no table
	// (toolchain.go).
	name := argv[0]
	prog := j.p.progs[name] // looked up once, for notInTable too
	if j.personRules(argv) || j.danger(argv) || j.notInTable(argv, prog) {
		return
	}
	switch name {
	case "cd":
		j.cd(argv[1:])
		return
	case "pushd", "popd", "dirs":
		if depth > 0 {
			// A program run by another (env, xargs, a runner) is no
			// shell: pushd would not move the commands after it.
			j.refuse(rule.HiddenCommand, fmt.Sprintf("%s is a shell builtin, which a program cannot run", name), "run it on its own")
			return
		}
		j.dirStack(argv)
		return
	}
	if prog == nil { // notInTable judges every name the table lacks
		j.unknownProgram(argv)
		return
	}
	if !j.scriptHelpers(name) { // zcat's gzip, found on PATH (readers.go)
		return
	}
	pr := prog.rule // the zero rule when it has none
	if len(j.globs) > 0 && (prog.Wrapper || depth > 0 || pr.argv != nil) {
		j.refuseGlobs(argv)
		return
	}
	if prog.Wrapper {
		j.wrapper(prog, argv, depth)
		return
	}
	if pr.argv != nil {
		pr.argv(j, prog, argv)
		return
	}
	ps, err := parseArgs(prog, argv[1:], false)
	if err != nil {
		j.refuse(rule.ForbiddenFlag, err.reason, "leave the option out, or use an accepted one (see "+name+" --help)")
		return
	}
	if !j.globsAreText(argv, ps) {
		j.refuseGlobs(argv)
		return
	}
	j.judgeParsed(prog, ps, pr)
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
	j.refuse(rule.DynamicWord, fmt.Sprintf("unquoted pattern in %s: bash would expand it against the files present when the command runs, and here it is not an option that takes text", strings.Join(words, ", ")),
		"quote the pattern ('--include=*.go') so the program, not the shell, matches it")
}

// cd judges the cd builtin and sets the folder the next commands run in.
func (j *judge) cd(args []string) {
	var ops []string
	physical := false // cd -P: the shell's path is the real one
	for i, a := range args {
		if a == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if a == "-L" || a == "-P" || a == "-LP" || a == "-PL" {
			physical = a == "-P" || a == "-LP"
			continue
		}
		if a == "-" {
			j.refuse(rule.DynamicWord, "cd - goes to $OLDPWD, which is only known at run time; cd to the folder by name", "")
			return
		}
		if strings.HasPrefix(a, "-") {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of cd is not accepted (only -L and -P)", a), "")
			return
		}
		ops = append(ops, a)
	}
	if len(ops) > 1 {
		j.refuse(rule.ForbiddenFlag, "cd takes one folder", "")
		return
	}
	word := "~"
	if len(ops) == 1 {
		word = ops[0]
	} else if j.c.Home == "" {
		j.refuse(rule.OutsideWorkspace, "cd without a folder goes to the home directory, which is outside the workspace", "cd to a folder inside the workspace")
		return
	} else {
		word = j.c.Home
	}
	linkedHere := slices.Contains(j.linked, j.cwd)
	if linkedHere && !physical && hasDotDot(word) {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("cd %q: an earlier cd of the line came here through a symbolic link, and the shell's cd reads \"..\" back through the link, not from the real folder the gate judges", word),
			"cd -P to the real folder first, or name the folder from the workspace's root")
		return
	}
	dir, ok := j.folder("cd", word)
	if !ok {
		return
	}
	if !physical && (linkedHere || j.cleanAbs(word) != dir) {
		if j.c.Terminal {
			j.refuse(rule.DynamicWord, fmt.Sprintf("cd %q goes through a symbolic link: the terminal would keep the link's path, where its next cd \"..\" goes back through the link, and the gate judges from the real folder", word),
				"cd -P "+word+" (the shell then keeps the real folder)")
			return
		}
		if !slices.Contains(j.linked, dir) {
			j.linked = append(j.linked, dir)
		}
	}
	j.newCwd = dir
}

// folder resolves the folder a command moves into (cd DIR, git -C DIR):
// inside the workspace, not a file, and read the same way by the shell
// and the kernel.
func (j *judge) folder(prog, word string) (string, bool) {
	r, ok := j.resolve(prog, access{word: word, what: "folder", mode: modeProbe})
	if !ok {
		return "", false
	}
	// bash's cd is logical: "link/.." is the folder holding link, not the
	// parent of its target. Refuse where the two readings differ.
	if lex, ok := j.quietResolve(j.cleanAbs(word)); !ok || lex.Path != r.Path {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s %q goes through a symlink and then \"..\", which the shell and the kernel read differently; name the real folder", prog, word), "")
		return "", false
	}
	if r.Exists && !r.Dir {
		j.refuse(rule.NoTarget, fmt.Sprintf("%s %q: not a folder", prog, word), "")
		return "", false
	}
	return r.Path, true
}

// hasDotDot reports a path with a ".." element.
func hasDotDot(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// wrapper judges a wrapper program declared by a policy: its own options,
// then the command it runs.
func (j *judge) wrapper(prog *Program, argv []string, depth int) {
	if depth >= maxWrapperDepth {
		j.refuse(rule.HiddenCommand, fmt.Sprintf("%s wraps too many wrappers to follow", prog.Name), "run the command without the wrappers")
		return
	}
	ps, err := parseArgs(prog, argv[1:], true)
	if err != nil {
		j.refuse(rule.ForbiddenFlag, err.reason, "")
		return
	}
	if j.refusedOption(prog, &ps) {
		return
	}
	rest := ps.operands
	var assigned []string // NAME=value words, judged once the command is (codeVar)
	for len(rest) > 0 && strings.Contains(rest[0], "=") && !strings.HasPrefix(rest[0], "=") {
		if !prog.Assignments {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s %q sets an environment variable for the command, which the policy does not allow for %s", prog.Name, rest[0], prog.Name), "")
			return
		}
		if why := runsWith(rest[0]); why != "" {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("%s %q %s", prog.Name, rest[0], why), "leave the variable as it is")
			return
		}
		assigned = append(assigned, rest[0])
		rest = rest[1:]
	}
	if len(rest) == 0 && prog.Assignments {
		j.refuse(rule.SecretEnv, fmt.Sprintf("%s without a command prints the whole environment, its secrets with it", prog.Name), "print only the variables the task needs (printenv NAME)")
		return
	}
	if len(rest) < prog.CommandAfter {
		j.refuse(rule.NoTarget, fmt.Sprintf("%s needs %d operand(s) before the command", prog.Name, prog.CommandAfter), "")
		return
	}
	rest = rest[prog.CommandAfter:]
	if len(rest) > 0 && folderBuiltin(rest[0]) {
		j.refuse(rule.HiddenCommand, fmt.Sprintf("%s cannot run %s, a shell builtin: the folder would not change for the commands after it", prog.Name, rest[0]), "run "+rest[0]+" on its own")
		return
	}
	if backgrounds(prog.Name, &ps) {
		j.acc.background = true
	}
	acs := optionAccesses(nil, ps, false)
	j.check(&Program{Name: prog.Name, Write: prog.Write}, acs)
	if j.acc.refused || len(rest) == 0 {
		return
	}
	j.program(rest, depth+1)
	for _, a := range assigned {
		if j.acc.refused {
			return
		}
		j.codeVar(prog.Name, a, argv)
		if j.acc.refused {
			return
		}
		j.envPathVar(rest[0], a, argv)
	}
}
