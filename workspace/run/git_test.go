//go:build linux

package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitProgramsOff builds a repository whose config would make git run
// programs (fsmonitor, pager, textconv, ext diff, clean filter) and shows
// that under Run none of them runs, while plain git (the control) does.
func TestGitProgramsOff(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e := newEnv(t)
	git := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.root
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	base := []string{"PATH=/usr/bin:/bin", "HOME=" + e.outside, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "init"}} {
		if args[0] == "add" {
			e.file(t, "a.txt", "aaa\n")
			e.file(t, "b.bin", "bbb\n")
		}
		if out, err := git(base, args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	markers := map[string]string{}
	for _, name := range []string{"fsmonitor", "pager", "textconv", "extdiff", "clean"} {
		marker := filepath.Join(e.outside, name+".ran")
		script := filepath.Join(e.outside, name+".sh")
		body := "#!/bin/sh\ntouch " + marker + "\n"
		if name == "textconv" || name == "clean" {
			body += "cat \"$1\" 2>/dev/null || cat\n"
		}
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		markers[name] = marker
	}
	config := "\n[core]\n\tfsmonitor = " + filepath.Join(e.outside, "fsmonitor.sh") +
		"\n\tpager = " + filepath.Join(e.outside, "pager.sh") +
		"\n[diff \"tc\"]\n\ttextconv = " + filepath.Join(e.outside, "textconv.sh") +
		"\n[diff]\n\texternal = " + filepath.Join(e.outside, "extdiff.sh") +
		"\n[filter \"fl\"]\n\tclean = " + filepath.Join(e.outside, "clean.sh") + "\n"
	f, err := os.OpenFile(filepath.Join(e.root, ".git/config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(config)
	f.Close()
	e.file(t, ".gitattributes", "*.txt diff=tc filter=fl\n")
	// Same size, new content: git must hash the file, through the filter.
	e.file(t, "a.txt", "AAA\n")
	e.file(t, "b.bin", "BBB\n")

	lines := []string{"git status --short", "git diff", "git log -p -1", "git show HEAD", "git diff HEAD -- a.txt"}
	for _, line := range lines {
		r := Run(context.Background(), e.spec(line))
		if r.Err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: %+v", line, r)
		}
		for name, m := range markers {
			if exists(m) {
				t.Fatalf("%s ran the %s program: %+v", line, name, r)
			}
		}
	}
	// Control: the same commands through plain git do run them (so the
	// test above means something). Pager needs a terminal; it is skipped.
	for _, line := range lines {
		git(base, strings.Fields(line)[1:]...)
	}
	for _, name := range []string{"fsmonitor", "textconv", "extdiff", "clean"} {
		if !exists(markers[name]) {
			t.Errorf("control: plain git did not run %s; the test proves nothing for it", name)
		}
	}
}

func TestHardenGit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"git status", "git --no-pager status"},
		{"git diff HEAD", "git --no-pager diff --no-ext-diff --no-textconv HEAD"},
		{"git -C sub log -p", "git --no-pager -C sub log --no-ext-diff --no-textconv -p"},
		{"git --no-pager show", "git --no-pager --no-pager show --no-ext-diff --no-textconv"},
		{"git blame f", "git --no-pager blame --no-textconv f"},
		{"git", "git --no-pager"},
	} {
		got, err := hardenGit(strings.Fields(tc.in))
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"git -c a=b status", "git diff --ext-diff", "git --exec-path=/x status", "git log --textconv"} {
		if _, err := hardenGit(strings.Fields(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
