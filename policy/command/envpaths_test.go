package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/policy/rule"
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

// TestScratchTemp: a cache or temporary folder of the program's own
// under the system's temporary folder is judged as the command without
// the variable (ls stays allowed); one that is a link, that others can
// write or that sits in such a folder, a file, the person's home and
// the workspace's neighbours stay refused, and settings left in a
// folder that exists are asked as code.
func TestScratchTemp(t *testing.T) {
	tmp, err := os.MkdirTemp("/tmp", "envscratch-")
	if err != nil {
		t.Skip("no /tmp:", err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil || !strings.HasPrefix(tmp, "/tmp/") {
		t.Skip("/tmp is a link here")
	}
	ws, home := filepath.Join(tmp, "proj", "ws"), filepath.Join(tmp, "home")
	mk := func(p string, mode os.FileMode) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	mk(ws, 0o755)
	mk(home, 0o755)
	mk(filepath.Join(tmp, "own"), 0o755)
	mk(filepath.Join(tmp, "open"), 0o777)
	mk(filepath.Join(tmp, "shared"), 0o1777)
	// A stranger's folder (0755, so no one else can write it) whose
	// content the stranger controls: made only where the test may give a
	// folder away.
	stranger := os.Getuid() == 0
	if stranger {
		mk(filepath.Join(tmp, "theirs"), 0o755)
		stranger = os.Chown(filepath.Join(tmp, "theirs"), 4321, 4321) == nil
	}
	if err := os.WriteFile(filepath.Join(tmp, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"tohome", home}, {"toown", filepath.Join(tmp, "own")}} {
		if err := os.Symlink(l[1], filepath.Join(tmp, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	p := New(nil)
	c := &Context{Roots: []string{ws}, Effects: ReadOnly, Home: home, FS: newTestFS(ws)}
	cases := []struct{ line, want string }{
		{"GOCACHE=" + tmp + "/own ls", ok},
		{"GOCACHE=" + tmp + "/own/fresh ls", ok},
		{"GOCACHE=" + tmp + "/fresh/deeper ls", ok},
		{"TMPDIR=" + tmp + "/own go test ./...", "ask:" + string(rule.RunsCode)},
		{"MPLCONFIGDIR=" + tmp + "/fresh ls", ok},
		{"MPLCONFIGDIR=" + tmp + "/own ls", "ask:" + string(rule.RunsCode)},
		{"GOCACHE=" + tmp + "/open ls", out},
		{"GOCACHE=" + tmp + "/open/fresh ls", out},
		{"GOCACHE=" + tmp + "/shared ls", out},
		{"GOCACHE=" + tmp + "/shared/fresh ls", out},
		{"GOCACHE=" + tmp + "/file ls", out},
		{"GOCACHE=" + tmp + "/tohome ls", out},
		{"GOCACHE=" + tmp + "/tohome/fresh ls", out},
		{"GOCACHE=" + tmp + "/toown ls", out},
		{"GOCACHE=" + home + "/.cache/go-build ls", out},
		{`GOCACHE="~/.cache/go-build" ls`, out},
		{"GOCACHE=" + tmp + "/proj/cache ls", out},
		{"GOCACHE=" + tmp + "/proj ls", out},
		{"GOROOT=" + tmp + "/own ls", out},
		{"GNUPGHOME=" + tmp + "/fresh ls", out},
	}
	if stranger {
		cases = append(cases,
			struct{ line, want string }{"GOCACHE=" + tmp + "/theirs ls", out},
			struct{ line, want string }{"GOCACHE=" + tmp + "/theirs/fresh ls", out})
	} else {
		t.Log("not root: a stranger's folder is not tried")
	}
	for _, tc := range cases {
		d := p.Evaluate(tc.line, ws, c)
		got := string(d.Rule)
		if d.Ask {
			got = "ask:" + got
		}
		if got != tc.want {
			t.Errorf("%s: got %s (%s), want %s", tc.line, got, d.Reason, tc.want)
		}
	}
}
