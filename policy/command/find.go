package command

import (
	"fmt"
	"strings"

	"admit/policy/rule"
)

// predicate is one find primary: what its argument is, or why it is refused.
type predicate struct {
	Arg    Arg    // NoArg, TextArg or ReadArg
	Refuse string // non-empty: refused
	Follow bool   // follows symlinks while walking
}

// findTable is the accept-list of find's expression: tests, the actions
// that only print, and the operators. Actions that run programs, delete
// or write files are refused.
func findTable() map[string]predicate {
	const (
		runs   = "asks on the terminal before it runs a program for each file; use -exec"
		writes = "writes a file; print to standard output instead"
	)
	t := map[string]predicate{
		// -exec and -execdir are judged with their command (xargs.go);
		// -ok and -okdir ask on the terminal.
		"-ok": {Refuse: runs}, "-okdir": {Refuse: runs},
		"-delete": {Refuse: "deletes files; list them with find, then remove them by name with rm"},
		"-fprint": {Refuse: writes}, "-fprint0": {Refuse: writes}, "-fprintf": {Refuse: writes}, "-fls": {Refuse: writes},
		"-files0-from": {Refuse: whyListFile},
		"-follow":      {Follow: true},
		"-newer":       {Arg: ReadArg}, "-anewer": {Arg: ReadArg}, "-cnewer": {Arg: ReadArg}, "-samefile": {Arg: ReadArg},
	}
	for _, n := range strings.Fields("-print -print0 -prune -empty -o -or -a -and -not ! ( ) , -true -false -depth -d -mount -xdev -ignore_readdir_race -noignore_readdir_race -noleaf -ls -readable -writable -executable -nouser -nogroup -quit -nowarn -warn -daystart") {
		t[n] = predicate{}
	}
	for _, n := range strings.Fields("-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type -xtype -maxdepth -mindepth -size -mtime -mmin -atime -amin -ctime -cmin -perm -user -group -uid -gid -links -inum -lname -ilname -printf -used -fstype -context") {
		t[n] = predicate{Arg: TextArg}
	}
	return t
}

// find judges find: leading options, starting points (listed folders),
// then the expression, each primary from the accept-list.
func (j *judge) find(prog *Program, argv []string) {
	args := argv[1:]
	i, follow := findOptions(args)
	var starts []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" && len(starts) == 0 {
			continue
		}
		if (strings.HasPrefix(a, "-") && a != "-") || a == "(" || a == "!" {
			break
		}
		starts = append(starts, a)
	}
	acs, followed, execs, ok := j.findExpression(args[i:])
	if !ok {
		return
	}
	if followed != "" {
		follow = followed
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for _, s := range starts {
		acs = append(acs, access{word: s, what: "starting folder", mode: modeList})
	}
	j.check(prog, acs)
	if !j.acc.refused && follow != "" {
		j.linksOutside("find", follow, starts)
	}
	if len(execs) > 0 {
		j.askSecretFilter("find "+execs[0].primary, findNameFilters(args[i:]))
	}
	reads := false
	for _, e := range execs {
		if j.acc.refused {
			return
		}
		if follow != "" {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("find %s with %s runs a command on names found through symlinks", e.primary, follow), "leave out "+follow)
			return
		}
		reads = j.namesCommand("find "+e.primary, e.argv, starts) || reads
	}
	if reads {
		j.findSecrets("find "+execs[0].primary+" "+execs[0].argv[0], starts, args[i:], "-exec -execdir", false) // with -L it was refused
	}
}

// findNameFilters are the values of find's tests of names and paths.
func findNameFilters(expr []string) []string {
	var out []string
	for k := 0; k+1 < len(expr); k++ {
		switch expr[k] {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			if k == 0 || expr[k-1] != "!" && expr[k-1] != "-not" {
				out = append(out, expr[k+1]) // ! -name .env leaves it out
			}
			k++
		}
	}
	return out
}

