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

// envMatcher is the compiled meaning of secret names. A name is read a
// part at a time (split at "_", "-" and "."), upper-cased.
type envMatcher struct {
	// anywhere are the words a name holds anywhere (MY_GH_TOKEN_2).
	anywhere []string
	// parts are the words that are a secret as a whole part of the name
	// (GH_PAT, MYSQL_PWD, LDAP_BIND_PW, SSH_KEY, DD_APP_KEY), partEnds
	// those that are as a part's end (DBPWD, SSHPASS, APIKEY, AUTHKEY);
	// endsNot are the ordinary words with such an end (BYPASS, HOTKEY).
	parts, partEnds []string
	endsNot         map[string]bool
	// lastParts are a secret as the name's last part: the headers an
	// exporter sends, its API key among them (OTEL_EXPORTER_OTLP_HEADERS).
	lastParts []string
	// urlParts end a name that holds a URL or a connection string, which
	// may carry a user and password (REDIS_URL, SENTRY_DSN, MONGO_URI).
	urlParts []string
	// settings are the parts of a name that bounds, counts or switches
	// what the other words name, and holds none of it: MAX_TOKENS,
	// SESSION_TIMEOUT, AUTH_ENABLED, PASSWORD_MIN_LENGTH, TOKEN_TYPE.
	settings map[string]bool
	// public are the prefixes of the variables that the web frameworks
	// ship to every browser, so mean no secret as a URL: a key keeps its
	// meaning (a VITE_ key is a mistake, but a key).
	public []string
	// exempt are names that hold one of the words and mean no secret: the
	// shell's folders, the desktop's sessions, Go's module proxy
	// settings, the agent socket's path, the CI systems' documented URLs
	// of the project and the job (not CI_REPOSITORY_URL, which carries
	// the job's token).
	exempt map[string]bool
}

var secretEnvNames = sync.OnceValue(func() *envMatcher {
	return &envMatcher{
		anywhere: []string{"SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "JWT", "PRIVATE", "COOKIE", "SESSION", "APIKEY", "API_KEY", "ACCESS_KEY",
			"CONNECTION_STRING", "CONN_STR", "CONNSTR", "DATABASE_URL", "WEBHOOK", "SALT", "BEARER", "PROXY", "DSN", "CRED", "AUTHORIZ",
			"KEYSTORE", "KEYCHAIN", "KEYRING", "KEYPAIR", "KEYFILE", "MNEMONIC", "SEED_PHRASE", "SEEDPHRASE"},
		parts:    []string{"PAT", "PWD", "PW", "AUTH", "OTP", "HMAC", "PASS", "PASSCODE", "PASSKEY", "KEY", "KEYS", "PIN", "SK"},
		partEnds: []string{"PWD", "AUTH", "PASS", "KEY", "KEYS"},
		endsNot: map[string]bool{
			"BYPASS": true, "COMPASS": true, "ENCOMPASS": true, "SURPASS": true, "OVERPASS": true, "UNDERPASS": true,
			"HOTKEY": true, "HOTKEYS": true, "MONKEY": true, "TURKEY": true, "HOCKEY": true, "DONKEY": true, "JOCKEY": true, "WHISKEY": true,
		},
		lastParts: []string{"HEADERS"},
		urlParts:  []string{"URL", "URI", "DSN"},
		settings: map[string]bool{
			"MAX": true, "MIN": true, "NUM": true, "COUNT": true, "LIMIT": true, "LEN": true, "LENGTH": true, "SIZE": true,
			"TIMEOUT": true, "TTL": true, "EXPIRY": true, "EXPIRES": true, "ENABLED": true, "DISABLED": true, "ENABLE": true, "DISABLE": true,
			"TYPE": true, "MODE": true,
		},
		public: []string{"NEXT_PUBLIC_", "NUXT_PUBLIC_", "EXPO_PUBLIC_", "PUBLIC_", "VITE_", "REACT_APP_", "GATSBY_"},
		exempt: map[string]bool{
			"PWD": true, "OLDPWD": true, "NO_PROXY": true, "no_proxy": true, "KEYTIMEOUT": true, "KEYMAP": true,
			"XDG_SESSION_TYPE": true, "XDG_SESSION_ID": true, "XDG_SESSION_CLASS": true, "XDG_SESSION_DESKTOP": true, "XDG_SESSION_PATH": true,
			"DBUS_SESSION_BUS_ADDRESS": true, "SESSION_MANAGER": true, "DESKTOP_SESSION": true, "GDMSESSION": true, "SSH_AUTH_SOCK": true,
			"GOPROXY": true, "GONOPROXY": true, "GOPRIVATE": true,
			"GITHUB_SERVER_URL": true, "GITHUB_API_URL": true, "GITHUB_GRAPHQL_URL": true,
			"CI_PROJECT_URL": true, "CI_SERVER_URL": true, "CI_PIPELINE_URL": true, "CI_JOB_URL": true, "CI_API_V4_URL": true, "CI_API_GRAPHQL_URL": true,
			"CI_PAGES_URL": true, "CI_ENVIRONMENT_URL": true, "CI_MERGE_REQUEST_PROJECT_URL": true,
			"BUILD_URL": true, "JOB_URL": true, "JENKINS_URL": true, "RUN_DISPLAY_URL": true, "CIRCLE_BUILD_URL": true,
		},
	}
})

// secretName reports whether a variable's name says it holds a secret.
func secretName(name string) bool {
	return secretEnvNames().secret(name)
}

