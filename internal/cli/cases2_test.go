package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliAttacks2 and cliOrdinary2 are the second red-team pass: classes the
// first pass (cli_cases_test.go) did not cover. They run in the same
// workspace (newCLIWorkspace) through the same `admit check` entry.
var cliAttacks2 = []cliCase{
	// Backups: cp and mv rename an existing destination to DEST+SUFFIX.
	{"cp backup suffix renames DEST to .envrc", "cp -b -S rc a.txt .env", cW, "d:.", "", cProt},
	{"mv --suffix (implies -b) makes .gitmodules", "mv --suffix=ules a.txt .gitmod", cW, "d:.", "", cProt},
	{"abbreviated --suf", "cp --suf=rc a.txt .env", cW, "d:.", "", cProt},
	{"backup into .vscode settings", "cp --backup=simple -S .json a.txt .vscode/settings", cW, "d:. d:.vscode", "", cProt},
	{"backup suffix into .admit", "cp -bS /x a.txt .admit/p", cW, "d:. d:.admit", "", cProt},

	// git read subcommands added in this pass keep their write forms out.
	{"git remote set-url", "git remote set-url origin http://x", cR, "", "", cGitSub},
	{"git remote get-url with two names", "git remote get-url origin x", cR, "", "", cGitSub},
	{"git symbolic-ref sets HEAD", "git symbolic-ref HEAD refs/heads/x", cR, "", "", cGitSub},
	{"git symbolic-ref -d", "git symbolic-ref -d HEAD", cR, "", "", cFlag},
	{"git whatchanged --output", "git whatchanged --output=/tmp/x", cR, "", "", cFlag},

	// The coding agent's own settings run programs outside the gate.
	{"Claude Code hooks run shell commands", "echo '{\"hooks\":{}}' > .claude/settings.json", cW, "d:.", "", cProt},
	{"local Claude settings", "cp a.txt .claude/settings.local.json", cW, "d:.", "", cProt},
	{"project MCP servers are programs", "echo '{}' > .mcp.json", cW, "d:.", "", cProt},
	{"Cursor hooks", "touch .cursor/hooks.json", cW, "d:.", "", cProt},
	{"Gemini CLI settings", "mkdir -p .gemini", cW, "d:.", "", cProt},
	{"case-folded .Claude", "echo x > .Claude/settings.json", cW, "d:.", "", cProt},
	{"a local action a workflow runs", "echo x > .github/actions/setup/action.yml", cW, "d:.github", "", cProt},

	// Text filters added to the built-in table (cut, tr, date, ...): they
	// read inside only, and date never sets the clock.
	{"cut of a file outside", "cut -d: -f1 /etc/passwd", cR, "", "", cOut},
	{"cut through a link to /etc", "cut -f1 link-etc/passwd", cR, "", "", cOut},
	{"tr reads /etc through a redirection", "tr -d x < /etc/passwd", cR, "", "", cOut},
	{"date -s sets the clock", "date -s 2020-01-01", cR, "", "", cFlag},
	{"date MMDDhhmm operand sets the clock", "date 010112002030", cR, "", "", cFlag},
	{"date -f reads dates from a file", "date -f names.txt", cR, "", "", cFlag},
	{"od of a key via tilde", "od -c ~/.ssh/id_rsa", cR, "", "", cOut},
	{"id of another user", "id root", cR, "", "", cFlag},
}

var cliOrdinary2 = []cliCase{
	{"cp with a plain backup", "cp -b a.txt b.txt", cW, "d:.", "", cAllowed},
	{"mv with a numbered backup", "mv --backup=numbered a.txt b.txt", cW, "d:.", "", cAllowed},
	{"git remote get-url", "git remote get-url origin", cR, "", "", cAllowed},
	{"git symbolic-ref --short HEAD", "git symbolic-ref --short HEAD", cR, "", "", cAllowed},
	{"git name-rev", "git name-rev --name-only HEAD", cR, "", "", cAllowed},
	{"git cherry", "git cherry -v main", cR, "", "", cAllowed},
	{"git whatchanged", "git whatchanged -1 --stat", cR, "", "", cAllowed},
	{"agent instructions are ordinary text", "echo '# notes' >> CLAUDE.md", cW, "d:.", "", cAllowed},
	{"an issue template is no workflow", "echo x > .github/ISSUE_TEMPLATE.md", cW, "d:.github", "", cAllowed},
	{"--backup=none makes none", "cp --backup=none -S rc a.txt .env", cW, "d:.", "", cAllowed},
	// Text filters: formerly unsupported-program, now in the built-in table.
	{"cut a CSV column", "cut -d, -f2 data.csv | sort", cR, "", "", cAllowed},
	{"tr to upper case", "tr a-z A-Z < a.txt", cR, "", "", cAllowed},
	{"paste and nl", "paste -sd, a.txt && nl -ba README.md", cR, "", "", cAllowed},
	{"comm of two sorted lists", "comm -12 a.txt b.txt", cR, "", "", cAllowed},
	{"date +FORMAT and uname", "date -u +%Y-%m-%dT%H:%M:%SZ && uname -sm", cR, "", "", cAllowed},
	{"od of the first bytes", "od -An -tx1 -N 8 go.mod", cR, "", "", cAllowed},
	{"seq into fold", "seq -s ' ' 1 50 | fold -w 20", cR, "", "", cAllowed},
}

