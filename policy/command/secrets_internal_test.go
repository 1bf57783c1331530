package command

import (
	"path"
	"strings"
	"testing"
)

// A compiled name pattern matches exactly what path.Match does, on a
// name (one part of a path: no "/").
func FuzzNamePattern(f *testing.F) {
	for _, s := range [][2]string{{"*.pem", "key.pem"}, {".env.*", ".env.local"}, {"id_rsa", "id_rsa"}, {"secring.*", "secring.gpg"},
		{"*", ""}, {"a*b*", "axbyb"}, {`\*x`, "*x"}, {"*[ab]", "xa"}, {"client_secret*.json", "client_secret_1.json"}, {"*.", "a."}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		want, err := path.Match(pattern, name)
		if err != nil || pattern == "" || strings.Contains(name, "/") {
			return
		}
		if got := compileName(pattern).matches(name); got != want {
			t.Fatalf("%q against %q: %v, path.Match says %v", pattern, name, got, want)
		}
	})
}

func BenchmarkSecret(b *testing.B) {
	s := DefaultSecrets()
	for b.Loop() {
		if s.Secret("/home/u/ws/src/internal/README.md") != "" {
			b.Fatal("README.md is no secret")
		}
	}
}

// testSecretPatterns are the defaults with patterns of every shape.
func testSecretPatterns() []string {
	return append(DefaultSecretPatterns(), "conf/*/token", "[ab]*.key", "x?.env", "deploy/keys/*", "!keys/public.key",
		`a\*.pem`, "tok[0-9].txt", "*.tar.gz", "!old*.tar.gz", "id_*", "*secret")
}

// secretByEveryPattern is what comparing p with every pattern in order,
// the exemptions first, says.
func secretByEveryPattern(s *Secrets, p string) string {
	parts := strings.Split(strings.ToLower(strings.Trim(p, "/")), "/")
	ends := func(sp secretPattern) bool {
		if len(sp.parts) > len(parts) {
			return false
		}
		tail := parts[len(parts)-len(sp.names):]
		for i := range sp.names {
			if !sp.names[i].matches(tail[i]) {
				return false
			}
		}
		return true
	}
	for _, e := range s.except {
		if ends(e) {
			return ""
		}
	}
	for _, m := range s.match {
		if ends(m) {
			return m.text
		}
	}
	return ""
}

var secretTestPaths = []string{"", "/", ".env", "/w/.env", "/w/.ENV.local", "/w/.env.example", "/w/a.env", "/w/a.env.sample", "/w/keys/id_ed25519",
	"/w/certs/server.pem", "/w/.aws/credentials", "aws/credentials", "/h/.config/gcloud/x.json", "/w/conf/a/token", "/w/conf/token",
	"/w/b1.key", "/w/keys/public.key", "/w/deploy/keys/k", "/w/xy.env", "/w/README.md", "/w/src/main.go", "/w/secring.gpg",
	"/w/service-account-1.json", "/w/.docker/config.json", "/w/docker/config.json", "/w/Terraform.TFSTATE", "/w/a/b/c/.netrc",
	"/w/a*.pem", "/w/tok7.txt", "/w/x.tar.gz", "/w/old1.tar.gz", "/w/id_x", "/w/mysecret", "/w/client_secret_9.json", "/w/x.", "/w/.", "/w/a.b.c",
	"/w/.azure/profile", ".azure", "/w/.AZURE/x", "/w/azure/x", "/h/gcloud/x", "/w/SECRING.kbx", "/w/.envrc"}

// The indexed matcher answers what comparing the path with every
// pattern in order does.
func TestSecretIndexAgreesWithEveryPattern(t *testing.T) {
	s, err := NewSecrets(testSecretPatterns())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range secretTestPaths {
		if got, want := s.Secret(p), secretByEveryPattern(s, p); got != want {
			t.Errorf("Secret(%q) = %q, every pattern in order says %q", p, got, want)
		}
	}
}

// FuzzSecretIndex: the same, for any path and one more pattern.
func FuzzSecretIndex(f *testing.F) {
	for _, p := range secretTestPaths {
		f.Add(p, "*.pem")
	}
	f.Add("/w/a[b].x", "a[[]b].x")
	f.Add("/w/a/b", "a/*")
	f.Add("/w/b/a/b", "!b/a/*")
	f.Add("/w/sec", "s*")
	f.Fuzz(func(t *testing.T, p, extra string) {
		s, err := NewSecrets(append(testSecretPatterns(), extra))
		if err != nil {
			return
		}
		if got, want := s.Secret(p), secretByEveryPattern(s, p); got != want {
			t.Fatalf("Secret(%q) with %q = %q, every pattern in order says %q", p, extra, got, want)
		}
	})
}
