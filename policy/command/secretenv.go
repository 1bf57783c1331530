package command

import (
	"slices"
	"strings"
	"sync"
)

// Secrets by meaning (docs/policy-programs.md, "Secrets in variables"): a
// variable's name is a secret when it means one, not when it is on a
// list: tokens, keys, passwords, credentials, JWTs, sessions and cookies,
// and the connection URLs and proxies that may carry a user and password
// (DATABASE_URL, REDIS_URL, HTTPS_PROXY). Where the value is known (the
// call's environment), a value that carries credentials
// (scheme://user:pass@host) or starts like a known token (ghp_, sk-,
// xoxb-, AKIA...) is one whatever its name. The words are compiled once
// into one matcher (envMatcher): every $NAME that echo prints and every
// printenv NAME is checked.

// envMatcher is the compiled meaning of secret names.
type envMatcher struct {
	// anywhere are the words a name holds anywhere (MY_GH_TOKEN_2).
	anywhere []string
	// parts are the words that are a secret as a whole part of the name,
	// split at "_", "-" and ".", or as its last part's end (GH_PAT,
	// MYSQL_PWD, DBPWD, SSH_KEY, APIKEY).
	parts, partEnds []string
	// urlParts end a name that holds a URL or a connection string, which
	// may carry a user and password (REDIS_URL, SENTRY_DSN, MONGO_URI).
	urlParts []string
	// exempt are names that hold one of the words and mean no secret.
	exempt map[string]bool
}

var secretEnvNames = sync.OnceValue(func() *envMatcher {
	return &envMatcher{
		anywhere: []string{"TOKEN", "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "JWT", "PRIVATE", "COOKIE", "SESSION", "APIKEY", "API_KEY", "ACCESS_KEY",
			"CERT", "CONNECTION_STRING", "CONN_STR", "CONNSTR", "DATABASE_URL", "WEBHOOK", "SALT", "BEARER", "PROXY", "DSN", "KEY", "PASS", "CRED"},
		parts:    []string{"PAT", "PWD", "AUTH", "OTP", "HMAC"},
		partEnds: []string{"PWD", "AUTH"},
		urlParts: []string{"URL", "URI", "DSN"},
		exempt: map[string]bool{
			"PWD": true, "OLDPWD": true, "NO_PROXY": true, "no_proxy": true, "KEYTIMEOUT": true, "KEYMAP": true,
			"XDG_SESSION_TYPE": true, "XDG_SESSION_ID": true, "XDG_SESSION_CLASS": true, "XDG_SESSION_DESKTOP": true, "DBUS_SESSION_BUS_ADDRESS": true,
		},
	}
})

// secretName reports whether a variable's name says it holds a secret.
func secretName(name string) bool {
	return secretEnvNames().secret(name)
}

func (m *envMatcher) secret(name string) bool {
	if m.exempt[name] {
		return false
	}
	u := strings.ToUpper(name) // no copy for an upper-case name
	if strings.Contains(u, "AUTH") {
		// AUTHOR (GIT_AUTHOR_NAME) is no credential; AUTH elsewhere is.
		if strings.Contains(strings.ReplaceAll(u, "AUTHOR", ""), "AUTH") {
			return true
		}
	}
	for _, w := range m.anywhere {
		if strings.Contains(u, w) {
			return true
		}
	}
	last := ""
	for rest := u; rest != ""; {
		i := strings.IndexAny(rest, "_-.")
		part := rest
		if i >= 0 {
			part, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if part == "" {
			continue
		}
		last = part
		for _, w := range m.parts {
			if part == w {
				return true
			}
		}
	}
	for _, w := range m.partEnds {
		if strings.HasSuffix(last, w) {
			return true
		}
	}
	for _, w := range m.urlParts {
		if last == w || strings.HasSuffix(u, "_"+w) {
			return true
		}
	}
	return false
}

// SecretValueNames are the names of the variables of environ (NAME=value
// words, as os.Environ gives them) whose values are credentials by their
// shape (secretValue), sorted; nil when none is. Only the names leave
// here: a decision, its tape record and the socket carry names, never a
// value.
func SecretValueNames(environ []string) []string {
	var names []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && name != "" && secretValue(value) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// secretVar says why a variable printed or sent is a secret: its name
// means one, or its value (Context.SecretValues) is one; "" when neither.
func (c *Context) secretVar(name string) string {
	switch {
	case secretName(name):
		return "whose name says it holds a secret"
	case slices.Contains(c.SecretValues, name):
		return "whose value in the call's environment is a credential (a URL with a password, or a token by its shape)"
	}
	return ""
}

// secretValue reports whether a variable's value is a credential by its
// shape: a URL with a password (scheme://user:pass@host), or a token of a
// kind whose prefix says so.
func secretValue(v string) bool {
	if v == "" {
		return false
	}
	if i := strings.Index(v, "://"); i > 0 {
		rest := v[i+3:]
		if end := strings.IndexAny(rest, "/?#"); end >= 0 {
			rest = rest[:end]
		}
		if at := strings.LastIndexByte(rest, '@'); at > 0 && strings.IndexByte(rest[:at], ':') >= 0 {
			return true
		}
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(v, p) && len(v) >= len(p)+8 {
			return true
		}
	}
	return strings.Contains(v, "-----BEGIN ") && strings.Contains(v, "PRIVATE KEY")
}

// tokenPrefixes start the tokens of the services agents meet: GitHub,
// GitLab, OpenAI and Anthropic, Stripe, Slack, AWS, Google, npm, PyPI,
// Hugging Face, DigitalOcean, a JWT's header.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "sk_live_", "sk_test_", "rk_live_", "pk_live_",
	"xoxb-", "xoxp-", "xoxa-", "xoxs-", "xapp-", "AKIA", "ASIA", "AIza", "ya29.", "npm_", "pypi-", "hf_", "dop_v1_", "eyJ"}
