package command

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// Ordinary lines, judged instead of refused: an assignment before a
// command is judged as env NAME=value would be; a command of a background
// statement is asked; the cat of a literal "$(cat <<'EOF' ... EOF)" word
// is judged as the program it is; kill of the pids a probe of the same
// line prints is asked (signals.go). sh -c and bash -c with a literal line,
// and a shell fed a literal here-document, are judged as that line
// (unwrapShells, before the line is judged).

// assignments is the wrapper a command's leading assignments are judged
// by: env's reading of NAME=value words (runsWith, codeVar), built in so
// that a policy file's entry for env does not change it.
var assignments = &Program{Name: "env", Wrapper: true, Assignments: true}

// ordinary judges a command the parser found with assignments, in a
// background statement, with literal here-document words or with a
// probe's pids.
func (j *judge) ordinary(cmd *shell.Command) {
	if cmd.Background {
		j.acc.background = true
		j.acc.asks(rule.Background, fmt.Sprintf("%s runs in the background (&) and goes on after the call returns, so a person decides", showArgv(cmd.Argv)),
			"run it in the foreground, or with the host's own run-in-background option")
	}
	if cmd.Via != "" && !j.programOnPath([]string{cmd.Via}) {
		return // the shell is a file of the workspace, found on PATH: asked as such
	}
	for _, f := range valuedCommands(cmd) {
		// The output is known (values.go), but the command runs all the
		// same: judged as a read of the line's, found on PATH.
		writes := len(j.acc.writes)
		j.redirs = nil
		j.program(f, 0)
		if j.acc.refused {
			return
		}
		if len(j.acc.writes) != writes {
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s changes files; a command substitution judged by its output only prints", showArgv(f)), "run it on its own line")
			return
		}
	}
	for _, f := range cmd.Feeders {
		// cat reads the here-document only, but it is a program found on
		// PATH like any other.
		j.redirs = nil
		j.program(f, 0)
		if j.acc.refused {
			return
		}
	}
	switch {
	case len(cmd.Substitutions) > 0 && (len(cmd.Env) > 0 || len(cmd.Pids) > 0):
		j.refuse(rule.DynamicWord, fmt.Sprintf("%s mixes a command substitution with assignments or a probe's pids, which the gate does not judge together", showArgv(cmd.Argv)), "split the line")
	case len(cmd.Pids) > 0:
		j.killPids(cmd)
	case len(cmd.Substitutions) > 0:
		j.substituted(cmd)
	case len(cmd.Env) > 0:
		if hasNUL(cmd.Env) {
			j.refuse(rule.ShellSyntax, "an assignment holds a NUL byte, which no program receives as written", "")
			return
		}
		j.redirs = cmd.Redirects
		j.wrapper(assignments, slices.Concat([]string{"env"}, cmd.Env, cmd.Argv), 0)
		for _, r := range cmd.Redirects {
			if j.acc.refused {
				return
			}
			j.redirect(r)
		}
	default:
		j.command(cmd.Argv, cmd.Redirects, 0)
	}
}

// special reports a command ordinary judges.
func special(cmd *shell.Command) bool {
	return len(cmd.Env) > 0 || cmd.Background || len(cmd.Feeders) > 0 || cmd.Valued != nil || len(cmd.Pids) > 0 || cmd.Via != ""
}

