package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// substRepo is testWorkspace made a git repository with every file
// tracked, after add (paths relative to the workspace) are made: each a
// file holding its own name, or a symlink when it names a target after
// " -> " (@MARKER is the marker). It also returns a marker file outside
// the workspace.
func substRepo(t *testing.T, add ...string) (ws, marker string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws = testWorkspace(t)
	marker = filepath.Join(filepath.Dir(ws), "marker.txt")
	if err := os.WriteFile(marker, []byte("OUTSIDE-MARKER\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, a := range add {
		name, target, link := strings.Cut(a, " -> ")
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if link {
			err = os.Symlink(strings.ReplaceAll(target, "@MARKER", marker), p)
		} else {
			err = os.WriteFile(p, []byte(name+"\n"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return ws, marker
}

// runResult is what admit run prints.
type runResult struct {
	Verdict string `json:"verdict"`
	Rule    string `json:"rule"`
	Reason  string `json:"reason"`
	Ran     bool   `json:"ran"`
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
	Detail  string `json:"detail"`
}

func runLine(t *testing.T, ws, line string) (int, runResult, string) {
	t.Helper()
	code, out, stderr := runAdmit(t, nil, "run", "--root", ws, "-c", line)
	var r runResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("admit run printed no result: %v\nstdout %s\nstderr %s", err, out, stderr)
	}
	return code, r, out
}

// TestRunSubstitution: admit run runs wc -l $(git ls-files), the command
// inside as admitted and the one around it judged again once its words
// are known.
func TestRunSubstitution(t *testing.T) {
	ws, _ := substRepo(t)
	code, r, out := runLine(t, ws, "wc -l $(git ls-files)")
	if code != 0 || !r.Ran {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"2 a.txt", "1 b.txt", "1 src/main.go", "4 total"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q: %q", want, r.Stdout)
		}
	}
}

// TestRunSubstitutionSplitsOutside: a tracked file named "x /path/of/a
// file outside" gives two words when bash splits the output; the run
// judges them again and refuses before cat starts.
func TestRunSubstitutionSplitsOutside(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws, marker := substRepo(t)
	evil := filepath.Join(ws, "x "+marker)
	if err := os.MkdirAll(filepath.Dir(evil), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evil, []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "add", "-A")
	git.Dir = ws
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	code, r, out := runLine(t, ws, "cat $(git ls-files)")
	if code != 77 {
		t.Fatalf("exit %d, want 77 (refused): %s", code, out)
	}
	if strings.Contains(out, "OUTSIDE-MARKER") {
		t.Fatalf("the outside file was printed: %s", out)
	}
	if r.Verdict != "allow" || !strings.Contains(r.Detail, "outside-read") || !strings.Contains(r.Detail, marker) {
		t.Fatalf("want the line admitted, then cat refused at run time as outside-read naming %s: %s", marker, out)
	}
	if strings.Contains(r.Stdout, "alpha") {
		t.Fatalf("cat ran on the workspace's files before the refusal: %s", out)
	}
}

// TestSubstitutionRefusals: what admit refuses of a command substitution,
// through admit run and through admit check for the host's shell.
func TestSubstitutionRefusals(t *testing.T) {
	ws, _ := substRepo(t, "link.txt -> @MARKER")
	for _, c := range []struct {
		note, line, rule string
	}{
		{"a tracked symlink leads outside", "cat $(git ls-files)", "dynamic-word"},
		{"rm changes its operands", "rm $(git ls-files src)", "no-target"},
		{"the network's output", "wc -l $(curl x)", "dynamic-word"},
		{"a file's content", "wc -l $(cat .env)", "dynamic-word"},
		{"nested", "wc -l $(git ls-files $(echo src))", "dynamic-word"},
		{"a pipeline inside", "wc -l $(git ls-files src | head -n 1)", "dynamic-word"},
	} {
		t.Run(c.note, func(t *testing.T) {
			code, r, out := runLine(t, ws, c.line)
			if code != 77 || r.Ran || r.Rule != c.rule {
				t.Fatalf("exit %d, ran %v, rule %q, want 77, not run, %s: %s", code, r.Ran, r.Rule, c.rule, out)
			}
			if strings.Contains(out, "OUTSIDE-MARKER") {
				t.Fatalf("the outside file was printed: %s", out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(ws, "src", "main.go")); err != nil {
		t.Fatalf("rm ran: %v", err)
	}
	// The host's own shell runs what admit check admits for tool bash:
	// there a list of names is judged as git ls-files | xargs wc -l, and
	// a name the shell would split (a blank) keeps it refused, where admit
	// run, which judges the words it gets, takes it. Without such a name
	// both take it.
	ws2, _ := substRepo(t, "src/a b.txt")
	for tool, want := range map[string]int{"bash": 77, "admit.run": 0} {
		code, out, stderr := runAdmit(t, nil, "check", "--root", ws2, "--tool", tool, "-c", "wc -l $(git ls-files)")
		if code != want {
			t.Errorf("check --tool %s: exit %d, want %d\n%s%s", tool, code, want, out, stderr)
		}
	}
	ws3, _ := substRepo(t)
	for _, tool := range []string{"bash", "admit.run"} {
		code, out, stderr := runAdmit(t, nil, "check", "--root", ws3, "--tool", tool, "-c", "wc -l $(git ls-files)")
		if code != 0 {
			t.Errorf("check --tool %s of a workspace of plain names: exit %d, want 0\n%s%s", tool, code, out, stderr)
		}
	}
}

// TestRewrittenSubstitution: a host's Bash call with a substitution is
// allowed only rewritten to admit run --handle, whose run judges the
// words again; the replacement line prints what the command prints.
func TestRewrittenSubstitution(t *testing.T) {
	w := newHookWorkspace(t)
	decision, input, out := rewrittenBash(t, w, w.socket, map[string]any{"command": "wc -l $(find src -name '*.go')"})
	line, _ := input["command"].(string)
	if decision != "allow" || !strings.Contains(line, " run --handle h") {
		t.Fatalf("answer: %s", out)
	}
	sh := hostShell(w, w.socket, line)
	got, err := sh.Output()
	if err != nil || string(got) != "3 src/main.go\n" {
		t.Fatalf("the rewritten line: %v, stdout %q", err, got)
	}
}

// TestRunPrintsVariables: admit run of echo with variables prints their
// values, writes them where the line says (and reads that back), and a
// value that turns into other words (a pattern in it) is judged again.
// The run's environment is scrubbed (USER is one it keeps).
func TestRunPrintsVariables(t *testing.T) {
	ws := testWorkspace(t)
	code, out, stderr := runAdmit(t, []string{"USER=hello *.txt"}, "run", "--root", ws, "--effects", "workspace-write", "--observed-dir", ".",
		"-c", `ls > /dev/null; echo "user=$USER status=$?" > out.txt && cat out.txt && echo $USER`)
	var r runResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || !r.Ran {
		t.Fatalf("exit %d: %v\nstdout %s\nstderr %s", code, err, out, stderr)
	}
	if want := "user=hello *.txt status=0\nhello a.txt b.txt out.txt\n"; r.Stdout != want {
		t.Errorf("stdout %q, want %q", r.Stdout, want)
	}
	if !strings.Contains(r.Detail, "redirection > wrote out.txt") {
		t.Errorf("the write was not read back: %s", r.Detail)
	}
	code, out, _ = runAdmit(t, nil, "run", "--root", ws, "-c", `echo "$GITHUB_TOKEN"`)
	if code == 0 || !strings.Contains(out, "secret-env") {
		t.Errorf("a secret's variable was printed: exit %d: %s", code, out)
	}
}
