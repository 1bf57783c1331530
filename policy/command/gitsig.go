package command

import (
	"fmt"
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
