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
}

type secretPattern struct {
	parts []string // lower-cased; the last part is the file's name
	names []namePattern
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
		"*.jks", "*.keystore", "*.ppk", "*.kdbx", "secring.*",
		// Registries' and git's credentials.
		".npmrc", ".yarnrc.yml", ".pypirc", ".netrc", "_netrc", ".git-credentials", ".gem/credentials",
		".cargo/credentials", ".cargo/credentials.toml", ".docker/config.json", ".composer/auth.json", "auth.json",
		".m2/settings.xml", ".gradle/gradle.properties", ".nuget/NuGet.Config",
		// Clouds and clusters.
		".aws/credentials", ".aws/config", ".azure/*", ".config/gcloud/*", "application_default_credentials.json",
		"service-account*.json", "*-credentials.json", "credentials.json", "client_secret*.json",
		".kube/config", "kubeconfig", "*.kubeconfig", ".terraformrc", "terraform.tfvars", "*.auto.tfvars",
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
	parts := strings.Split(strings.ToLower(strings.Trim(p, "/")), "/")
	for _, e := range s.except {
		if e.matches(parts) {
			return ""
		}
	}
	for _, m := range s.match {
		if m.matches(parts) {
			return strings.Join(m.parts, "/")
		}
	}
	return ""
}

// matches reports whether the pattern matches the end of parts.
func (sp secretPattern) matches(parts []string) bool {
	if len(sp.parts) > len(parts) {
		return false
	}
	tail := parts[len(parts)-len(sp.names):]
	for i := len(sp.names) - 1; i >= 0; i-- { // the file's name first: it tells most apart
		if !sp.names[i].matches(tail[i]) {
			return false
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
