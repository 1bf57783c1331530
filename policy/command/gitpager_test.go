package command

import (
	"os"
	"path/filepath"
	"testing"

	"admit/policy/rule"
	"admit/policy/shell"
)

// TestGitPagerEverySubcommand: on a host whose line runs in a terminal,
// git may page any subcommand (pager.<cmd> = true, in the repository's
// configuration or the person's), with less or, on Debian and Ubuntu,
// pager found on PATH: a workspace's .venv/bin/pager or less is asked for
// status, ls-files and add as for log. --no-pager, a pipe, the bash -c
// profile and rev-parse (which never pages) stay allowed.
func TestGitPagerEverySubcommand(t *testing.T) {
	root, bin := venvWorkspace(t)
	p := New(nil)
	for _, pager := range gitDefaultPagers {
		exe := filepath.Join(bin, pager)
		if err := os.WriteFile(exe, []byte("#!/bin/sh\ncat\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := &Context{Roots: []string{root}, FS: newTestFS(root), Home: t.TempDir(), Path: []string{bin, "/usr/bin", "/bin"},
			Profile: shell.BashInteractive, Effects: WorkspaceWrite}
		for _, line := range []string{"git log -3", "git status", "git ls-files", "git show-ref", "git add a.txt"} {
			if d := p.Evaluate(line, root, c); d.Allowed || !d.Ask || d.Rule != rule.RunsCode {
				t.Errorf("%s with .venv/bin/%s first on PATH: allowed %v ask %v %s: %s, want asked runs-code", line, pager, d.Allowed, d.Ask, d.Rule, d.Reason)
			}
		}
		for _, line := range []string{"git --no-pager status", "git -P ls-files", "git status | cat", "GIT_PAGER=cat git log -3", "git rev-parse --show-toplevel"} {
			if d := p.Evaluate(line, root, c); d.Rule == rule.RunsCode {
				t.Errorf("%s with .venv/bin/%s first on PATH: %s: %s, want no pager judged", line, pager, d.Rule, d.Reason)
			}
		}
		c.Profile = shell.Analyze
		if d := p.Evaluate("git status", root, c); d.Rule == rule.RunsCode {
			t.Errorf("git status in bash -c: %s: %s", d.Rule, d.Reason)
		}
		if err := os.Remove(exe); err != nil {
			t.Fatal(err)
		}
	}
}
