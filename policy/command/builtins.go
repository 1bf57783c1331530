package command

import (
	"fmt"
	"strings"

	"admit/policy/rule"
)

// The shell words and programs whose answer is fixed, whatever a policy
// file's table says: those that run what the line does not show or
// change what later words run (eval, exec, trap, alias, hash), those
// that run as another user (sudo), and source, which runs a script of the
// workspace in the shell itself. They are looked at before any table.

// fixedWords are the builtins that run a string as code or change how the
// shell finds what later words run.
var fixedWords = map[string]string{
	"eval":    "runs its words as a command line, which the gate does not judge",
	"exec":    "replaces the shell with a command, or changes its descriptors for every later command",
	"builtin": "runs a shell builtin, bypassing what the gate judged (builtin cd)",
	"trap":    "runs a string as code when a signal or the shell's exit comes",
	"alias":   "changes what a word runs",
	"unalias": "changes what a word runs",
	"hash":    "changes which file a program name runs",
	"enable":  "turns builtins on or off, or loads new ones from a file",
	"shopt":   "changes how the shell expands the words the gate judged",
	"unset":   "changes the variables and functions later words run with",
	"fc":      "runs commands from the shell's history",
	"coproc":  "runs a command in the background",
	"bind":    "changes what keys run",
	"caller":  "reads the shell's call stack",
}

// privileged are the programs that run a command as another user.
var privileged = map[string]bool{
	"sudo": true, "su": true, "doas": true, "pkexec": true, "runuser": true, "run0": true, "chroot": true,
	"setpriv": true, "nsenter": true, "unshare": true, "sg": true, "newgrp": true, "capsh": true, "gosu": true, "su-exec": true,
}

// fixedNames are every name fixed judges: one lookup tells the common
// command, which is none of them, where fixedWords and privileged were
// two for every command.
var fixedNames = func() map[string]bool {
	names := map[string]bool{"set": true, "export": true, "source": true, ".": true, "busybox": true, "toybox": true}
	for name := range fixedWords {
		names[name] = true
	}
	for name := range privileged {
		names[name] = true
	}
	return names
}()

var fixedFilter = filterOf(fixedNames)

// fixed judges the words with a fixed answer; it reports whether name is
// one.
func (j *judge) fixed(argv []string) bool {
	name := argv[0]
	if !fixedFilter.mayHave(name) || !fixedNames[name] {
		return false // a name judged below is one of fixedNames
	}
	if why, ok := fixedWords[name]; ok {
		j.refuse(rule.HiddenCommand, fmt.Sprintf("%s %s", name, why), "send the commands themselves as the command line")
		return true
	}
	switch {
	case privileged[name]:
		j.refuse(rule.PrivilegeChange, fmt.Sprintf("%s runs a command as another user, beyond what the workspace's gate can judge", name),
			"run the command as the session's own user, or ask the user to run it")
		return true
	case name == "set":
		j.set(argv[1:])
		return true
	case name == "export":
		j.export(argv[1:])
		return true
	case name == "source" || name == ".":
		j.source(argv)
		return true
	case name == "busybox" || name == "toybox":
		// A multi-call binary runs the applet its first word names:
		// busybox sh -c is sh -c.
		if len(argv) > 1 && !strings.HasPrefix(argv[1], "-") {
			j.program(argv[1:], 1)
			return true
		}
	}
	return false
}

// set judges the set builtin: only the options that change how errors
// and tracing are handled pass; set alone prints every variable (the
// environment's secrets with them), and positional parameters or other
// options change what later words mean.
func (j *judge) set(args []string) {
	if len(args) == 0 {
		j.refuse(rule.SecretEnv, "set without options prints every shell variable, the environment's secrets with them", "print only the variables the task needs (printenv NAME)")
		return
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("set %q sets the positional parameters, which change what later words mean", a), "")
			return
		}
		for k := 1; k < len(a); k++ {
			switch a[k] {
			case 'e', 'u', 'x', 'v':
			case 'o':
				if i+1 >= len(args) {
					j.refuse(rule.HiddenCommand, "set -o without a name prints the shell's options; the gate admits set -o NAME for pipefail, errexit, nounset, xtrace and verbose only", "")
					return
				}
				i++
				switch args[i] {
				case "pipefail", "errexit", "nounset", "xtrace", "verbose":
				default:
					j.refuse(rule.HiddenCommand, fmt.Sprintf("set -o %s changes how the shell reads or runs later words", args[i]), "use only set -e, -u, -x, -o pipefail")
					return
				}
			default:
				j.refuse(rule.HiddenCommand, fmt.Sprintf("set option %q changes how the shell reads or runs later words", string(a[k])), "use only set -e, -u, -x, -o pipefail")
				return
			}
		}
	}
}

