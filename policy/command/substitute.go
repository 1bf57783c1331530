package command

import (
	"fmt"
	"slices"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// A command substitution, wc -l $(git ls-files), is accepted only when
// admit runs the line itself (Context.Substitutions), as a whole word of a
// command's arguments whose command prints names of a walk the policy
// judged (namePrinter, one name a line), read-only and allowed without a
// person. The command around it is judged as xargs's is: each substituted
// word stands as a name (runtimeName), so a program that changes its
// operands is refused, and so is a walk through a symlink that leads
// outside. That judges the shape only: bash splits the output at blanks
// and expands each field as a pattern, so a file named "a /etc/passwd"
// gives two words. The runner therefore judges the command again, as a
// plain argv, once its words are known (Decision.Rejudged in policy), and
// runs it only if that judgment allows it.

// substituted judges cmd, a command with substitutions.
func (j *judge) substituted(cmd *shell.Command) {
	by := cmd.Argv[cmd.Substitutions[0].Index]
	if !j.c.Substitutions {
		// The parser keeps them only when asked; a caller that did not ask
		// never gets one judged.
		j.refuse(rule.DynamicWord, fmt.Sprintf("%q is a command substitution, whose value is only known when a shell runs it", by), "name the files, or run the line with admit run")
		return
	}
	name := cmd.Argv[0]
	if p := j.p.progs[name]; p == nil || p.Wrapper || name == "cd" || strings.Contains(name, "/") {
		j.refuse(rule.DynamicWord, fmt.Sprintf("%s takes words from %s, and only a program of the table that runs no other program may: the words are only known when it runs", name, by),
			"name the files explicitly")
		return
	}
	asked := j.acc.ask || j.acc.code
	var starts []string
	for _, s := range cmd.Substitutions {
		inner := s.Argv
		if !namePrinter(innerProgram(inner), inner, false) {
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s prints what is not only names of the workspace, one a line, so its words in %s are not known", cmd.Argv[s.Index], name),
				"use git ls-files, find (printing), grep -l or rg --files inside $(...), or name the files")
			return
		}
		writes := len(j.acc.writes)
		j.redirs = nil
		j.program(inner, 0)
		if j.acc.refused {
			return
		}
		if len(j.acc.writes) != writes || j.acc.write && slices.Contains(j.acc.writers, j.cmd) {
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s changes files; a substitution's command only prints names", cmd.Argv[s.Index]), "run it on its own line")
			return
		}
		starts = union(starts, j.walked(inner))
	}
	argv := slices.Clone(cmd.Argv)
	for _, s := range cmd.Substitutions {
		argv[s.Index] = runtimeName
	}
	j.redirs = cmd.Redirects
	if j.namesCommand(by, argv, starts) {
		for _, s := range cmd.Substitutions {
			j.namesWalkSecrets(name, s.Argv)
		}
	}
	if j.acc.refused {
		return
	}
	if !asked && (j.acc.ask || j.acc.code) {
		// The run judges the words again and starts the command only if
		// that allows it: a question now would be answered for nothing.
		j.refuse(rule.DynamicWord, fmt.Sprintf("%s with words from %s needs a person, and its words are only known when it runs", name, by), "name the files explicitly")
		return
	}
	for _, r := range cmd.Redirects {
		if j.acc.refused {
			return
		}
		j.redirect(r)
	}
}
