package command

import (
	"fmt"
	"path"
	"strings"
	"sync"
)

// Secrets are the patterns of the files whose reading asks a person
// (secret-read): the model sees what a command reads, so the person
// decides whether it may see a .env or a private key. A pattern without
// a "/" matches a file's name at any depth (".env", "*.pem"); one with a
// "/" matches the end of its path, a folder name at a time
// (".aws/credentials"). "*" and "?" match within a name, "[...]" a set of
// characters, as path.Match does. A pattern starting with "!" exempts
// what it matches (".env.example"), whatever the order. Names are
// compared case-insensitively, as the file systems of many editors' hosts
// compare them.
type Secrets struct {
	match, except []secretPattern
	// ix finds, by the file's name, the patterns of both lists that may
	// match it: a path is compared only with those, not with every one
	// (measured comparing with each, the check was 9% of a decision).
	ix secretMatcher
}

type secretPattern struct {
	parts []string // lower-cased; the last part is the file's name
	names []namePattern
	text  string // parts joined, as Secret reports it
}

// secretMatcher is one index over the patterns and the exemptions, by
// what a file's name must be for the pattern's last part to match it: the
// name itself (a literal), its extension (the last "." of a literal end:
// "*.pem", "*-credentials.json", "service-account*.json"), its first byte
// (a prefix: ".env.*", "secring.*"), or, for a last part that matches any
// name ("*"), the literal folder above it (".azure/*", "gcloud/*"), or
// its last byte (a suffix with no ".": "*_rsa"); the rest are compared
// with every name.
type secretMatcher struct {
	exact, ext, parent map[string][]secretRef
	first, last        map[byte][]secretRef
	rest               []secretRef
	// firsts and parents hold the first bytes of first's keys and of
	// parent's, lasts last's keys, exacts and exts filter exact's and
	// ext's keys, so that most names skip those lookups.
	firsts, parents, lasts byteSet
	exacts, exts           nameFilter
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (b *byteSet) add(c byte)      { b[c>>6] |= 1 << (c & 63) }
func (b *byteSet) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }

// secretRef is a pattern of Secrets.match, or of except when exempt.
type secretRef struct {
	i      int
	exempt bool
}

func (m *secretMatcher) add(sp *secretPattern, ref secretRef) {
	last := sp.names[len(sp.names)-1]
	switch tail := last.literalEnd(); {
	case last.kind == '=':
		m.exact[last.text] = append(m.exact[last.text], ref)
		m.exacts.add(last.text)
	case strings.Contains(tail, "."):
		e := tail[strings.LastIndexByte(tail, '.'):]
		m.ext[e] = append(m.ext[e], ref)
		m.exts.add(e)
	case last.kind == 'p' && last.text != "":
		m.first[last.text[0]] = append(m.first[last.text[0]], ref)
		m.firsts.add(last.text[0])
	case last.kind == 's' && last.text == "" && len(sp.names) > 1 && sp.names[len(sp.names)-2].kind == '=':
		up := sp.names[len(sp.names)-2].text
		m.parent[up] = append(m.parent[up], ref)
		m.parents.add(up[0])
	case last.kind == 's' && last.text != "":
		// "*_rsa": only a name ending in its last byte can match.
		c := last.text[len(last.text)-1]
		m.last[c] = append(m.last[c], ref)
		m.lasts.add(c)
	default:
		m.rest = append(m.rest, ref)
	}
}

