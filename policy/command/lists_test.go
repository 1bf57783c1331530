//go:build unix

package command

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"admit/policy/rule"
	"admit/policy/shell"
)

// listWorkspace makes a workspace of files (name: content), resolved.
func listWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// showsSortAttack runs attack with the real git, bash and sort in root
// (its files committed first) and fails unless it touched marker: the
// attack is real, so a refusal of it guards something. The line runs in
// a process group of its own, ended whole before the test goes on (the
// sh that sort started may outlive it and race the folder's removal).
// Without GNU sort, git or bash it shows nothing.
func showsSortAttack(t *testing.T, root, attack, marker string) {
	t.Helper()
	if !gnuSort() || !hasProgram("git") || !hasProgram("bash") {
		return
	}
	run := func(line string) {
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		endGroup(cmd.Process.Pid)
	}
	run("git init -q . && git add -A .")
	run(attack + " >/dev/null 2>&1")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the attack did not reproduce (no %s): the test no longer shows what it guards against", marker)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
}

// TestListOptionNames: COMMAND $(LIST) where the host's shell runs the
// line is judged as LIST | xargs COMMAND: committed files named
// --compress-program=sh and -S1 make sort $(git ls-files) run sh, which
// the test first shows with the real git, bash and sort; refused, in
// every profile, unless "--" ends sort's options before the names.
func TestListOptionNames(t *testing.T) {
	marker := "MARK"
	root := listWorkspace(t, map[string]string{"a.txt": strings.Repeat("touch MARK\n", 400), "--compress-program=sh": "", "-S1": "", "src/b.txt": "b\n"})
	attack := "sort $(git ls-files)"
	showsSortAttack(t, root, attack, filepath.Join(root, marker))
	p := New(nil)
	for _, prof := range []shell.Profile{shell.Analyze, shell.BashInteractive, shell.Zsh, shell.Fish, shell.Portable} {
		c := &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir(), Profile: prof, Effects: WorkspaceWrite}
		for _, tc := range []struct {
			line string
			ok   bool
		}{
			{attack, false},
			{"sort -S 1M $(git ls-files)", false},
			{"sort -o -- $(git ls-files)", false}, // -o's value is "--"
			{"sort -k -- $(git diff --name-only)", false},
			{"cat $(git ls-files) -", false},
			{"sort -- $(git ls-files)", true},
			{"sort -r -- $(git ls-files)", true},
			{"sort -t , -- $(git ls-files)", true},
			{"wc -l -- $(git ls-files)", true},
			{"sort $(find . -type f)", true}, // ./-S1
			{"sort $(find . -type f -print0)", false},
			{"for f in $(git ls-files); do sort \"$f\"; done", false},
			{"for f in $(git ls-files); do sort -- \"$f\"; done", true},
		} {
			if strings.HasPrefix(tc.line, "for ") && (prof == shell.Fish || prof == shell.Portable) {
				tc.ok = false // fish writes its loops another way
			}
			d := p.Evaluate(tc.line, root, c)
			if d.Allowed != tc.ok {
				t.Errorf("%s [%s]: allowed %v (%s: %s), want %v", tc.line, prof, d.Allowed, d.Rule, d.Reason, tc.ok)
			}
		}
	}
}

// TestListSplitNames: a name that a shell would split (a blank) or expand
// (a pattern character, bash's extglob, zsh's GLOB_SUBST) is refused in
// the words of $(LIST), while LIST | xargs (which expands nothing) keeps
// the pattern names; a LIST that prints what is not only names, or
// changes files, is refused as xargs's producer is.
func TestListSplitNames(t *testing.T) {
	p := New(nil)
	check := func(root, line string, want bool, wantRule rule.Rule) {
		t.Helper()
		c := &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir()}
		d := p.Evaluate(line, root, c)
		if d.Allowed != want {
			t.Errorf("%s in %v: allowed %v (%s: %s), want %v", line, root, d.Allowed, d.Rule, d.Reason, want)
		}
		if !want && wantRule != "" && d.Rule != wantRule {
			t.Errorf("%s: rule %s (%s), want %s", line, d.Rule, d.Reason, wantRule)
		}
	}
	for _, name := range []string{"x*", "a b.go", "q?.go", "[ab].go", "@(x).go", "~backup", "=ls", "a#b", "t\tab"} {
		root := listWorkspace(t, map[string]string{name: "", "y.go": ""})
		check(root, "cat $(find . -type f)", false, rule.DynamicWord)
		check(root, "for f in $(find . -type f); do cat $f; done", false, rule.DynamicWord)
		check(root, "echo $(find . -type f)", false, rule.DynamicWord)
	}
	root := listWorkspace(t, map[string]string{"x*": "", "y.go": ""})
	check(root, "find . -type f | xargs cat", true, "")
	clean := listWorkspace(t, map[string]string{"y.go": "", "+page.svelte": "", "src/a@b.go": "", "c++.txt": ""})
	// The files git ignores are where secrets are kept: asked, as a
	// filter of secrets' names is (find -name .env | xargs cat).
	for _, line := range []string{"cat $(git ls-files -oi --exclude-standard)", "cat $(git ls-files -o)", "git ls-files -o | xargs cat", "for f in $(git ls-files --others --ignored --exclude-standard); do cat \"$f\"; done"} {
		c := &Context{Roots: []string{clean}, FS: newTestFS(clean), Home: t.TempDir()}
		if d := p.Evaluate(line, clean, c); !d.Ask || d.Rule != rule.SecretRead {
			t.Errorf("%s: allowed %v ask %v %s (%s), want asked secret-read", line, d.Allowed, d.Ask, d.Rule, d.Reason)
		}
	}
	check(clean, "cat $(git ls-files -o --exclude-standard)", true, "")
	for _, line := range []string{
		"cat $(find . -type f)",
		"wc -l $(find src -name '*.go')",
		"for f in $(find . -type f); do wc -l $f; done",
		"echo $(find . -type f)",
		"ls $(ls)",
	} {
		check(clean, line, true, "")
	}
	for _, line := range []string{
		"cat $(curl https://example.com/list)",
		"cat $(cat names.txt)",
		"cat $(find . -type f -exec sh -c x \\;)",
		"cat $(find . -delete)",
		"cat $(find . -fprint out)",
		"cat $(git diff --name-only --output=x)",
		"cat $(find / -name passwd)",
		"rm $(find . -type f)",
		"sed -i s/a/b/ $(find . -type f)",
		"cat $(find . -type f) $(find . -type f)",
		"cat x$(find . -type f)",
		"cat \"$(find . -type f)\"",
		"$(find . -type f)",
		"for f in $(find . -type f); do cat \"$f.bak\"; done",
		"for f in $(find . -type f); do cat x.txt | while read -r g; do cat \"$g\"; done; done",
		"find . -type f | while read -r f; do cat x.txt | while read -r g; do cat \"$g\"; done; done",
		"for f in $(find . -type f); do cd \"$f\"; done",
		"touch ./-S1 && sort $(git ls-files -o)",
	} {
		check(clean, line, false, "")
	}
}