// codeVars are the variables that make a program load code, or options
// that load it, beyond what its command line shows (runsWith refuses
// those that change which program runs). A command run with one is asked
// as code that runs, under its whole argv, so that a rule for the command
// alone does not answer it; the paths the value names are judged as a
// toolchain's arguments are (outside the workspace refused).
var codeVars = map[string]string{
	"NODE_OPTIONS":  "options of every node process, which may load code (--require, --import, --loader) or open a debugger",
	"PYTHONSTARTUP": "a file every interactive Python runs first", "PYTHONPATH": "folders Python imports modules from first",
	"PYTHONHOME": "where Python finds its standard library", "PYTHONBREAKPOINT": "the function breakpoint() calls",
	"PYTHONUSERBASE": "where Python finds the user's packages", "PYTHONEXECUTABLE": "the program Python reports as itself",
	"PERL5OPT": "options of every perl, which may load modules", "PERL5LIB": "folders perl loads modules from first", "PERLLIB": "folders perl loads modules from first",
	"RUBYOPT": "options of every ruby, which may load libraries", "RUBYLIB": "folders ruby loads libraries from first",
	"NODE_PATH": "folders node loads modules from", "JAVA_TOOL_OPTIONS": "options of every JVM, which may load agents",
	"_JAVA_OPTIONS": "options of every JVM, which may load agents", "JDK_JAVA_OPTIONS": "options of the java launcher, which may load agents",
	"CLASSPATH": "where the JVM loads classes from", "GOFLAGS": "flags of every go command (-toolexec runs a program)",
	"RUSTC_WRAPPER": "a program cargo runs instead of rustc", "RUSTC": "the compiler cargo runs", "RUSTFLAGS": "flags of every rustc",
	"CC": "the C compiler builds run", "CXX": "the C++ compiler builds run", "LD": "the linker builds run",
	"CFLAGS": "flags of every C compile (a plugin loads code)", "LDFLAGS": "flags of every link",
	"MAKEFLAGS": "options of every make", "NPM_CONFIG_SCRIPT_SHELL": "the shell npm runs scripts with",
	"npm_config_script_shell": "the shell npm runs scripts with", "NPM_CONFIG_NODE_OPTIONS": "options of the node npm starts",
	"npm_config_node_options": "options of the node npm starts",
}

// harmlessNodeOptions are node options that load no code, read or write
// no file and open nothing: what NODE_OPTIONS holds day to day.
var harmlessNodeOptions = []string{
	"--max-old-space-size", "--max-semi-space-size", "--enable-source-maps", "--no-warnings", "--no-deprecation",
	"--trace-warnings", "--trace-deprecation", "--trace-uncaught", "--experimental-vm-modules", "--unhandled-rejections",
	"--stack-size", "--stack-trace-limit", "--dns-result-order", "--no-experimental-fetch", "--openssl-legacy-provider",
	"--use-openssl-ca", "--disable-warning", "--expose-gc", "--preserve-symlinks", "--abort-on-uncaught-exception",
	"--experimental-specifier-resolution", "--no-experimental-global-navigator", "--experimental-strip-types",
}

// codeVar judges one assignment a wrapper passes (env NAME=value, or
// NAME=value before a command) that makes the command load code: the paths
// it names must be inside the workspace, and the command is asked under
// its whole argv. ok is false when it refused.
func (j *judge) codeVar(wrapper, assign string, argv []string) {
	name, value, _ := strings.Cut(assign, "=")
	why, ok := codeVars[name]
	if !ok || value == "" {
		return
	}
	if name == "NODE_OPTIONS" && harmlessNode(value) || name == "MAKEFLAGS" && makeFlagsSafe(value) {
		return
	}
	words := []string{wrapper}
	for _, w := range strings.FieldsFunc(value, func(r rune) bool { return r == ' ' || r == ':' || r == '\t' }) {
		words = append(words, w)
	}
	j.argPaths(words, 1)
	if j.acc.refused {
		return
	}
	switch name {
	case "PYTHONPATH", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB", "CLASSPATH":
		// Folders of the workspace: the program runs the workspace's code
		// anyway, and is judged (and asked) as such. (Places a program
		// writes, as cargo's CARGO_TARGET_DIR, are envPaths.)
		return
	}
	j.asksCode(rule.RunsCode, argv, fmt.Sprintf("%s sets %s: %s, so a person decides", showArgv(argv), name, why), "")
}