// findCommand is the command of one -exec or -execdir primary.
type findCommand struct {
	primary string
	argv    []string
}

// findOptions skips find's leading options (-H, -L, -P, -D LIST, -O3)
// and returns where the starting points begin, and "-L" when it follows
// symlinks.
func findOptions(args []string) (int, string) {
	follow := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-H" || a == "-P":
		case a == "-L":
			follow = "-L"
		case a == "-D":
			i++
		case strings.HasPrefix(a, "-O") && len(a) > 2:
		default:
			return i, follow
		}
	}
	return len(args), follow
}

// findExpression judges find's expression: the paths its primaries name,
// the last primary that follows symlinks, and the commands of -exec and
// -execdir; not ok when refused.
func (j *judge) findExpression(args []string) (acs []access, follow string, execs []findCommand, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-exec" || a == "-execdir" {
			inner, n, ok := j.findExec(a, args[i+1:])
			if !ok {
				return nil, "", nil, false
			}
			execs = append(execs, findCommand{primary: a, argv: inner})
			i += n
			continue
		}
		pr, known := j.p.find[a]
		if !known && strings.HasPrefix(a, "-newer") && len(a) == 8 && strings.ContainsRune("aBcmt", rune(a[6])) && strings.ContainsRune("aBcmt", rune(a[7])) {
			pr, known = predicate{Arg: ReadArg}, true
			if a[7] == 't' {
				pr.Arg = TextArg
			}
		}
		switch {
		case !known && strings.HasPrefix(a, "-"):
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("find primary %q is not in the accepted primaries", a), "use tests like -name, -path, -type, -size, -mtime and the actions -print, -print0, -ls")
			return nil, "", nil, false
		case !known:
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("find: %q comes after the expression started; starting folders go first", a), "")
			return nil, "", nil, false
		case pr.Refuse != "":
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("find primary %q is refused: it %s", a, pr.Refuse), "")
			return nil, "", nil, false
		}
		if pr.Follow {
			follow = a
		}
		if pr.Arg == NoArg {
			continue
		}
		if i+1 >= len(args) {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("find primary %q needs a value", a), "")
			return nil, "", nil, false
		}
		i++
		if pr.Arg == ReadArg {
			acs = append(acs, access{word: args[i], what: "primary " + a, mode: modeProbe})
		}
	}
	return acs, follow, execs, true
}

// test judges test and "[": the operands of file tests are paths.
func (j *judge) test(prog *Program, argv []string) {
	args := argv[1:]
	if argv[0] == "[" {
		if len(args) == 0 || args[len(args)-1] != "]" {
			j.refuse(rule.ShellSyntax, "[ needs a closing ]", "")
			return
		}
		args = args[:len(args)-1]
	}
	var acs []access
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-nt", "-ot", "-ef":
			if i > 0 && i+1 < len(args) {
				acs = append(acs, access{word: args[i-1], what: "operand", mode: modeProbe}, access{word: args[i+1], what: "operand", mode: modeProbe})
				i++
			}
			continue
		case "-a", "-o":
			if !(i == 0 || args[i-1] == "!" || args[i-1] == "(") {
				continue
			}
		}
		if len(a) == 2 && a[0] == '-' && strings.IndexByte("abcdefgGhkLNOprsSuwx", a[1]) >= 0 && i+1 < len(args) {
			// A unary file test, unless the word is itself the operand of
			// a binary operator ("-f = -f").
			if i+2 < len(args) && isBinaryTest(args[i+1]) {
				continue
			}
			acs = append(acs, access{word: args[i+1], what: "operand of " + a, mode: modeProbe, nofollow: a == "-h" || a == "-L"})
			i++
		}
	}
	// "[" is named test in reasons, as it always was.
	j.check(&Program{Name: "test", Write: prog.Write}, acs)
}

func isBinaryTest(s string) bool {
	switch s {
	case "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "=~":
		return true
	}
	return false
}