// find returns the pattern that makes lp (lower-cased, no leading or
// trailing "/") whose last part is name a secret: the first in order
// of those that match, "" when none does or an exemption matches.
func (s *Secrets) find(lp, name string) string {
	best := -1
	exempt := false
	try := func(refs []secretRef) {
		for _, r := range refs {
			if exempt || !r.exempt && best >= 0 && r.i > best {
				continue
			}
			sp := &s.match[r.i]
			if r.exempt {
				sp = &s.except[r.i]
			}
			if !sp.names[len(sp.names)-1].matches(name) || !sp.matchesPath(lp) {
				continue
			}
			if r.exempt {
				exempt = true
			} else {
				best = r.i
			}
		}
	}
	if s.ix.exacts.mayHave(name) {
		try(s.ix.exact[name])
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 && s.ix.exts.mayHave(name[i:]) {
		try(s.ix.ext[name[i:]])
	}
	if name != "" && s.ix.firsts.has(name[0]) {
		try(s.ix.first[name[0]])
	}
	if name != "" && s.ix.lasts.has(name[len(name)-1]) {
		try(s.ix.last[name[len(name)-1]])
	}
	if len(name) < len(lp) {
		up := lp[:len(lp)-len(name)-1]
		if up = up[strings.LastIndexByte(up, '/')+1:]; up != "" && s.ix.parents.has(up[0]) {
			try(s.ix.parent[up])
		}
	}
	if len(s.ix.rest) > 0 {
		try(s.ix.rest)
	}
	if exempt || best < 0 {
		return ""
	}
	return s.match[best].text
}

// namePattern is one part of a secret pattern, compiled: most are a
// literal name, "*SUFFIX" or "PREFIX*", which need no path.Match (every
// read is checked against every pattern).
type namePattern struct {
	kind byte // '=' literal, 's' suffix, 'p' prefix, 'g' path.Match
	text string
}

func compileName(part string) namePattern {
	const meta = `*?[\`
	switch {
	case !strings.ContainsAny(part, meta):
		return namePattern{'=', part}
	case part[0] == '*' && !strings.ContainsAny(part[1:], meta):
		return namePattern{'s', part[1:]}
	case part[len(part)-1] == '*' && !strings.ContainsAny(part[:len(part)-1], meta):
		return namePattern{'p', part[:len(part)-1]}
	}
	return namePattern{'g', part}
}

// literalEnd is what every name the pattern matches ends with, as far
// as its text tells: the text after its last special character ("*",
// "?", "[", "]" or "\\"), all of it for a literal.
func (n namePattern) literalEnd() string {
	switch n.kind {
	case '=', 's':
		return n.text
	case 'p':
		return ""
	}
	return n.text[strings.LastIndexAny(n.text, `*?[]\`)+1:]
}

func (n namePattern) matches(name string) bool {
	switch n.kind {
	case '=':
		return name == n.text
	case 's':
		return strings.HasSuffix(name, n.text)
	case 'p':
		return strings.HasPrefix(name, n.text)
	}
	ok, _ := path.Match(n.text, name)
	return ok
}

// DefaultSecretPatterns are the files that hold secrets in the
// toolchains and clouds agents work with: environment files, private
// keys and certificates, package registries' and git's credentials,
// cloud and cluster credentials, and their kin. Examples and templates of
// environment files are exempt.
func DefaultSecretPatterns() []string {
	return []string{
		// Environment files (dotenv, direnv's .envrc is code, not a secret
		// store, and is a protected path).
		".env", ".env.*", "*.env", "!.env.example", "!.env.sample", "!.env.template", "!.env.dist", "!.env.defaults",
		"!*.env.example", "!*.env.sample", "!*.env.template",
		// Private keys and certificates with keys.
		"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "*.key", "*.pem", "*.p12", "*.pfx",
		"*.jks", "*.keystore", "*.ppk", "*.kdbx", "secring.*", "*.p8", "*.keytab",
		// Keys named for their use (deploy_rsa, github_ed25519), and
		// whatever else .ssh holds but its public halves and settings.
		"*_rsa", "*_dsa", "*_ecdsa", "*_ed25519", ".ssh/*", "!.ssh/*.pub", "!.ssh/known_hosts", "!.ssh/known_hosts.old", "!.ssh/config",
		"!.ssh/authorized_keys", ".gnupg/private-keys-v1.d/*",
		// Registries' and git's credentials.
		".npmrc", ".yarnrc.yml", ".pypirc", ".netrc", "_netrc", ".git-credentials", ".gem/credentials",
		".cargo/credentials", ".cargo/credentials.toml", ".docker/config.json", ".composer/auth.json", "auth.json",
		".dockerconfigjson", ".dockercfg", ".config/gh/hosts.yml", ".config/hub", "rclone.conf",
		".m2/settings.xml", ".gradle/gradle.properties", ".nuget/NuGet.Config",
		// Clouds and clusters.
		".aws/credentials", ".aws/config", ".azure/*", ".config/gcloud/*", "application_default_credentials.json",
		"service-account*.json", "*-credentials.json", "credentials.json", "client_secret*.json",
		"serviceaccount*.json", "token.json", "token.pickle",
		".kube/config", "kubeconfig", "*.kubeconfig", "kubeconfig.yaml", "kubeconfig.yml", ".terraformrc", "*.tfvars", "!*.tfvars.example",
		"*.tfstate", "*.tfstate.backup", ".vault-token", ".boto", ".s3cfg",
		// Databases and other services.
		".pgpass", ".my.cnf", ".htpasswd", "secrets.yml", "secrets.yaml", "secrets.json", "*.secret", "*.secrets",
		".envrc.local",
	}
}

// NewSecrets compiles patterns; an empty one, or one path.Match cannot
// read, is an error naming it.
func NewSecrets(patterns []string) (*Secrets, error) {
	s := &Secrets{}
	for i, p := range patterns {
		raw := p
		exempt := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		p = strings.Trim(p, "/")
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("secrets[%d]: %q names no file", i, raw)
		}
		sp := secretPattern{parts: strings.Split(strings.ToLower(p), "/")}
		sp.text = strings.Join(sp.parts, "/")
		for _, part := range sp.parts {
			if part == "" || part == "." || part == ".." {
				return nil, fmt.Errorf("secrets[%d]: %q has an empty, \".\" or \"..\" folder", i, raw)
			}
			if _, err := path.Match(part, ""); err != nil {
				return nil, fmt.Errorf("secrets[%d]: %q: %v", i, raw, err)
			}
			sp.names = append(sp.names, compileName(part))
		}
		if exempt {
			s.except = append(s.except, sp)
		} else {
			s.match = append(s.match, sp)
		}
	}
	s.ix = secretMatcher{exact: map[string][]secretRef{}, ext: map[string][]secretRef{}, parent: map[string][]secretRef{}, first: map[byte][]secretRef{}, last: map[byte][]secretRef{}}
	for i := range s.match {
		s.ix.add(&s.match[i], secretRef{i: i})
	}
	for i := range s.except {
		s.ix.add(&s.except[i], secretRef{i: i, exempt: true})
	}
	return s, nil
}

// defaultSecrets are DefaultSecretPatterns compiled once, on first use:
// the policy's own constant, read by every decision that sets no
// patterns.
var defaultSecrets = sync.OnceValue(func() *Secrets {
	s, err := NewSecrets(DefaultSecretPatterns())
	if err != nil {
		panic("command: default secrets: " + err.Error())
	}
	return s
})

// DefaultSecrets is DefaultSecretPatterns, compiled.
func DefaultSecrets() *Secrets { return defaultSecrets() }

// Secret returns the pattern that makes the file at p (absolute, or
// relative to a root) a secret, or "".
func (s *Secrets) Secret(p string) string {
	if s == nil {
		return ""
	}
	lp := strings.ToLower(strings.Trim(p, "/")) // no copy when p is lower-case already
	return s.find(lp, lp[strings.LastIndexByte(lp, '/')+1:])
}

// mayName reports whether a pattern may name a file called name (lower
// case) in a folder called parent (lower case, "" at a root): the
// index's filters as find reads them, no path built. A folder's listing
// asks it of every entry (walksecrets.go), most of which no pattern names.
func (s *Secrets) mayName(parent, name string) bool {
	ix := &s.ix
	switch {
	case len(ix.rest) > 0, ix.exacts.mayHave(name):
		return true
	case name != "" && (ix.firsts.has(name[0]) || ix.lasts.has(name[len(name)-1])):
		return true
	case parent != "" && ix.parents.has(parent[0]):
		return true
	}
	i := strings.LastIndexByte(name, '.')
	return i >= 0 && ix.exts.mayHave(name[i:])
}

// matchesPath reports whether the pattern matches the end of lp, a part
// at a time from the file's name up, without splitting lp.
func (sp *secretPattern) matchesPath(lp string) bool {
	rest, more := lp, true
	for i := len(sp.names) - 1; i >= 0; i-- {
		if !more {
			return false // the pattern has more folders than the path
		}
		cut := strings.LastIndexByte(rest, '/')
		if !sp.names[i].matches(rest[cut+1:]) {
			return false
		}
		if cut < 0 {
			more = false
		} else {
			rest = rest[:cut]
		}
	}
	return true
}

// secrets are the context's patterns, or the defaults.
func (c *Context) secrets() *Secrets {
	if c.Secrets != nil {
		return c.Secrets
	}
	return defaultSecrets()
}
