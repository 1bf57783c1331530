package tape

import (
	"regexp"
	"sync"
)

// Redacted replaces a secret value on the tape and in what is exported.
const Redacted = "[redacted]"

// secretShapes are the values a command line or a tool's arguments may
// carry in the clear that are credentials by their shape or by the word
// before them: tokens of the common services, private keys, passwords in
// URLs, and the value after authorization, password, token, api key and
// the like. A value stops at a blank or a quote, so JSON stays JSON; a
// variable's name ($TOKEN) is no value, and the policy judges it as one;
// nor is @FILE (curl's and httpie's file to send), which the policy judges
// as the file it is.
var secretShapes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)` +
		`(authorization:\s*(?:bearer|basic|token)\s+)[^\s"'\\$][^\s"'\\]*` +
		`|((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret|private[_-]?key)["']?\s*[=:]\s*["']?)[^\s"'\\&$@][^\s"'\\&]*` +
		`|(://[^/\s:@"']+:)[^@\s"'/]+@` +
		`|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36})\b` +
		`|-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)-----END [A-Z ]*PRIVATE KEY-----`)
})

// Redact replaces the secret values in s (secretShapes) with Redacted,
// keeping the word that named them.
func Redact(s string) string {
	re := secretShapes()
	if !re.MatchString(s) {
		return s
	}
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		for i, prefix := range sub[1:4] {
			if prefix != "" {
				if i == 2 {
					return prefix + Redacted + "@"
				}
				return prefix + Redacted
			}
		}
		return Redacted
	})
}

// RedactRaw is Redact over a JSON value, returned as it is when it holds
// nothing to redact.
func RedactRaw(b []byte) []byte {
	if len(b) == 0 || !secretShapes().Match(b) {
		return b
	}
	return []byte(Redact(string(b)))
}
