package command

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// A command of a while read loop (shell.ReadLoop) has the line the loop
// read where "$NAME" was written (shell.ReadValue). The line is only
// known when it runs, so the command is judged by where the lines come
// from:
//
//   - a pipe from a command that prints names of the workspace, one a
//     line (git ls-files, find without -L, grep -l, rg --files; with
//     read -d '', NUL-separated): each line is such a name, judged as
//     xargs judges its names (runtimeName: read, listed or probed, never
//     changed), and refused when a name of the walk would start with "-"
//     (read as an option) or is one read would change (blanks at its
//     ends without IFS=, a backslash without -r, a newline);
//   - anything else (a file, a here-document, a program's output): the
//     line could be any text, /etc/shadow or ../../.ssh/id_rsa, so a
//     command that would take it as an operand is put to a person;
//     echo and printf only print it.
//
// Only the whole word "$NAME" is a name: the parser refuses it unquoted,
// and a word that holds it inside ("$f.bak", "out/$f") is refused here
// for any program but echo and printf.

// readLoop judges cmd, a command of a while read loop.
func (j *judge) readLoop(cmd *shell.Command) {
	loop := "the while read loop"
	if cmd.Read.Split {
		loop = "the $(...) list of names"
	}
	uses := false
	printing := cmd.Argv[0] == "echo" || cmd.Argv[0] == "printf"
	for k, w := range cmd.Argv {
		if !strings.Contains(w, shell.ReadValue) {
			continue
		}
		if k == 1 && cmd.Argv[0] == "printf" {
			// A line "-vPATH" would be printf's option, setting PATH for
			// the loop's later commands; any other, its format.
			j.refuse(rule.DynamicWord, "printf's first word is a line "+loop+" reads: it could be an option (-v NAME sets a variable) or the format", "print it with a format of your own: printf '%s\\n' \"$line\"")
			return
		}
		if k == 0 {
			j.refuse(rule.DynamicWord, "the program to run is a line "+loop+" gives, only known when it runs", "name the program to run")
			return
		}
		if w != shell.ReadValue && !printing {
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s has a word built around a line %s gives (%q), whose path is only known when it runs", cmd.Argv[0], loop, strings.ReplaceAll(w, shell.ReadValue, "$line")),
				"pass the line alone, \"$line\", as the operand")
			return
		}
		uses = true
	}
	for _, r := range cmd.Redirects {
		if strings.Contains(r.Target, shell.ReadValue) {
			j.refuse(rule.DynamicWord, "a redirection of "+loop+" opens a file named by a line it gives, only known when it runs", "name the file")
			return
		}
	}
	if uses && cmd.Read.Split && !j.listedNames(cmd.Argv, cmd.Read) {
		// Checked before echo's words too: bash would expand a name's
		// pattern, /home/*/.ssh/*, for echo as for any program.
		return
	}
	if !uses || printing {
		argv := cmd.Argv
		if uses {
			argv = slices.Clone(argv)
			for k, w := range argv {
				argv[k] = strings.ReplaceAll(w, shell.ReadValue, "line")
			}
		}
		j.command(argv, cmd.Redirects, 0)
		return
	}
	if special(cmd) {
		j.refuse(rule.DynamicWord, fmt.Sprintf("%s runs with assignments or in the background on a line %s gives", cmd.Argv[0], loop), "run it on the names directly")
		return
	}
	rl := cmd.Read
	if rl.Producer < 0 || rl.Producer >= len(j.line) {
		j.acc.asks(rule.DynamicWord, fmt.Sprintf("%s takes as an operand a line the while read loop reads from a file or input that could name any path (/etc/shadow, ../../.ssh/id_rsa), so a person decides", cmd.Argv[0]),
			"read the names from git ls-files or find through a pipe (git ls-files | while read -r f; ...), or name the files")
		j.command(withoutReadValue(cmd.Argv), cmd.Redirects, 0)
		return
	}
	producer := j.line[rl.Producer].Argv
	name := innerProgram(producer)
	if !rl.Split && !namePrinter(name, producer, rl.Nul) {
		sep := "one a line"
		if rl.Nul {
			sep = "separated by NUL bytes"
		}
		j.acc.asks(rule.DynamicWord, fmt.Sprintf("%s takes as an operand a line the while read loop reads from %s, whose output is not only names of the workspace %s, so a person decides", cmd.Argv[0], name, sep),
			"read the names from git ls-files, find, grep -l or rg --files")
		j.command(withoutReadValue(cmd.Argv), cmd.Redirects, 0)
		return
	}
	starts := j.walked(producer)
	if !rl.Split && !j.namesWhole(cmd.Argv, name, starts, rl) {
		return
	}
	argv := slices.Clone(cmd.Argv)
	for k, w := range argv {
		if w == shell.ReadValue {
			argv[k] = runtimeName
		}
	}
	j.namesSecretFilter(cmd.Argv[0]+" in "+loop, producer)
	j.redirs = cmd.Redirects
	if j.namesCommand(loop, argv, starts) {
		j.namesWalkSecrets(cmd.Argv[0]+" in "+loop, producer)
	}
	for _, r := range cmd.Redirects {
		if j.acc.refused {
			return
		}
		j.redirect(r)
	}
}