// harmlessNode reports a NODE_OPTIONS value of harmless options only.
func harmlessNode(value string) bool {
	for _, o := range strings.Fields(value) {
		name, _, _ := strings.Cut(o, "=")
		if !slices.Contains(harmlessNodeOptions, name) {
			return false
		}
	}
	return true
}

// maxShellDepth bounds sh -c inside sh -c.
const maxShellDepth = 3

// shellProfile is the profile a shell whose -c line (or here-document)
// the policy judges as the line it is reads like, or "" for a program
// that is none of them: sh and dash are POSIX shells, read as bash with
// what they read differently refused (posixDiffers). A switch, not a map:
// every command of every line is asked.
func shellProfile(name string) shell.Profile {
	switch name {
	case "bash", "sh", "dash":
		return shell.Analyze
	case "zsh":
		return shell.Zsh
	case "fish":
		return shell.Fish
	}
	return ""
}

// unwrapShells replaces each command of script that runs a literal line
// in a shell, sh -c 'LINE' (or bash, dash, zsh, fish; options -e -u -x
// -o pipefail around it) or a shell fed LINE by a here-document, with the
// commands of LINE, judged as any others: inside ( ), the outer command's
// redirections before their own. A command that cannot be unwrapped for
// certain stays as it is, and is refused as hidden-command when judged. A
// line LINE that does not parse is refused with its own problem.
func (p *Policy) unwrapShells(script *shell.Script, c *Context, depth int) (*shell.Script, *shell.Problem) {
	// A line naming no shell (shellLine looks for one first) keeps its
	// script, without the frame of the walk below.
	for i := range script.Commands {
		if argv := script.Commands[i].Argv; len(argv) > 0 && shellProfile(argv[0]) != "" {
			return p.unwrapFrom(script, c, depth)
		}
	}
	return script, nil
}

func (p *Policy) unwrapFrom(script *shell.Script, c *Context, depth int) (*shell.Script, *shell.Problem) {
	var out *shell.Script
	// starts[i] is where command i, or the first of its unwrapped line,
	// stands in out: the for loops' spans (Script.Expanded) move with it.
	// Made only once a command is unwrapped, rare: until then command i
	// stands at i.
	var starts []int
	var innerLoops []shell.Span
	for i := range script.Commands {
		if out != nil {
			starts[i] = len(out.Commands)
		}
		cmd := &script.Commands[i]
		line, prof, ok := shellLine(cmd)
		if ok && len(cmd.Env) == 0 && len(cmd.Pids) == 0 && len(cmd.Substitutions) == 0 {
			pipeline := cmd.Joiner == "|" || i+1 < len(script.Commands) && script.Commands[i+1].Joiner == "|"
			inner, prob := shell.NewParser(c.Home).Parse(line, prof)
			if prob != nil {
				prob.Reason = fmt.Sprintf("%s runs a line that %s", cmd.Argv[0], prob.Reason)
				return nil, prob
			}
			if why := posixDiffers(cmd.Argv[0], line, inner); why != "" {
				return nil, &shell.Problem{Rule: rule.ShellSyntax, Reason: fmt.Sprintf("%s runs a line with %s, which %s reads differently from bash", cmd.Argv[0], why, cmd.Argv[0]),
					Items: []string{why}, Hint: "run the line with bash -c, or send it as the command line itself"}
			}
			if depth < maxShellDepth {
				if inner, prob = p.unwrapShells(inner, c, depth+1); prob != nil {
					return nil, prob
				}
			}
			// In a pipeline, only one command may stand for it: the
			// others would lose the pipe as their input or output.
			if inner != nil && (!pipeline || len(inner.Commands) == 1) {
				if out == nil {
					out = &shell.Script{Commands: slices.Clone(script.Commands[:i]), ShellOnly: slices.Clone(script.ShellOnly)}
					starts = make([]int, len(script.Commands)+1)
					for k := range i + 1 {
						starts[k] = k
					}
				}
				for _, l := range inner.Expanded {
					innerLoops = append(innerLoops, shell.Span{Start: l.Start + len(out.Commands), End: l.End + len(out.Commands)})
				}
				for k, ic := range inner.Commands {
					if k == 0 {
						ic.Joiner = cmd.Joiner
					}
					ic.Subshell = true
					ic.Via = cmd.Argv[0]
					ic.Background = ic.Background || cmd.Background
					ic.Redirects = slices.Concat(cmd.Redirects, ic.Redirects)
					out.Commands = append(out.Commands, ic)
				}
				out.ShellOnly = appendOnce(appendOnce(out.ShellOnly, inner.ShellOnly...), cmd.Argv[0]+" running a line of its own")
				continue
			}
		}
		if out != nil {
			out.Commands = append(out.Commands, *cmd)
		}
	}
	if out == nil {
		return script, nil
	}
	starts[len(script.Commands)] = len(out.Commands)
	for _, l := range script.Expanded {
		out.Expanded = append(out.Expanded, shell.Span{Start: starts[l.Start], End: starts[l.End]})
	}
	out.Expanded = append(out.Expanded, innerLoops...)
	return out, nil
}

