package command

import (
	"slices"
	"testing"
)

// TestSecretName: a name is a secret by what it means.
func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"GH_PAT": true, "STRIPE_SK": true, "OPENAI_SK": true, "MYSQL_PWD": true, "DBPWD": true, "REDIS_URL": true, "HTTPS_PROXY": true, "https_proxy": true, "ALL_PROXY": true,
		"CI_JOB_JWT": true, "CI_JOB_JWT_V2": true, "GITHUB_TOKEN": true, "NPM_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_ACCESS_KEY_ID": true,
		"OPENAI_API_KEY": true, "ANTHROPIC_API_KEY": true, "SSH_KEY": true, "DB_PASSWORD": true, "PGPASSWORD": true, "MYSQL_ROOT_PASSWORD": true,
		"DATABASE_URL": true, "MONGO_URI": true, "SENTRY_DSN": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "NPM_CONFIG__AUTH": true,
		"BASIC_AUTH": true, "SLACK_WEBHOOK": true, "SESSION_COOKIE": true, "TWILIO_AUTH": true, "KUBE_CERT": true, "DOCKER_PASS": true,
		"gh_pat": true, "my-token": true, "OTP": true,
		"PATH": false, "HOME": false, "PWD": false, "OLDPWD": false, "GOPATH": false, "NODE_ENV": false, "USER": false, "SHELL": false,
		"LANG": false, "TERM": false, "CI": false, "GITHUB_SHA": false, "GIT_AUTHOR_NAME": false, "GIT_AUTHOR_EMAIL": false, "NO_PROXY": false,
		"HTTP_AUTHORIZATION": true, "MNEMONIC": true, "LDAP_BIND_PW": true, "OTEL_EXPORTER_OTLP_HEADERS": true, "BUNDLE_GEMS__X__COM": true,
		"SSHPASS": true, "TS_AUTHKEY": true, "DD_APP_KEY": true, "CI_REPOSITORY_URL": true, "BUILD_CERTIFICATE_BASE64": true, "VITE_API_KEY": true,
		"TOKENIZERS_PARALLELISM": false, "MAX_TOKENS": false, "SESSION_TIMEOUT": false, "AUTH_ENABLED": false, "BYPASS_CACHE": false,
		"PASSTHROUGH": false, "KEYBOARD_LAYOUT": false, "MONKEYPATCH": false, "PUBLIC_KEY": false, "SSL_CERT_FILE": false, "NODE_EXTRA_CA_CERTS": false,
		"SSH_AUTH_SOCK": false, "GOPRIVATE": false, "NEXT_PUBLIC_API_URL": false, "GITHUB_SERVER_URL": false, "HOTKEY": false, "BUNDLE_PATH": false,
		"PYTHONPATH": false, "PATCH": false, "DISK": false, "TASK": false, "GOPROXY_X": true, "EDITOR": false, "HOSTNAME": false, "XDG_SESSION_TYPE": false, "VIRTUAL_ENV": false,
	} {
		if got := secretName(name); got != want {
			t.Errorf("secretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestSecretValue: a value is a secret by its shape.
func TestSecretValue(t *testing.T) {
	for v, want := range map[string]bool{
		"redis://:hunter2@cache:6379/0": true, "postgres://app:pw@db/app": true, "http://u:p@proxy:3128": true,
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789": true, "github_pat_11ABCDEFG0123456789": true, "sk-proj-abcdefghijkl": true,
		"xoxb-1234-5678-abcdef": true, "AKIAIOSFODNN7EXAMPLE": true, "eyJhbGciOiJIUzI1NiJ9.e30.x": true,
		"-----BEGIN OPENSSH PRIVATE KEY-----\nx": true,
		"https://example.com/path":               false, "http://proxy:3128": false, "git@github.com:o/r": false, "production": false, "": false,
		"Server=db;Database=app;User Id=sa;Password=hunter2;": true, "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=abc==;": true,
		"glpat-abcdefghijklmnop": true, "hvs.CAESIabcdefghijkl": true, "GOCSPX-abcdefghijklmnop": true, "AGE-SECRET-KEY-1QQQQQQQQQQ": true,
		"a=1;b=2": false, "LANG=C;x": false, "SG.": false,
		"/usr/bin:/bin": false, "sk-": false, "https://user@host/x": false,
	} {
		if got := secretValue(v); got != want {
			t.Errorf("secretValue(%q) = %v, want %v", v, got, want)
		}
	}
}

func BenchmarkSecretName(b *testing.B) {
	names := []string{"PATH", "HOME", "GOPATH", "NODE_ENV", "GITHUB_TOKEN", "MYSQL_PWD", "REDIS_URL", "GIT_AUTHOR_NAME"}
	for b.Loop() {
		for _, n := range names {
			_ = secretName(n)
		}
	}
}

func TestSecretValueNames(t *testing.T) {
	env := []string{"A=postgres://u:pw@db/x", "B=https://example.com/x", "C=ghp_0123456789abcdef", "D=", "E", "A=again", "F=-----BEGIN OPENSSH PRIVATE KEY-----\nx", "G=http://host:8080/path@x"}
	got := SecretValueNames(env)
	if want := []string{"A", "C", "F"}; !slices.Equal(got, want) {
		t.Errorf("SecretValueNames = %v, want %v", got, want)
	}
	if SecretValueNames([]string{"PATH=/usr/bin", "HOME=/home/me"}) != nil {
		t.Error("plain values named")
	}
}
