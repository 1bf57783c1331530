package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The corpus (TestCases) checks what admit check decides; these check the
// command itself: its flags, its exit codes and its usage errors.

// runCheck runs admit check in this process.
func runCheck(t *testing.T, args ...string) (code int, rule, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = check(args, Stdio{Out: &out, Err: &errb})
	var v struct {
		Rule string `json:"rule"`
	}
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("stdout is not a verdict: %v: %s", err, out.String())
		}
	}
	return code, v.Rule, errb.String()
}

func TestCheckCaps(t *testing.T) {
	ws := testWorkspace(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	review := write("review.json", `{"label": "review", "allow": ["Read"]}`)
	for _, c := range []struct {
		note   string
		args   []string
		code   int
		rule   string
		stderr string
	}{
		{"a tool the set grants", []string{"--caps", review, "--tool", "Read", "--args", `{"file_path":"a.txt"}`}, exitOK, "allowed", ""},
		{"the shell tool, not granted", []string{"--caps", review, "-c", "ls"}, exitRefused, "not-in-allow-list", ""},
		{"a file that is not there", []string{"--caps", filepath.Join(dir, "none.json"), "-c", "ls"}, exitConfig, "", "--caps: open"},
		{"a field the set does not have", []string{"--caps", write("typo.json", `{"label": "x", "alow": ["Read"]}`), "-c", "ls"}, exitConfig, "", `alow: unknown field`},
		{"not JSON", []string{"--caps", write("bad.json", `{`), "-c", "ls"}, exitConfig, "", "--caps " + filepath.Join(dir, "bad.json")},
	} {
		t.Run(c.note, func(t *testing.T) {
			code, rule, stderr := runCheck(t, append([]string{"--root", ws}, c.args...)...)
			if code != c.code || rule != c.rule || !strings.Contains(stderr, c.stderr) {
				t.Errorf("exit %d rule %q stderr %q; want exit %d rule %q stderr containing %q", code, rule, stderr, c.code, c.rule, c.stderr)
			}
		})
	}
}

// TestCheckCwd: a relative --cwd, and the observations, are taken from the
// root; a --cwd outside it refuses the call.
func TestCheckCwd(t *testing.T) {
	ws := testWorkspace(t)
	for _, c := range []struct {
		note string
		args []string
		code int
		rule string
	}{
		{"a relative cwd", []string{"--cwd", "src", "-c", "cat ../a.txt main.go"}, exitOK, "allowed"},
		{"observations relative to the cwd", []string{"--cwd", "src", "--effects", "workspace-write", "--observed-dir", ".", "-c", "touch new.go"}, exitOK, "allowed"},
		{"the same observation from the root does not list src", []string{"--effects", "workspace-write", "--observed-dir", ".", "-c", "touch src/new.go"}, exitRefused, "unobserved-target"},
		{"a cwd outside the root", []string{"--cwd", "..", "-c", "ls"}, exitRefused, "outside-workspace"},
	} {
		t.Run(c.note, func(t *testing.T) {
			code, rule, stderr := runCheck(t, append([]string{"--root", ws}, c.args...)...)
			if code != c.code || rule != c.rule {
				t.Errorf("exit %d rule %q (%s); want exit %d rule %q", code, rule, stderr, c.code, c.rule)
			}
		})
	}
}

// TestCheckUsage: a call given wrong is a usage error (64), said once.
func TestCheckUsage(t *testing.T) {
	ws := testWorkspace(t)
	for _, c := range []struct {
		note   string
		args   []string
		stderr string
	}{
		{"no call", nil, "give exactly one of"},
		{"an empty argv after --", []string{"--"}, "give exactly one of"},
		{"a line and an argv", []string{"-c", "ls", "--", "cat", "a.txt"}, "give exactly one of"},
		{"--args without --tool", []string{"--args", `{}`}, "--args needs --tool"},
		{"--args that is not JSON", []string{"--tool", "Read", "--args", `{`}, "--args: not valid JSON"},
		{"a flag check does not have", []string{"--frobnicate", "-c", "ls"}, "flag provided but not defined: -frobnicate"},
	} {
		t.Run(c.note, func(t *testing.T) {
			code, _, stderr := runCheck(t, append([]string{"--root", ws}, c.args...)...)
			if code != exitUsage || !strings.Contains(stderr, c.stderr) || strings.Count(stderr, c.stderr) != 1 {
				t.Errorf("exit %d stderr %q; want exit %d and %q once", code, stderr, exitUsage, c.stderr)
			}
		})
	}
}

// TestCheckLooksUpOnItsOwnPATH: without --env-path, admit check looks
// program names up on its own PATH, as a hook does on its host's: with an
// activated virtualenv's bin first, `ls` is the workspace's file, which is
// not the ls the tables know (asked; headless, so refused). --env-path
// names another PATH; --no-env-path judges the name alone.
func TestCheckLooksUpOnItsOwnPATH(t *testing.T) {
	ws := testWorkspace(t)
	bin := filepath.Join(ws, ".venv", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\ntouch /tmp/marker\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range []struct {
		note string
		args []string
		code int
	}{
		{"its own PATH", []string{"-c", "ls"}, exitRefused},
		{"its own PATH, argv", []string{"--", "ls", "-l"}, exitRefused},
		{"another PATH", []string{"--env-path", "/usr/bin:/bin", "-c", "ls"}, exitOK},
		{"no PATH known", []string{"--no-env-path", "-c", "ls"}, exitOK},
	} {
		t.Run(c.note, func(t *testing.T) {
			code, rule, stderr := runCheck(t, append([]string{"--root", ws}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d rule %q (%s); want exit %d", code, rule, stderr, c.code)
			}
		})
	}
	if code, _, stderr := runCheck(t, "--root", ws, "--env-path", "/bin", "--no-env-path", "-c", "ls"); code != exitUsage || !strings.Contains(stderr, "not both") {
		t.Errorf("both flags: exit %d %s", code, stderr)
	}
}
