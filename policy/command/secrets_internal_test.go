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
