package command

import (
	"strings"
	"testing"
)

// TestEnvPathsTable: every variable of the table says what it is and
// how it is used, and is judged by the table, not refused first by
// runsWith nor judged as code by codeVars (an entry either would shadow
// is dead). npm's settings are found in every spelling npm reads.
func TestEnvPathsTable(t *testing.T) {
	for name, ep := range envPaths {
		if ep.use == 0 || ep.what == "" {
			t.Errorf("%s: no use or no description", name)
		}
		if why := runsWith(name + "=/x"); why != "" {
			t.Errorf("%s: refused by runsWith (%s) before the table is read", name, why)
		}
		if _, code := codeVars[name]; code {
			t.Errorf("%s: also a code variable", name)
		}
		if ep.use&envTemp != 0 && ep.use&envWrites == 0 {
			t.Errorf("%s: a temporary folder is written", name)
		}
	}
	for key, ep := range npmPathKeys {
		if ep.use == 0 || ep.what == "" || strings.Contains(key, "_") {
			t.Errorf("npm key %s: no use, no description, or spelt with _", key)
		}
	}
	for _, name := range []string{"GOCACHE", "TMPDIR", "npm_config_cache", "NPM_CONFIG_CACHE", "npm_config_store_dir", "npm_config_store-dir", "Npm_Config_Prefix", "KUBECONFIG", "SSL_CERT_FILE", "CARGO_TARGET_DIR"} {
		if _, ok := envPathOf(name); !ok {
			t.Errorf("%s: not in the table", name)
		}
	}
	for _, name := range []string{"CI", "NODE_ENV", "RUST_BACKTRACE", "LANG", "FORCE_COLOR", "GOFLAGS", "npm_config_loglevel", "GOOS", "TERM", "TZ", "DEBUG"} {
		if _, ok := envPathOf(name); ok {
			t.Errorf("%s: names no place, but is in the table", name)
		}
	}
}

// TestSystemPlaces: the system's temporary folders and certificate stores
// are places programs use anyway; their neighbours are not.
func TestSystemPlaces(t *testing.T) {
	for p, want := range map[string]bool{"/etc/ssl/certs/ca-certificates.crt": true, "/etc/pki/tls/cert.pem": true, "/etc/ssl": true, "/etc/sslx": false, "/etc/passwd": false, "/tmp/ca.pem": false} {
		if got := systemCerts(p); got != want {
			t.Errorf("systemCerts(%q) = %v, want %v", p, got, want)
		}
	}
	for p, want := range map[string]bool{"/tmp": true, "/var/tmp": true, "/tmp/x": false, "/etc": false} {
		if got := systemTemp[p]; got != want {
			t.Errorf("systemTemp[%q] = %v, want %v", p, got, want)
		}
	}
}
