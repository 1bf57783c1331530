//go:build unix

package command_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"admit/policy/command"
	"admit/policy/rule"
	"admit/workspace"
)

// walkRepo is a repository with a .env beside its sources, as most web
// projects have one: src/a.go committed, .env untracked and not ignored.
func walkRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{".env": "API_KEY=sk_live_walk\n", "src/a.go": "package a // TODO\n", "README.md": "TODO\n"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, root, "init", "-q")
	gitIn(t, root, "add", "src", "README.md")
	gitIn(t, root, "commit", "-qm", "first")
	return root
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// walkContext judges in root with the workspace's own resolver, which
// reads git's index; admitRuns says whether admit runs the line.
func walkContext(t *testing.T, root string, admitRuns bool) *command.Context {
	t.Helper()
	roots, err := workspace.NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return &command.Context{Roots: roots.List(), FS: workspace.NewResolver(roots).SetHome(home), Home: home, AdmitRuns: admitRuns}
}

// TestWalkSecrets: the walks print the .env (shown with the real grep
// and git first); where the host runs them, they ask secret-read, and
// walks that leave it out, or print only names, are allowed. A .env git
// tracks is read by git grep and git ls-files | xargs cat.
func TestWalkSecrets(t *testing.T) {
	root := walkRepo(t)
	if out, err := exec.Command("grep", "-rn", "API_KEY", root).Output(); err != nil || !strings.Contains(string(out), "sk_live_walk") {
		t.Fatalf("grep -r did not print the .env (%v): the test no longer shows what it guards against", err)
	}
	p := command.New(nil)
	c := walkContext(t, root, false)
	judge := func(line string, want bool) {
		t.Helper()
		d := p.Evaluate(line, root, c)
		switch {
		case want && !d.Allowed:
			t.Errorf("%s: %s (%s), want allowed", line, d.Rule, d.Reason)
		case !want && (!d.Ask || d.Rule != rule.SecretRead):
			t.Errorf("%s: allowed %v, %s (%s), want asked secret-read", line, d.Allowed, d.Rule, d.Reason)
		}
	}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"grep -rn API_KEY .", false},
		{"grep -rl API_KEY .", true},
		{"grep -rn --exclude=.env API_KEY .", true},
		{"ls -A | xargs cat", false},
		{"ls | xargs cat", true}, // ls without -A lists no hidden name
		{"cat $(ls -A)", false},
		{"ls -A | while read -r f; do cat \"$f\"; done", false},
		{"git ls-files -o --exclude-standard | xargs cat", false},
		{"git ls-files -o --exclude-standard --exclude=.env | xargs cat", true},
		{"git ls-files | xargs cat", true}, // .env is not tracked
		{"git grep -n TODO", true},
	} {
		judge(tc.line, tc.ok)
	}

	gitIn(t, root, "add", ".env")
	if out := gitIn(t, root, "grep", "-n", "API_KEY"); !strings.Contains(out, "sk_live_walk") {
		t.Fatalf("git grep did not print the tracked .env: %q", out)
	}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"git grep -n API_KEY", false},
		{"git ls-files | xargs cat", false},
		{"git ls-files -z | xargs -0 cat --", false},
		{"cat $(git ls-files)", false},
		{"git grep -n API_KEY -- src", true},
		{"git grep -n API_KEY -- ':!.env'", true},
		{"git grep -l API_KEY", true},
		{"git ls-files src | xargs cat", true},
		{"git ls-files -x '*.o' | xargs cat", false}, // -x's value is no pathspec
		{"git ls-files --exclude '*.o' -z | xargs -0 cat --", false},
		{"git ls-files -- ':!.env' | xargs cat", true},
		{"git grep --max-depth 1 API_KEY", false},
	} {
		judge(tc.line, tc.ok)
	}
}