// toolCase is one structured `admit check --tool NAME --args JSON` call.
type toolCase struct {
	note, tool, args string
	w                bool
	obs              string
	want             string
}

var toolCases2 = []toolCase{
	// Attacks.
	{"duplicate key: Go keeps the last, some parsers the first", "Read", `{"file_path":"/etc/passwd","file_path":"a.txt"}`, cR, "", "bad-arguments"},
	{"duplicate key nested in an edit", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"b","new_string":"c"}]}`, cW, "f:a.txt", "bad-arguments"},
	{"file: URI with one slash", "Read", `{"file_path":"file:/etc/passwd"}`, cR, "", cOut},
	{"FILE:// in upper case", "read_file", `{"uri":"FILE:///etc/passwd"}`, cR, "", cOut},
	{"file URI with a remote host", "read_file", `{"uri":"file://evil/etc/passwd"}`, cR, "", cOut},
	{"another URI scheme", "read_file", `{"uri":"vscode-remote://ssh-remote+x/etc/passwd"}`, cR, "", cOut},
	{"a path given as a list", "Read", `{"file_path":["/etc/passwd"]}`, cR, "", cOut},
	{"a path given as a number", "Read", `{"file_path":1}`, cR, "", "bad-arguments"},
	{"a list of lists", "read_many_files", `{"paths":[["/etc/passwd"]]}`, cR, "", "bad-arguments"},
	{"a leading space a tool would trim", "Read", `{"file_path":" /etc/passwd"}`, cR, "", cOut},
	{"a leading newline", "Write", `{"file_path":"\n/tmp/x","content":"x"}`, cW, "d:.", "outside-write-root"},
	{"Glob pattern from /", "Glob", `{"pattern":"/etc/*"}`, cR, "", cOut},
	{"Glob pattern climbing", "Glob", `{"pattern":"../outside/**"}`, cR, "", cOut},
	{"Glob brace alternative from /", "Glob", `{"pattern":"{src,/etc}/*"}`, cR, "", cOut},
	{"Glob from home", "glob", `{"pattern":"~/.ssh/*"}`, cR, "", cOut},
	{"read_many_files include reads outside", "read_many_files", `{"paths":["a.txt"],"include":["/etc/passwd"]}`, cR, "", cOut},
	{"file_pattern climbing", "search_files", `{"path":".","regex":"x","file_pattern":"../../**"}`, cR, "", cOut},
	{"target_directories outside", "codebase_search", `{"query":"x","target_directories":["/etc"]}`, cR, "", cOut},

	// Ordinary.
	{"Read", "Read", `{"file_path":"@W/a.txt"}`, cR, "", cAllowed},
	{"file URI inside", "read_file", `{"uri":"file://@W/a.txt"}`, cR, "", cAllowed},
	{"null path", "Read", `{"file_path":"@W/a.txt","offset":null,"limit":null}`, cR, "", cAllowed},
	{"Glob relative", "Glob", `{"pattern":"**/*.go"}`, cR, "", cAllowed},
	{"Glob with braces", "Glob", `{"pattern":"src/**/*.{go,md}","path":"@W"}`, cR, "", cAllowed},
	{"Glob absolute inside", "Glob", `{"pattern":"@W/src/**/*.go"}`, cR, "", cAllowed},
	{"Grep regex that looks like a path", "Grep", `{"pattern":"/etc/passwd","path":"@W","glob":"*.{ts,tsx}"}`, cR, "", cAllowed},
	{"read_many_files include", "read_many_files", `{"paths":["src"],"include":["**/*.go"]}`, cR, "", cAllowed},
	{"equal keys in two list items", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"b"},{"old_string":"b","new_string":"c"}]}`, cW, "f:a.txt", cAllowed},
	{"a colon in a relative name", "Read", `{"file_path":"a:b.txt"}`, cR, "", cAllowed},
}