// shellLine is the literal line cmd runs in a shell, and the profile it
// is read with: sh -c LINE [NAME ARGS...] with only -e, -u, -x, -o
// pipefail and their clusters before it, or a shell reading its program
// from a here-document (sh, sh -s, sh - with <<'EOF').
func shellLine(cmd *shell.Command) (string, shell.Profile, bool) {
	prof := shellProfile(cmd.Argv[0])
	if prof == "" {
		return "", "", false
	}
	args := cmd.Argv[1:]
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-o" && len(args) > 1 && args[1] == "pipefail":
			args = args[2:]
			continue
		case a == "-c" || len(a) > 2 && a[0] == '-' && strings.Trim(a[1:], "eux") == "c":
			if len(args) < 2 {
				return "", "", false
			}
			return args[1], prof, true
		case len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "eux") == "":
			args = args[1:]
			continue
		}
		break
	}
	if len(args) > 1 || len(args) == 1 && args[0] != "-" && args[0] != "-s" {
		return "", "", false
	}
	var text string
	found := false
	for _, r := range cmd.Redirects {
		if r.Fd == 0 {
			text, found = r.Text, strings.HasPrefix(r.Op, "<<")
		}
	}
	if !found || prof == shell.Fish {
		return "", "", false
	}
	return text, prof, true
}

// posixDiffers says what in line a POSIX shell (sh, dash) reads
// differently from bash, or "": braces (no brace expansion), &> (a
// background job and a redirection), |&, here-strings, $'...' and $"...",
// [[ and ((, and echo with a backslash (dash's echo reads escapes).
func posixDiffers(name, line string, s *shell.Script) string {
	if name != "sh" && name != "dash" {
		return ""
	}
	for _, tok := range []string{"{", "}", "&>", "|&", "<<<", "$'", "$\"", "[[", "(("} {
		if strings.Contains(line, tok) {
			return fmt.Sprintf("%q", tok)
		}
	}
	for _, c := range s.Commands {
		if path.Base(c.Argv[0]) == "echo" && slices.ContainsFunc(c.Argv[1:], func(a string) bool { return strings.Contains(a, "\\") }) {
			return "echo with a backslash"
		}
	}
	return ""
}

func appendOnce(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

// maxShownCode bounds the code a reason quotes: enough for a person to
// read a short program, not a page.
const maxShownCode = 800

// stdinText is the text of the here-document or here-string the command
// being judged reads as standard input.
func (j *judge) stdinText() string {
	text := ""
	for _, r := range j.redirs {
		if r.Fd == 0 && strings.HasPrefix(r.Op, "<<") {
			text = r.Text
		}
	}
	return text
}

// shownCode quotes code for a reason, cut to maxShownCode bytes.
func shownCode(code string) string {
	if len(code) > maxShownCode {
		code = code[:maxShownCode] + "…"
	}
	return fmt.Sprintf("%q", code)
}