// TestWalkSecretsHidden: where admit runs the line, a walk beside a .env
// is allowed and the decision names the file for the run to hide; a
// command that reads the .env by name still asks, and the file it reads
// is not hidden from it.
func TestWalkSecretsHidden(t *testing.T) {
	root := walkRepo(t)
	gitIn(t, root, "add", ".env")
	p := command.New(nil)
	env := filepath.Join(root, ".env")
	for _, tc := range []struct {
		line   string
		ask    bool
		hidden []string
	}{
		{"grep -rn API_KEY .", false, []string{env}},
		{"git grep -n API_KEY", false, []string{env}},
		{"find . -type f -exec cat {} +", false, []string{env}},
		{"ls -A | xargs cat", false, []string{env}},
		{"grep -rn API_KEY src", false, nil},
		{"cat .env; grep -rn API_KEY .", true, nil},
		{"grep -rn API_KEY . && cat .env", true, nil},
	} {
		d := p.Evaluate(tc.line, root, walkContext(t, root, true))
		if d.Ask != tc.ask || !tc.ask && !d.Allowed || !slices.Equal(d.Hidden, tc.hidden) {
			t.Errorf("%s: allowed %v ask %v (%s: %s) hidden %q; want ask %v hidden %q", tc.line, d.Allowed, d.Ask, d.Rule, d.Reason, d.Hidden, tc.ask, tc.hidden)
		}
	}
	// Every secret of the folder is hidden, not the first only.
	if err := os.WriteFile(filepath.Join(root, ".env.local"), []byte("API_KEY=sk_live_local\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(root, ".env.local")
	for _, line := range []string{"grep -rn API_KEY .", "find . -maxdepth 1 -type f -exec cat {} +", "find .env .env.local -exec cat {} +"} {
		d := p.Evaluate(line, root, walkContext(t, root, true))
		if !d.Allowed || !slices.Equal(d.Hidden, []string{env, local}) {
			t.Errorf("%s beside two secrets: allowed %v (%s) hidden %q, want both hidden", line, d.Allowed, d.Reason, d.Hidden)
		}
	}
	// The host's shell runs it: asked, nothing hidden.
	if d := p.Evaluate("grep -rn API_KEY .", root, walkContext(t, root, false)); !d.Ask || len(d.Hidden) != 0 {
		t.Errorf("grep -rn where the host runs it: ask %v hidden %q", d.Ask, d.Hidden)
	}
}

// TestWalkSecretsDeep: a secret's file folders below the one walked is
// read by the walk (shown with the real grep and git first) and asked
// about; a search for a word the file does not hold prints none of it
// and is allowed, through the resolver that reads the file and git's
// index.
func TestWalkSecretsDeep(t *testing.T) {
	root := walkRepo(t)
	deep := filepath.Join(root, "services", "api")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{".env": "DATABASE_URL=postgres://app:pw@db/app\n", "keys.pem": "-----BEGIN PRIVATE KEY-----\n", "main.go": "package main // TODO\n"} {
		if err := os.WriteFile(filepath.Join(deep, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, root, "add", "services/api/keys.pem", "services/api/main.go")
	if out, _ := exec.Command("grep", "-rn", "DATABASE_URL", root).Output(); !strings.Contains(string(out), "app:pw") {
		t.Fatalf("grep -r did not print services/api/.env: the test no longer shows what it guards against")
	}
	if out, _ := exec.Command("grep", "-rn", "TODO", root).Output(); strings.Contains(string(out), "app:pw") || strings.Contains(string(out), "PRIVATE") {
		t.Fatalf("grep -rn TODO printed a secret's line: %q", out)
	}
	if out := gitIn(t, root, "grep", "-n", "PRIVATE"); !strings.Contains(out, "keys.pem") {
		t.Fatalf("git grep did not print the tracked key: %q", out)
	}
	p := command.New(nil)
	c := walkContext(t, root, false)
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"grep -rn DATABASE_URL src services", false},
		{"grep -rn TODO src services", true},
		{"grep -rni todo services", true},
		{"grep -rn 'postgres|mysql' services", false},
		{"grep -rn 'DATA.*URL' services", false}, // not plain words: any line may match
		{"grep -rvn TODO services", false},
		{"grep -rn --exclude-dir=api DATABASE_URL services", true},
		{"tar cf - services | wc -c", false},
		{"find services -type f -exec cat {} +", false},
		{"find services -maxdepth 1 -type f -exec cat {} +", true},
		{"git grep -n TODO", true},
		{"git grep -n PRIVATE", false},
		{"git grep -n -v TODO", false},
	} {
		d := p.Evaluate(tc.line, root, c)
		switch {
		case tc.ok && !d.Allowed:
			t.Errorf("%s: %s (%s), want allowed", tc.line, d.Rule, d.Reason)
		case !tc.ok && (!d.Ask || d.Rule != rule.SecretRead):
			t.Errorf("%s: allowed %v, %s (%s), want asked secret-read", tc.line, d.Allowed, d.Rule, d.Reason)
		}
	}
}

// TestWalkSecretsBound: past the folders the gate looks through, a walk
// where the host runs the line is asked about, naming the bound; one the
// bound does not reach is allowed.
func TestWalkSecretsBound(t *testing.T) {
	root := walkRepo(t)
	for i := range 2100 {
		if err := os.MkdirAll(filepath.Join(root, "wide", strings.Repeat("d", 1+i%7)+strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := command.New(nil)
	c := walkContext(t, root, false)
	if d := p.Evaluate("grep -rn TODO wide", root, c); !d.Ask || d.Rule != rule.SecretRead || !strings.Contains(d.Reason, "more than 2048 folders") {
		t.Errorf("grep -rn TODO wide: allowed %v, %s (%s), want asked past the bound", d.Allowed, d.Rule, d.Reason)
	}
	if d := p.Evaluate("grep -rn TODO src", root, c); !d.Allowed {
		t.Errorf("grep -rn TODO src: %s (%s), want allowed", d.Rule, d.Reason)
	}
}