// withoutReadValue is argv with each line a read loop reads left out:
// the rest of the command is judged as ever.
func withoutReadValue(argv []string) []string {
	out := make([]string, 0, len(argv))
	for _, w := range argv {
		if w != shell.ReadValue {
			out = append(out, w)
		}
	}
	return out
}

// namesWhole checks that every name the producer could print under starts
// reaches argv's program as that name, and none as an option: read keeps
// each one of a while read loop as it is (readChanges), and no shell
// splits or expands one of a $(LIST) (rl.Split, lists.go).
func (j *judge) namesWhole(argv []string, producer string, starts []string, rl *shell.ReadLoop) bool {
	prog := argv[0]
	hands, dashes := fmt.Sprintf("the while read loop hands %s the names %s prints", prog, producer), "PROG -- \"$f\""
	if rl.Split {
		hands, dashes = fmt.Sprintf("%s takes the names %s prints as words", prog, producer), prog+" -- $(...)"
	}
	if j.c.FS == nil {
		j.refuse(rule.DynamicWord, hands+", and without a file system to look in the gate cannot tell what they are", "name the files")
		return false
	}
	for _, d := range starts {
		switch {
		case rl.Split && (strings.ContainsAny(d, splitChars+patternChars) || strings.HasPrefix(d, "=")):
			j.refuse(rule.DynamicWord, fmt.Sprintf("the shell would split %s's output, names starting with %q, into other words or expand them as a pattern", producer, d), "name the files")
			return false
		case !rl.Split && strings.ContainsAny(d, "\\\n"):
			j.refuse(rule.DynamicWord, fmt.Sprintf("the while read loop would read the folder %q other than it is written", d), "name the files")
			return false
		}
		r, ok := j.quietResolve(d)
		if !ok || !r.Dir {
			continue
		}
		if by := j.namesChangedBy(r.Path); by != "" {
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s, and %s changes the files there first, so the names are only known when it runs", hands, by),
				"run that command as a line of its own first")
			return false
		}
		if path.Base(producer) != "find" && !j.afterDashes(argv) {
			if names := j.c.FS.OptionNames(r.Path); len(names) > 0 {
				j.refuse(rule.DynamicWord, fmt.Sprintf("%s, and %q starts with \"-\": %s would read it as an option, as it would a pattern's", hands, names[0], prog),
					"put \"--\" before the names ("+dashes+"), or use find, whose names start with its folder")
				return false
			}
		}
		for _, n := range j.c.FS.SplitNames(r.Path) {
			if rl.Split {
				j.refuse(rule.DynamicWord, fmt.Sprintf("%s, and the shell would split %q into other words or expand it as a pattern (bash splits at blanks and expands * ? [; fish splits at newlines only)", hands, n),
					"print the names NUL-separated into xargs -0 (git ls-files -z, find -print0), or name the files")
				return false
			}
			if readChanges(n, r.Path, rl) {
				j.refuse(rule.DynamicWord, fmt.Sprintf("%s, and read would not keep %q as it is (blanks at its ends, a backslash without -r, a newline)", hands, n),
					"use IFS= read -r, or find -print0 | while IFS= read -r -d '' f")
				return false
			}
		}
	}
	return true
}

// readChanges reports whether read would give name n (a path under dir,
// as SplitNames lists it) other than it is: a newline ends the line (NUL
// with an empty -d), a backslash is an escape without -r, and blanks at the
// ends of a line go without IFS=. An entry that is no path (the walk
// stopped at its bound) changes, to fail closed.
func readChanges(n, dir string, rl *shell.ReadLoop) bool {
	if !strings.HasPrefix(n, dir+"/") {
		return true
	}
	rel := n[len(dir)+1:]
	switch {
	case strings.Contains(rel, "\n") && !rl.Nul:
		return true
	case strings.Contains(rel, "\\") && !rl.Raw:
		return true
	case !rl.Blanks:
		for _, part := range strings.Split(rel, "/") {
			if strings.TrimLeft(part, " \t") != part || strings.TrimRight(part, " \t") != part {
				return true
			}
		}
	}
	return false
}
