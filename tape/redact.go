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
// as the file it is, nor ${NAME:-word}'s "NAME:" (a redaction there would
// leave a line the shell, and replay, read otherwise). Each alternative holds one of secretWords, which
// lets a line without any skip the pattern.
var secretShapes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)` +
		// ${NAME:-word}, ${NAME:=word}, ${NAME:offset}, ${NAME-word}: the
		// name is no value, and its expansion is matched whole so that a
		// secret word in the name leaves the line as the shell reads it
		// (the word after it is scanned on its own).
		`(\$\{[a-z_][a-z0-9_]*(?::[-=+?]?|[-=+?]))` +
		`|(authorization:\s*(?:bearer|basic|token)\s+)[^\s"'\\$][^\s"'\\]*` +
		`|((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret|private[_-]?key)["']?\s*[=:]\s*["']?)[^\s"'\\&$@][^\s"'\\&]*` +
		`|(://[^/\s:@"']+:)[^@\s"'/]+@` +
		`|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36})\b` +
		`|-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)-----END [A-Z ]*PRIVATE KEY-----`)
})

// Redact replaces the secret values in s (secretShapes) with Redacted,
// keeping the word that named them.
func Redact(s string) string {
	if !mayHoldSecret(s) {
		return s
	}
	re := secretShapes()
	if !re.MatchString(s) {
		return s
	}
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if sub[1] != "" {
			return m // a parameter expansion's name
		}
		for i, prefix := range sub[2:5] {
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
	if len(b) == 0 || !mayHoldSecret(b) || !secretShapes().Match(b) {
		return b
	}
	return []byte(Redact(string(b)))
}

// secretWords are, by their first letter, the words every alternative
// of secretShapes contains, in lower case: a match holds one of them.
var secretWords = [128][]string{
	'a': {"authorization", "akia"},
	'p': {"pass", "pwd"},   // password, passwd, pwd
	's': {"secret", "sk-"}, // secret, client secret
	't': {"token"},
	'k': {"key"}, // api, access and private keys
	':': {"://"}, // a password in a URL
	'g': {"gh", "github_pat_", "glpat-"},
	'x': {"xox"},
	'n': {"npm_"},
	'-': {"-----begin"},
}

// mayHoldSecret is false only when secretShapes cannot match s: s is
// ASCII (the pattern's case folding maps k and s to letters outside it
// too) and holds none of secretWords, compared without case. Most lines
// hold none, and this look costs a small part of the pattern's.
func mayHoldSecret[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		for _, w := range secretWords[c] {
			if hasPrefixFold(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with lower, an ASCII word in
// lower case, in any case.
func hasPrefixFold[T string | []byte](s T, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
