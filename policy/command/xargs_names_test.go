//go:build unix

package command

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"admit/policy/rule"
)

// TestXargsOptionNames: names fed to xargs from git ls-files, rg or grep
// (which print them as they are, not under a folder) that start with "-"
// are refused, as a pattern's are. The workspace holds committed files
// named --compress-program=sh and -S1; fed to sort, they make it run sh
// on its temporary files, which the test first shows with the real git
// and sort.
func TestXargsOptionNames(t *testing.T) {
	root := listWorkspace(t, map[string]string{"--compress-program=sh": "", "-S1": "", "src/b.txt": "b\n"})
	marker := filepath.Join(root, "MARK")
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(strings.Repeat("touch "+marker+"\n", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	attack := "git ls-files -z | xargs -0 sort"
	showsSortAttack(t, root, attack, marker)
	p := New(nil)
	c := &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir()}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{attack, false},
		{"git ls-files -z | xargs -0 sort -S 1M", false},
		{"git ls-files -z | xargs -0 -r sort", false},
		{"git ls-files -z | xargs -0 -I{} sort {}", false},
		{"rg --files -0 | xargs -0 sort", false},
		{"grep -rlZ touch | xargs -0 sort", false},
		{"git ls-files -z | xargs -0 sort --", true},
		{"git ls-files -z | xargs -0 -I{} sort -- {}", true},
		{"git ls-files -z | xargs -0 -I{} sort ./{}", true},
		{"find . -type f -print0 | xargs -0 sort", true},
	} {
		d := p.Evaluate(tc.line, root, c)
		if d.Allowed != tc.ok {
			t.Errorf("%s: allowed %v (%s: %s), want %v", tc.line, d.Allowed, d.Rule, d.Reason, tc.ok)
		}
		if !tc.ok && d.Rule != rule.DynamicWord {
			t.Errorf("%s: rule %s, want %s", tc.line, d.Rule, rule.DynamicWord)
		}
	}
	// Without such names, the same line is ordinary work.
	clean := t.TempDir()
	if err := os.WriteFile(filepath.Join(clean, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clean, _ = filepath.EvalSymlinks(clean)
	cc := &Context{Roots: []string{clean}, FS: newTestFS(clean), Home: t.TempDir()}
	if d := p.Evaluate(attack, clean, cc); !d.Allowed {
		t.Errorf("%s in a workspace without names starting with -: %s: %s", attack, d.Rule, d.Reason)
	}
}

func hasProgram(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

func gnuSort() bool {
	out, err := exec.Command("sort", "--version").Output()
	return err == nil && strings.Contains(string(out), "GNU")
}

// endGroup ends every process left in the process group pgid, and waits
// (a while) until none is: one ended but not yet reaped (where the
// machine's first process reaps slowly) does nothing more either.
func endGroup(pgid int) {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if err := syscall.Kill(-pgid, syscall.SIGKILL); errors.Is(err, syscall.ESRCH) {
			return
		}
	}
}

// TestXargsNamesChangedFirst: the names a list prints are the gate's to
// read only if no command of the line changes them first. A branch
// holds files named --compress-program=sh and -S1 that the checked-out tree does
// not: "git checkout other && git ls-files -z | xargs -0 sort" makes sort
// run sh (shown with the real git and sort), and the gate, which sees no
// such name in the folder now, refuses the line for the checkout before
// it. A write of a plain file before the list does not change the answer.
func TestXargsNamesChangedFirst(t *testing.T) {
	if !gnuSort() || !hasProgram("git") || !hasProgram("bash") {
		t.Skip("needs GNU sort, git and bash")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(root, "MARK")
	run := func(line string) {
		t.Helper()
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		endGroup(cmd.Process.Pid)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(strings.Repeat("touch "+marker+"\n", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	run("git init -q -b main . && git add a.txt && git commit -qm a && git checkout -qb other && touch ./--compress-program=sh ./-S1 && git add -A && git commit -qm b && git checkout -q main")
	if _, err := os.Stat(filepath.Join(root, "--compress-program=sh")); err == nil {
		t.Fatal("the checked-out tree holds the name: the test does not show what it guards against")
	}
	attack := "git checkout other && git ls-files -z | xargs -0 sort"
	run(attack + " >/dev/null 2>&1")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the attack did not reproduce (no %s)", marker)
	}
	run("rm -f MARK && git checkout -q main")

	p := New(nil)
	c := &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir(), Effects: WorkspaceWrite, Obs: &testObs{files: map[string]ObsState{}, dirs: map[string]bool{root: true}}}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{attack, false},
		{"git checkout other; git diff --name-only -z | xargs -0 sort", false},
		{"touch ./-S1 && git ls-files -o -z | xargs -0 sort", false},
		{"git checkout other && git ls-files -z | xargs -0 sort --", true},
		{"echo x > out.txt && git ls-files -z | xargs -0 sort", true},
		{"git ls-files -z | xargs -0 sort", true},
	} {
		d := p.Evaluate(tc.line, root, c)
		refused := !d.Allowed && !d.Ask
		if refused == tc.ok || !tc.ok && d.Rule != rule.DynamicWord {
			t.Errorf("%s: allowed %v ask %v (%s: %s), want refused %v (dynamic-word)", tc.line, d.Allowed, d.Ask, d.Rule, d.Reason, !tc.ok)
		}
	}
}
