package command

import (
	"fmt"
	"strings"

	"admit/policy/rule"
)

// Everyday probes and filters: jq (its filter lexed for what reads files
// or the environment), printenv (only names that hold no secret), command
// -v (a probe) and command PROG (seen through), df (the file systems of
// its operands).

// jqReads are jq's builtins that read the environment, files or jq's own
// search path: refused in a filter. ($__loc__, input and inputs read only
// the program and the inputs jq was given.)
var jqReads = map[string]string{
	"env":             "reads the environment",
	"$ENV":            "reads the environment",
	"input_filename":  "names the file being read",
	"import":          "reads a module from a file",
	"include":         "reads a module from a file",
	"modulemeta":      "reads a module from a file",
	"get_search_list": "reads jq's module search path",
	"get_prog_origin": "reads where the program is",
	"get_jq_origin":   "reads where jq is",
	"$__prog_args":    "reads jq's own arguments",
}

// jq judges jq [OPTIONS] FILTER [FILES...]: its options by hand, since
// --arg and --argjson take two values, and its filter lexed: a builtin
// that reads the environment or a file refuses it. --args and --jsonargs
// make the later operands values, not files.
func (j *judge) jq(_ *Program, argv []string) {
	var acs []access
	filter, haveFilter := "", false
	valuesOnly := false
	dash := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !dash && strings.HasPrefix(a, "-") && a != "-" {
			name, _, attached := strings.Cut(a, "=")
			switch name {
			case "--":
				dash = true
			case "-r", "--raw-output", "-j", "--join-output", "-a", "--ascii-output", "-c", "--compact-output", "-n", "--null-input",
				"-s", "--slurp", "-e", "--exit-status", "-S", "--sort-keys", "-C", "--color-output", "-M", "--monochrome-output",
				"--tab", "-R", "--raw-input", "--seq", "--stream", "--stream-errors", "--raw-output0", "--unbuffered", "-h", "--help",
				"-V", "--version", "--build-configuration", "-0", "--nul-output", "-b", "--binary":
			case "--indent":
				if !attached {
					i++
				}
			case "--arg", "--argjson":
				i += 2 // a name and a value, both text
			case "--args", "--jsonargs":
				valuesOnly = true
			case "-f", "--from-file":
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of jq reads the filter from a file, which the gate cannot read to judge it", name), "give the filter as the first operand")
				return
			case "--rawfile", "--slurpfile":
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of jq reads a file named inside the command, beside its inputs", name), "give the file as an input, or read it with cat")
				return
			case "-L", "--library-path":
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of jq loads modules from a folder", name), "leave out "+name)
				return
			default:
				if len(a) > 2 && a[1] != '-' && isJqCluster(a[1:]) {
					continue
				}
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of jq is not in the accepted options", a), "see jq --help")
				return
			}
			if i >= len(argv) {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of jq needs its values", name), "")
				return
			}
			continue
		}
		switch {
		case !haveFilter:
			filter, haveFilter = a, true
		case valuesOnly:
		default:
			acs = append(acs, access{word: a, what: "input", mode: modeRead})
		}
	}
	if haveFilter {
		if name, why := jqFilterReads(filter); name != "" {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("the jq filter uses %s, which %s", name, why), "filter only the inputs jq is given")
			return
		}
	}
	j.check(&Program{Name: "jq"}, acs)
}

// isJqCluster reports a word of jq's short flags (-rc, -nr).
func isJqCluster(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("rjacnseSCMRb0", rune(s[i])) {
			return false
		}
	}
	return true
}

// jqFilterReads returns the first builtin of a jq filter that reads the
// environment or a file, and why. The filter is lexed: string literals
// (but not their \(...) interpolations) and comments are skipped, and a
// name after a "." is a field, not a builtin. A filter the lexer does not
// follow (an unterminated string) is refused.
func jqFilterReads(f string) (string, string) { return filterReads(f, jqReads) }