// export judges the export builtin as the parser passes it (shell's
// export.go): NAME=value words, each also given to the later commands of
// the line as their own leading assignment and judged there. Here, what
// reaches past those commands: a variable that changes what runs (PATH,
// LD_*, BASH_ENV, ... runsWith) or where cd goes is refused, as it is
// before a command; a variable that loads code (NODE_OPTIONS=--require,
// ...) is judged by the commands after it in a shell that ends with the
// line, and refused in a terminal's shell, which keeps it for lines the
// gate judges without it. Folders of a search path (PYTHONPATH) must be
// inside the workspace. A variable that names a place a program writes or
// reads (envPaths) is judged by the commands after it, and in a
// terminal's shell here too. export alone, or any other word, is refused.
func (j *judge) export(args []string) {
	if len(args) == 0 {
		j.refuse(rule.SecretEnv, "export without names prints every exported variable, the environment's secrets with them", "print only the variables the task needs (printenv NAME)")
		return
	}
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" || strings.HasPrefix(a, "-") {
			j.refuse(rule.ShellSyntax, fmt.Sprintf("export %q: only export NAME=value is judged", a), "write export NAME=value")
			return
		}
		if why := runsWith(a); why != "" {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("export %q %s, for every later command of the shell", a, why), "leave the variable as it is")
			return
		}
		if name == "CDPATH" {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("export %q changes the folder cd goes to", a), "leave the variable as it is")
			return
		}
		if ep, ok := envPathOf(name); ok && value != "" && j.c.Profile.Interactive() {
			// A terminal's shell keeps it for lines judged without it: the
			// place is judged now, and one that provides settings or
			// programs is refused as a code variable is.
			if ep.use&(envConfig|envRuns) != 0 {
				j.refuse(rule.HiddenCommand, fmt.Sprintf("export %q sets %s: %s, and a terminal's shell keeps it for the lines after this one, which the gate judges without it", a, name, ep.what),
					fmt.Sprintf("set it before the one command that needs it: %s COMMAND", a))
				return
			}
			if j.envPathVar("export", a, []string{"export", a}); j.acc.refused {
				return
			}
		}
		if _, code := codeVars[name]; !code || value == "" {
			continue
		}
		switch {
		case name == "NODE_OPTIONS" && harmlessNode(value):
			continue
		case name == "PYTHONPATH" || name == "NODE_PATH" || name == "PERL5LIB" || name == "PERLLIB" || name == "RUBYLIB" || name == "CLASSPATH":
			words := []string{"export"}
			words = append(words, strings.FieldsFunc(value, func(r rune) bool { return r == ':' })...)
			j.argPaths(words, 1)
			if j.acc.refused {
				return
			}
			continue
		}
		if j.c.Profile.Interactive() {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("export %q sets %s: %s, and a terminal's shell keeps it for the lines after this one, which the gate judges without it", a, name, codeVars[name]),
				fmt.Sprintf("set it before the one command that needs it: %s COMMAND", a))
			return
		}
	}
}

// source judges source FILE and . FILE: the file runs in the shell
// itself, so it is code of the workspace that runs (asked), and it must
// be inside the workspace. What it defines can change what later words
// of the line run, so a rule that allows it trusts the file for them too.
func (j *judge) source(argv []string) {
	if len(argv) < 2 {
		j.refuse(rule.NoTarget, argv[0]+" needs a file", "")
		return
	}
	file := argv[1]
	if strings.HasPrefix(file, "-") {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s %q: options of %s are not accepted", argv[0], file, argv[0]), "")
		return
	}
	if !strings.Contains(file, "/") {
		// bash looks a bare name up on PATH before the working folder.
		j.refuse(rule.DynamicWord, fmt.Sprintf("%s %q looks the file up on PATH first, so what runs depends on the environment", argv[0], file), "name the file with a folder: "+argv[0]+" ./"+file)
		return
	}
	j.path(argv[0], access{word: file, what: "script", mode: modeProbe})
	if j.acc.refused {
		return
	}
	j.argPaths(argv, 2)
	if j.acc.refused {
		return
	}
	j.asksCode(rule.RunsCode, argv, fmt.Sprintf("%s runs %q in the shell itself (code of the workspace that admit cannot judge, and that can change what later words run), so a person decides", argv[0], file), "")
}

