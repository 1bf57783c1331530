package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// gemini is the installed Gemini CLI, or the test skips saying what is
// missing and how to get it.
func gemini(t *testing.T) GeminiCLI {
	t.Helper()
	g, err := FindGemini(os.Getenv)
	if err != nil {
		t.Skip(err)
	}
	return g
}

// TestGeminiPolicyDecisions runs gemini-policy.mjs on a few lines against
// the real install, not timed: its output parses, and each decision is
// what Gemini CLI's default policies give in an interactive session
// (known-safe reads allowed, anything else, rm -rf / included, asked,
// since its shell rule asks and nothing denies).
func TestGeminiPolicyDecisions(t *testing.T) {
	g := gemini(t)
	dir := t.TempDir()
	ws, _, err := ShellWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"ls", "git status", "rm -rf /", "cat a.txt | grep x", "npm test"}
	want := []string{"allow", "allow", "ask_user", "ask_user", "ask_user"}
	r, err := g.RunPolicy(dir, ws, lines, 0, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != GeminiVersion || r.Lines != len(lines) {
		t.Errorf("version %q, lines %d: want %s, %d", r.Version, r.Lines, GeminiVersion, len(lines))
	}
	if !slices.Equal(r.PerLine, want) {
		t.Errorf("decisions %v, want %v", r.PerLine, want)
	}
	if r.Decisions["allow"] != 2 || r.Decisions["ask_user"] != 3 || r.Decisions["deny"] != 0 {
		t.Errorf("decisions %v: want 2 allow, 3 ask_user", r.Decisions)
	}
}

// TestParseGeminiResult: a whole output parses; a broken one is an error
// naming the field and its value.
func TestParseGeminiResult(t *testing.T) {
	good := `{"engine":"@google/gemini-cli","version":"0.61.0","node":"v20.20.2","lines":2,"checks":40,"nsPerLine":69039.2,` +
		`"decisions":{"allow":1,"ask_user":1,"deny":0},"perLine":["allow","ask_user"]}`
	r, err := ParseGeminiResult([]byte(good+"\n"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.NsPerLine != 69039.2 || r.Checks != 40 || r.Node != "v20.20.2" || !slices.Equal(r.PerLine, []string{"allow", "ask_user"}) {
		t.Errorf("parsed %+v", r)
	}
	for _, c := range []struct{ name, out, want string }{
		{"not JSON", "Error: Cannot find module", "printed no result"},
		{"an unknown field", strings.Replace(good, `"lines"`, `"extra":1,"lines"`, 1), `unknown field "extra"`},
		{"a string for a number", strings.Replace(good, `69039.2`, `"fast"`, 1), "nsPerLine"},
		{"no time", strings.Replace(good, `69039.2`, `0`, 1), "nsPerLine 0: want a positive number"},
		{"another engine", strings.Replace(good, `@google/gemini-cli`, `other`, 1), `engine "other"`},
		{"no version", strings.Replace(good, `"0.61.0"`, `""`, 1), `version ""`},
		{"no node", strings.Replace(good, `v20.20.2`, `20`, 1), `node "20"`},
		{"another count of lines", strings.Replace(good, `"lines":2`, `"lines":3`, 1), "lines 3: want the 2 lines given"},
		{"an unknown decision", strings.Replace(good, `["allow","ask_user"]`, `["allow","maybe"]`, 1), `perLine[1] "maybe"`},
		{"a decision missing", strings.Replace(good, `["allow","ask_user"]`, `["allow"]`, 1), "perLine has 1 decisions"},
		{"a part pass", strings.Replace(good, `"checks":40`, `"checks":41`, 1), "checks 41"},
		{"counts that disagree", strings.Replace(good, `"allow":1,`, `"allow":2,`, 1), "decisions.allow 2: perLine has 1"},
		{"an unknown count", strings.Replace(good, `"deny":0`, `"deny":0,"maybe":0`, 1), "want exactly allow, ask_user, deny"},
	} {
		if _, err := ParseGeminiResult([]byte(c.out), 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
}

// TestFindGemini: the cache named by ADMIT_REAL_CLIENTS_CACHE is the one
// looked in, and a missing install says where it looked and how to get it.
func TestFindGemini(t *testing.T) {
	if _, err := FindGemini(os.Getenv); err != nil && strings.Contains(err.Error(), "node is not on the PATH") {
		t.Skip(err)
	}
	cache := t.TempDir()
	env := func(k string) string {
		if k == "ADMIT_REAL_CLIENTS_CACHE" {
			return cache
		}
		return ""
	}
	if _, err := FindGemini(env); err == nil || !strings.Contains(err.Error(), cache) || !strings.Contains(err.Error(), "bash scripts/realclients/setup.sh") {
		t.Fatalf("empty cache: %v", err)
	}
	dir := filepath.Join(cache, "gemini-"+GeminiVersion)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".admit-installed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := FindGemini(env)
	if err != nil || g.Package != filepath.Join(dir, "node_modules", "@google", "gemini-cli") {
		t.Fatalf("FindGemini: %+v, %v", g, err)
	}
}

// TestShellLines: the lines are the corpus's ordinary lines, and admit's
// policy decides each of them in the bench's workspace.
func TestShellLines(t *testing.T) {
	lines, err := ShellLines()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(lines, "CI=true npm test") || !slices.Contains(lines, "cat ~/.ssh/id_rsa") {
		t.Errorf("ordinary lines missing from %q", lines)
	}
	ws, home, err := ShellWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, err := EvaluateLines(ws, home, lines, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed+r.Asked+r.Refused != len(lines) || r.Allowed == 0 || r.Asked == 0 || r.Refused == 0 || r.Checks != len(lines) {
		t.Errorf("decisions %+v of %d lines: want some of each, one pass", r, len(lines))
	}
}