// maxNameParts bounds the parts of a name read (a longer one is read
// whole by the words that hold anywhere, and its first parts by parts).
const maxNameParts = 16

func (m *envMatcher) secret(name string) bool {
	if m.exempt[name] {
		return false
	}
	u := strings.ToUpper(name) // no copy for an upper-case name
	var buf [maxNameParts]string
	parts := buf[:0]
	for rest := u; rest != "" && len(parts) < maxNameParts; {
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
		if m.settings[part] {
			return false // it bounds or switches a secret; it holds none
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return false
	}
	if strings.HasPrefix(u, "BUNDLE_") && strings.Contains(u, "__") {
		return true // Bundler's credentials for a host (BUNDLE_GEMS__EXAMPLE__COM)
	}
	if holdsBut(u, "TOKEN", "IZ") || holdsBut(u, "AUTH", "OR") && !strings.Contains(u, "AUTHORIZ") {
		return true // not TOKENIZER, not AUTHOR (GIT_AUTHOR_NAME)
	}
	for _, w := range m.anywhere {
		if strings.Contains(u, w) {
			return true
		}
	}
	public := false
	for _, p := range parts {
		public = public || p == "PUBLIC" || p == "PUB" || p == "PUBKEY"
	}
	last := parts[len(parts)-1]
	if strings.Contains(u, "CERT") && !certLocation(parts) {
		return true // a certificate's data, which may carry its key (BUILD_CERTIFICATE_BASE64)
	}
	for _, part := range parts {
		key := strings.HasPrefix(part, "KEY") || strings.HasSuffix(part, "KEY") || strings.HasSuffix(part, "KEYS")
		if key && public {
			continue // a public key (PUBLIC_KEY, NEXT_PUBLIC_SUPABASE_ANON_KEY)
		}
		for _, w := range m.parts {
			if part == w {
				return true
			}
		}
		if m.endsNot[part] {
			continue
		}
		for _, w := range m.partEnds {
			if len(part) > len(w) && strings.HasSuffix(part, w) {
				return true
			}
		}
	}
	for _, w := range m.lastParts {
		if last == w {
			return true
		}
	}
	for _, w := range m.urlParts {
		if last == w || strings.HasSuffix(u, "_"+w) {
			return !public && !m.publicPrefix(u)
		}
	}
	return false
}

// holdsBut reports whether u holds word at a place where not does not
// follow it.
func holdsBut(u, word, not string) bool {
	for rest := u; ; {
		i := strings.Index(rest, word)
		if i < 0 {
			return false
		}
		rest = rest[i+len(word):]
		if !strings.HasPrefix(rest, not) {
			return true
		}
	}
}

// certLocation reports a name of a certificate's place, not its data:
// its file, folder or bundle (SSL_CERT_FILE, SSL_CERT_DIR), or the
// authorities' certificates, which are public (NODE_EXTRA_CA_CERTS).
func certLocation(parts []string) bool {
	switch parts[len(parts)-1] {
	case "FILE", "FILES", "DIR", "DIRS", "PATH", "BUNDLE":
		return true
	}
	for _, p := range parts {
		if p == "CA" || p == "CAS" {
			return true
		}
	}
	return false
}

func (m *envMatcher) publicPrefix(u string) bool {
	for _, p := range m.public {
		if strings.HasPrefix(u, p) {
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
	if strings.Contains(v, "-----BEGIN ") && strings.Contains(v, "PRIVATE KEY") {
		return true
	}
	// A connection string of key=value pairs (ADO.NET, Azure Storage and
	// Service Bus, ODBC) that carries its password or key.
	if strings.IndexByte(v, '=') > 0 && strings.IndexByte(v, ';') > 0 {
		l := strings.ToLower(v)
		for _, k := range connectionSecrets {
			if strings.HasPrefix(l, k) || strings.Contains(l, ";"+k) || strings.Contains(l, "; "+k) {
				return true
			}
		}
	}
	return false
}

// connectionSecrets are the keys of a connection string whose value is a
// credential.
var connectionSecrets = []string{"password=", "pwd=", "accountkey=", "sharedaccesskey=", "sharedaccesssignature="}

// tokenPrefixes start the tokens of the services agents meet: GitHub,
// GitLab, OpenAI and Anthropic, Stripe, Slack, AWS, Google, npm, PyPI,
// Hugging Face, DigitalOcean, a JWT's header, and more below.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "sk_live_", "sk_test_", "rk_live_", "pk_live_",
	"xoxb-", "xoxp-", "xoxa-", "xoxs-", "xapp-", "AKIA", "ASIA", "AIza", "ya29.", "npm_", "pypi-", "hf_", "dop_v1_", "eyJ",
	// GitLab's other tokens, Shopify, Slack's refresh, Square, age, Vault,
	// Google's OAuth client secret, Linear, PlanetScale, SendGrid, Stripe's
	// webhooks, Atlassian, Netlify, Notion, Docker, Pulumi.
	"glptt-", "gldt-", "glrt-", "glcbt-", "shpat_", "shpss_", "shpca_", "xoxe.", "xoxe-", "sq0atp-", "sq0csp-", "AGE-SECRET-KEY-",
	"hvs.", "hvb.", "GOCSPX-", "lin_api_", "pscale_tkn_", "pscale_pw_", "SG.", "whsec_", "rk_test_", "ATATT3", "nfp_", "ntn_", "dckr_pat_", "pul-"}