// filterReads is jqFilterReads with the builtins of reads (yq's are jq's
// and more).
func filterReads(f string, reads map[string]string) (string, string) {
	var stack []int // paren depth at each \( ... ) open inside a string
	parens := 0
	// inString skips the rest of a string literal from i: to its closing
	// quote, or into an interpolation \( (its parens then count on the
	// stack). It reports false for a string that does not end.
	inString := func(i int) (int, bool) {
		for i < len(f) {
			switch {
			case f[i] == '\\' && i+1 < len(f) && f[i+1] == '(':
				stack = append(stack, parens)
				parens++
				return i + 2, true
			case f[i] == '\\':
				i += 2
			case f[i] == '"':
				return i + 1, true
			default:
				i++
			}
		}
		return i, false
	}
	for i := 0; i < len(f); {
		c := f[i]
		switch {
		case c == '#':
			for i < len(f) && f[i] != '\n' {
				i++
			}
		case c == '"':
			var ok bool
			if i, ok = inString(i + 1); !ok {
				return "an unterminated string", "the gate cannot follow"
			}
		case c == '(':
			parens++
			i++
		case c == ')':
			parens--
			i++
			if len(stack) > 0 && parens == stack[len(stack)-1] {
				// Back inside the string the interpolation was in.
				stack = stack[:len(stack)-1]
				var ok bool
				if i, ok = inString(i); !ok {
					return "an unterminated string", "the gate cannot follow"
				}
			}
		case c == '$' || c == '_' || isLetter(c):
			start := i
			i++
			for i < len(f) && (f[i] == '_' || isLetter(f[i]) || f[i] >= '0' && f[i] <= '9') {
				i++
			}
			word := f[start:i]
			field := start > 0 && f[start-1] == '.'
			if why, ok := reads[word]; ok && why != "" && !field {
				return word, why
			}
			if word == "$" {
				// "$ ENV" is no variable; "$__loc__" is the program's own.
				continue
			}
		default:
			i++
		}
	}
	return "", ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// printenv judges printenv NAME...: each name must hold no secret by its
// name or its value; printenv alone prints the whole environment.
func (j *judge) printenv(w *words) {
	if len(w.ops) == 0 {
		j.refuse(rule.SecretEnv, "printenv without a name prints the whole environment, its secrets with it", "print only the variables the task needs: printenv PATH")
		return
	}
	for _, o := range w.ops {
		if why := j.c.secretVar(o); why != "" {
			j.refuse(rule.SecretEnv, fmt.Sprintf("printenv %s prints a variable %s", o, why), "ask the user for what the task needs instead of printing it")
			return
		}
	}
}

// ps judges ps's words (options in three syntaxes, not parsed by the
// table): a BSD word (no dash) holding e, or macOS's -E, prints each
// process's environment after its command, the secrets of the person's
// programs and the agent's host with it (ps eww, ps auxe). ps -e (every
// process) and -ef print none. The values of options that take one
// (-C node, -u user, o etime) are no options.
func (j *judge) ps(w *words) {
	value := false
	for _, o := range w.ops {
		switch {
		case value:
			value = false
		case o == "--":
			return
		case strings.HasPrefix(o, "--"):
			value = !strings.Contains(o, "=") && hasField("--format --sort --pid --ppid --user --User --group --Group --sid --tty --cols --columns --lines --rows --width --quick-pid", o)
		case strings.HasPrefix(o, "-"):
			value = psOptions(j, o[1:], "CGgpqstUuoOk", 'E')
		default:
			value = psOptions(j, o, "OopqtUk", 'e')
		}
		if j.acc.refused {
			return
		}
	}
}

// psOptions reads one word of ps's options up to the first that takes a
// value (in takes): it refuses the word when env comes before, and
// reports whether the value is the next word.
func psOptions(j *judge, word, takes string, env byte) bool {
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c == env {
			j.refuse(rule.SecretEnv, fmt.Sprintf("ps %s prints every process's environment, the person's secrets with it", word),
				"list processes without their environment: ps aux, ps -ef")
			return false
		}
		if strings.IndexByte(takes, c) >= 0 {
			return i == len(word)-1
		}
	}
	return false
}

// printedParams reports whether the variables names, which echo or printf
// prints ($NAME, $?: shell.Command.ParamNames), hold no secret by their
// names or values, as printenv NAME is judged; it refuses otherwise.
func (j *judge) printedParams(names []string) bool {
	for _, n := range names {
		if why := j.c.secretVar(n); why != "" {
			j.refuse(rule.SecretEnv, fmt.Sprintf("$%s prints a variable %s", n, why), "ask the user for what the task needs instead of printing it")
			return false
		}
	}
	return true
}

// commandBuiltin judges the command builtin: command -v NAME and -V look names
// up, as which does; command [-p] PROG ARGS runs PROG, judged in turn.
func (j *judge) commandBuiltin(_ *Program, argv []string) {
	i := 1
	lookup := false
	for ; i < len(argv) && strings.HasPrefix(argv[i], "-"); i++ {
		switch argv[i] {
		case "-v", "-V":
			lookup = true
		case "-p":
		case "--":
			i++
			goto done
		default:
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of command is not accepted (only -v, -V and -p)", argv[i]), "")
			return
		}
	}
done:
	rest := argv[i:]
	if lookup {
		for _, n := range rest {
			if strings.Contains(n, "/") {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("command -v takes program names; %q is a path", n), "give the program's name")
				return
			}
		}
		return
	}
	if len(rest) == 0 {
		return
	}
	if folderBuiltin(rest[0]) {
		j.refuse(rule.HiddenCommand, fmt.Sprintf("command %s changes the folder in a way the gate does not follow", rest[0]), "run "+rest[0]+" on its own")
		return
	}
	j.program(rest, 1)
}

// df judges df: its operands are looked at for the file system they are
// on.
func (j *judge) df(w *words) {
	for _, o := range w.ops {
		w.add(access{word: o, what: "operand", mode: modeProbe})
	}
}
