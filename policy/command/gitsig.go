package command

import (
	"fmt"
	"slices"
	"strings"

	"admit/policy/rule"
)

// git's format placeholders that verify a signature: %G? %GS %GK %GG %GF
// %GP %GT (log, show, rev-list's --pretty and --format) and the
// %(signature...) atoms, %(*signature...) too (for-each-ref, branch,
// tag). Each makes git start gpg (or gpg.program, ssh-keygen), found on
// the call's PATH, where a workspace's .venv/bin/gpg would be found
// first: they are judged as --show-signature is.

// SignatureFormat returns the placeholder of format that makes git verify
// a signature, or "". "%%" is a literal "%".
func SignatureFormat(format string) string {
	for i := 0; i+1 < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		switch {
		case format[i+1] == '%':
			i++
		case format[i+1] == 'G':
			end := min(i+3, len(format))
			return format[i:end]
		case strings.HasPrefix(format[i+1:], "(signature"), strings.HasPrefix(format[i+1:], "(*signature"):
			// %(*signature) is the signature of the object a tag points to.
			end := strings.IndexByte(format[i:], ')')
			if end < 0 {
				return format[i:]
			}
			return format[i : i+end+1]
		}
	}
	return ""
}

// gitSignatureFormat refuses a git read whose --pretty or --format
// verifies signatures, or whose shortlog --group=format:FORMAT does.
func (j *judge) gitSignatureFormat(sub *Program, ps *parsed) bool {
	for _, u := range ps.opts {
		if !u.hasValue {
			continue
		}
		format := u.value
		switch u.name {
		case "--pretty", "--format":
		case "--group":
			var ok bool
			if format, ok = strings.CutPrefix(format, "format:"); !ok {
				continue // author, committer, trailer:KEY: no format
			}
		default:
			continue
		}
		if ph := SignatureFormat(format); ph != "" {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s %s=%q: the placeholder %s verifies a signature, which runs gpg (found on the command's PATH), as --show-signature does", sub.Name, u.name, u.value, ph),
				"leave the signature placeholders (%G?, %GS, %GK, ...) out of the format")
			return true
		}
	}
	return false
}

// gitNeverPages are the subcommands git starts no pager for: builtins
// without RUN_SETUP in git.c's commands table (so pager.<cmd> is not
// read) that never call setup_pager. Every other subcommand may page:
// log, show, diff, grep, blame, shortlog and range-diff by default,
// branch, tag, config and stash when they list, and any subcommand
// (status, ls-files, add, ...) that pager.<cmd> = true switches on, in
// the repository's configuration or the person's.
var gitNeverPages = map[string]bool{"rev-parse": true, "version": true}

// gitDefaultPagers are the programs git runs as its pager when neither
// $GIT_PAGER, pager.<cmd>, core.pager nor $PAGER names one: less, or
// pager on Debian and Ubuntu, whose git is built with DEFAULT_PAGER=pager.
var gitDefaultPagers = []string{"less", "pager"}

// gitPager judges the pager git starts on a host whose line runs in a
// terminal, as gpg is judged for a signature: the default pager, found
// on the call's PATH (the person's $PAGER and global configuration are
// theirs; a program the repository's core.pager or pager.<cmd> names is
// gitConfig's). It starts nothing when the line turns it off (--no-pager,
// -P, GIT_PAGER=cat) or git's output is not the terminal (a pipe, a file).
func (j *judge) gitPager(argv []string, sub int) bool {
	if !(j.c.Terminal || j.c.Profile.Interactive()) || gitNeverPages[argv[sub]] {
		return true
	}
	for _, a := range argv[1:sub] {
		if a == "--no-pager" || a == "-P" {
			return true
		}
	}
	if j.stdoutNotTerminal() || j.envSays("GIT_PAGER", "", "cat") {
		return true
	}
	for _, p := range gitDefaultPagers {
		if !j.helperOnPath([]string{p}) {
			return false
		}
	}
	return true
}

// stdoutNotTerminal reports whether the command being judged writes its
// standard output to a pipe or a file, where no program pages it.
func (j *judge) stdoutNotTerminal() bool {
	for _, r := range j.redirs {
		if r.Target != "" && r.Write && (r.Fd == 1 || strings.HasPrefix(r.Op, "&>") || r.Op == ">&") {
			return true
		}
	}
	return j.line != nil && j.cmd+1 < len(j.line) && j.line[j.cmd+1].Joiner == "|"
}

// envSays reports whether the line sets name, for the command being
// judged, to one of values: an assignment before it or env's.
func (j *judge) envSays(name string, values ...string) bool {
	if j.line == nil || j.cmd >= len(j.line) {
		return false
	}
	c := &j.line[j.cmd]
	words := c.Env
	if len(c.Argv) > 0 && c.Argv[0] == "env" {
		for _, w := range c.Argv[1:] {
			if !strings.Contains(w, "=") || strings.HasPrefix(w, "-") {
				break // the command env starts, or an option of env's
			}
			words = append(words[:len(words):len(words)], w)
		}
	}
	for _, w := range words {
		n, v, ok := strings.Cut(w, "=")
		if ok && n == name && slices.Contains(values, v) {
			return true
		}
	}
	return false
}