// promptVar reports a variable an interactive shell expands at each
// prompt or mail check (bash's PS0-PS2 and MAILPATH, zsh's PROMPT,
// RPROMPT, SPROMPT and RPS1 under prompt_subst): by its shape, not a list
// of today's names.
func promptVar(name string) bool {
	switch {
	case len(name) == 3 && strings.HasPrefix(name, "PS") && name[2] >= '0' && name[2] <= '9',
		len(name) == 4 && strings.HasPrefix(name, "RPS") && name[3] >= '0' && name[3] <= '9':
		return true
	}
	return strings.Contains(name, "PROMPT") && name != "GIT_TERMINAL_PROMPT" || name == "MAIL" || name == "MAILPATH"
}

// runsWith says why an assignment a wrapper makes (env NAME=value)
// changes what runs, or where a program reads the configuration that
// decides it, or "": PATH and the loader's variables pick the program and
// its libraries, the shell's start-up variables run code, HOME and the
// XDG folders move the configuration git and the toolchains read, git's
// variables move its repository and configuration, and the pagers and
// editors are programs that other programs start.
func runsWith(assign string) string {
	name, value, _ := strings.Cut(assign, "=")
	if _, judged := codeVars[name]; !judged || name == "MAKEFLAGS" {
		// The variables codeVars names are judged as the code they load
		// (judge.codeVar); MAKEFLAGS beyond the job flags is refused here.
		if why := codeVar(name, value); why != "" {
			return why
		}
	}
	switch {
	case name == "PATH" || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_"):
		return "changes which program or library runs"
	case name == "BASH_ENV" || name == "ENV" || name == "SHELLOPTS" || name == "BASHOPTS" || name == "IFS" || name == "PS4" || name == "PROMPT_COMMAND" || name == "BASH_XTRACEFD":
		return "makes the shell run code or read words differently"
	case promptVar(name):
		return "is expanded by an interactive shell at every later prompt, $(...) included, so it runs code in the terminal's next lines"
	case name == "HOME" || strings.HasPrefix(name, "XDG_") || name == "ZDOTDIR" || name == "INPUTRC":
		return "moves the configuration the programs read"
	case strings.HasPrefix(name, "GIT_"):
		switch name {
		case "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS":
			return ""
		case "GIT_PAGER":
			if value == "cat" || value == "" {
				return ""
			}
		}
		return "changes the repository, the configuration or the programs git uses"
	case name == "VISUAL" || name == "LESSOPEN" || name == "LESSCLOSE" || name == "FCEDIT" ||
		// By what the name means, not a list: PAGER, MANPAGER, GH_PAGER,
		// SYSTEMD_PAGER, BAT_PAGER; EDITOR, KUBE_EDITOR, SUDO_EDITOR;
		// BROWSER, GH_BROWSER; SSH_ASKPASS, SUDO_ASKPASS.
		strings.HasSuffix(name, "PAGER") || strings.HasSuffix(name, "EDITOR") || strings.HasSuffix(name, "BROWSER") || strings.HasSuffix(name, "ASKPASS"):
		if value == "cat" || value == "" || value == "true" {
			return ""
		}
		return "names a program that other programs start"
	case name == "LESS" || strings.HasPrefix(name, "LESSKEY") || name == "LESSEDIT" || name == "LESSSECURE" || name == "MORE" ||
		name == "TAR_OPTIONS" || name == "TAPE" || name == "UNZIP" || name == "UNZIPOPT" || name == "ZIPINFO" || name == "ZIPINFOOPT" ||
		name == "GZIP" || name == "GZIP_BINDIR" || name == "XZ_OPT" || name == "XZ_DEFAULTS" || name == "BZIP" || name == "BZIP2" ||
		name == "MANOPT" || name == "MANPATH" || name == "MANROFFOPT" || name == "MANROFFSEQ" || name == "MAN_DISABLE_SECCOMP" || strings.HasPrefix(name, "GROFF_"):
		// The options (or programs) less, more, tar, unzip, the
		// decompressors, man and groff take from the environment, beside
		// their words (MANOPT=-Psh, MANPATH of the workspace's pages).
		return "gives a program options or programs its words do not show"
	}
	return ""
}

// EnvRunsCode says why setting the variable name to value for a program
// changes what it runs (PATH, LD_PRELOAD, a pager, NODE_OPTIONS...), or
// "": the gate's rule for an assignment on the line, for the
// configuration files that set variables (cargo's [env]).
func EnvRunsCode(name, value string) string { return runsWith(name + "=" + value) }