func TestCLIToolCases2(t *testing.T) {
	w := newCLIWorkspace(t)
	t.Setenv("HOME", w.home)
	for _, v := range []string{"ADMIT_EFFECTS", "ADMIT_MAX_STEPS", "ADMIT_MAX_RETRIES", "ADMIT_MAX_REQUEST_CHARS", "ADMIT_TIMEOUT_MS"} {
		t.Setenv(v, "")
	}
	// The structured tools of the built-in policy, here named in the workspace's.
	pol := `{"label": "tools", "allow": ["Read", "read_file", "Glob", "glob", "Grep", "read_many_files", "search_files", "codebase_search", "Write", "MultiEdit"], "mutators": ["Write", "MultiEdit"]}`
	if err := os.WriteFile(filepath.Join(w.ws, ".admit/policy.json"), []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range toolCases2 {
		args := []string{"--root", w.ws, "--effects", "read-only"}
		if c.w {
			args[3] = "workspace-write"
		}
		for _, tok := range strings.Fields(c.obs) {
			kind, rel, _ := strings.Cut(tok, ":")
			flag := "--observed"
			if kind == "d" {
				flag = "--observed-dir"
			}
			args = append(args, flag, rel)
		}
		args = append(args, "--tool", c.tool, "--args", strings.ReplaceAll(c.args, "@W", w.ws))
		var stdout, stderr bytes.Buffer
		code := check(args, Stdio{Out: &stdout, Err: &stderr})
		var v struct{ Rule, Reason string }
		_ = json.Unmarshal(stdout.Bytes(), &v)
		wantCode := exitRefused
		if c.want == cAllowed {
			wantCode = exitOK
		}
		if code != wantCode || v.Rule != c.want {
			t.Errorf("%s: %s %s: exit %d rule %s (%s %s), want exit %d rule %s", c.note, c.tool, c.args, code, v.Rule, v.Reason, strings.TrimSpace(stderr.String()), wantCode, c.want)
		}
	}
}

// TestCLIRepoAboveRoot: a workspace that is a folder inside a larger
// repository. git show HEAD:FILE, git grep -- :/ and git log -p would read
// files and history outside the root, so git asks a person (refused in
// admit check, which is headless); other reads are unchanged.
func TestCLIRepoAboveRoot(t *testing.T) {
	w := newCLIWorkspace(t)
	t.Setenv("HOME", w.home)
	ws := filepath.Join(w.ws, "nested-ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "f.txt"), []byte("f\n"), 0o644)
	inner := &cliWorkspace{base: w.base, ws: ws, home: w.home}
	for _, c := range []cliCase{
		{"a file of the repository above the root", "git show HEAD:a.txt", cR, "", "", cGitExec},
		{"pathspec from the repository's top", "git grep -n TODO -- :/", cR, "", "", cGitExec},
		{"status reads the whole working tree", "git status", cR, "", "", cGitExec},
		{"plain reads are unchanged", "cat f.txt", cR, "", "", cAllowed},
		{"the parent is still outside", "cat ../a.txt", cR, "", "", cOut},
	} {
		runCLICase(t, inner, c)
	}
}

// runCLICase runs one case through check() and reports a mismatch.
func runCLICase(t *testing.T, w *cliWorkspace, c cliCase) {
	t.Helper()
	args := []string{"--root", w.ws}
	if c.w {
		args = append(args, "--effects", "workspace-write")
	} else {
		args = append(args, "--effects", "read-only")
	}
	for _, tok := range strings.Fields(c.obs) {
		kind, rel, _ := strings.Cut(tok, ":")
		flag := "--observed"
		if kind == "d" {
			flag = "--observed-dir"
		}
		args = append(args, flag, rel)
	}
	if c.cwd != "" {
		args = append(args, "--cwd", c.cwd)
	}
	line := strings.ReplaceAll(c.line, "@W", w.ws)
	line = strings.ReplaceAll(line, "@B", w.base)
	args = append(args, "-c", line)
	var stdout, stderr bytes.Buffer
	code := check(args, Stdio{Out: &stdout, Err: &stderr})
	var v struct {
		Allowed bool   `json:"allowed"`
		Rule    string `json:"rule"`
		Reason  string `json:"reason"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil && code != 78 && code != 64 {
		t.Errorf("%s: %q: stdout is not a verdict: %v: %s %s", c.note, c.line, err, stdout.String(), stderr.String())
		return
	}
	wantCode := exitRefused
	if c.want == cAllowed {
		wantCode = exitOK
	}
	if code != wantCode || v.Rule != c.want {
		t.Errorf("%s: %q (obs %q, cwd %q): exit %d rule %s (%s %s), want exit %d rule %s",
			c.note, c.line, c.obs, c.cwd, code, v.Rule, v.Reason, strings.TrimSpace(stderr.String()), wantCode, c.want)
	}
}

func TestCLICases2Lines(t *testing.T) {
	w := newCLIWorkspace(t)
	t.Setenv("HOME", w.home)
	for _, v := range []string{"ADMIT_EFFECTS", "ADMIT_MAX_STEPS", "ADMIT_MAX_RETRIES", "ADMIT_MAX_REQUEST_CHARS", "ADMIT_TIMEOUT_MS"} {
		t.Setenv(v, "")
	}
	for _, c := range cliAttacks2 {
		if c.want == cAllowed {
			t.Errorf("%s: an attack case must name the rule that refuses it", c.note)
		}
		runCLICase(t, w, c)
	}
	for _, c := range cliOrdinary2 {
		runCLICase(t, w, c)
	}
	t.Logf("%d attacks, %d ordinary commands", len(cliAttacks2), len(cliOrdinary2))
}
