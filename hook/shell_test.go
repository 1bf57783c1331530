package hook

import (
	"slices"
	"testing"

	"admit/policy"
	"admit/policy/shell"
)

// TestEveryShellToolDeclared maps every recorded event of every host and
// checks that each call carrying a command line is of a tool the gate
// judges as a shell line and whose host declares how it runs it, so that
// no host's line is judged with a profile picked by default.
func TestEveryShellToolDeclared(t *testing.T) {
	shellTools := policy.DefaultShellTools()
	for _, name := range Names() {
		a, _ := Lookup(name)
		seen := false
		for _, fx := range fixtures(t, name) {
			calls, err := a.Map(mustParse(t, a, fx))
			if err != nil {
				t.Fatalf("%s: %v", fx.path, err)
			}
			for _, c := range calls {
				if c.Command == "" {
					continue
				}
				seen = true
				if _, ok := a.ShellRun(c.Tool); !ok {
					t.Errorf("%s: %s's shell tool %q declares no ShellRun (hook/shell.go)", fx.path, name, c.Tool)
				}
				if !slices.Contains(shellTools, c.Tool) {
					t.Errorf("%s: %q carries a command line but is not one of the gate's shell tools %v", fx.path, c.Tool, shellTools)
				}
			}
		}
		if !seen {
			t.Errorf("%s: no recorded event runs a shell line", name)
		}
	}
	for host, tools := range hostShells {
		if _, ok := Lookup(host); !ok {
			t.Errorf("hostShells names %q, which is no adapter", host)
		}
		for tool, r := range tools {
			if r.Kind == 0 {
				t.Errorf("%s %s: no ShellKind", host, tool)
			}
			if r.Kind == ShellPerson && len(r.Picks) == 0 {
				t.Errorf("%s %s: the person's shell, but no shell it runs", host, tool)
			}
		}
	}
}

// TestShellRunProfile: which profile each host's line is judged with, by
// the person's $SHELL.
func TestShellRunProfile(t *testing.T) {
	cases := []struct {
		host, tool, shell string
		want              shell.Profile
	}{
		{"claude-code", "Bash", "/bin/bash", shell.Analyze},
		{"claude-code", "Bash", "/usr/bin/zsh", shell.Zsh},
		{"claude-code", "Bash", "/usr/bin/fish", shell.Portable}, // Claude Code runs another shell then
		{"claude-code", "Bash", "", shell.Portable},
		{"gemini-cli", "run_shell_command", "/usr/bin/zsh", shell.Analyze},
		{"copilot", "run_in_terminal", "/bin/bash", shell.BashInteractive},
		{"copilot", "run_in_terminal", "/usr/bin/fish", shell.Fish},
		{"copilot", "run_in_terminal", "/bin/dash", shell.Portable},
		{"copilot", "run_in_terminal", "", shell.Portable},
		{"copilot", "Bash", "/usr/bin/zsh", shell.BashInteractive},
		{"codex", "Bash", "/bin/bash", shell.Analyze},
		{"codex", "Bash", "/bin/zsh", shell.Zsh},
		{"codex", "Bash", "/usr/bin/fish", shell.Portable},
		{"cursor", "shell", "/bin/bash", shell.Portable},
		{"cursor", "shell", "/bin/zsh", shell.Portable},
		{"windsurf", "run_command", "/bin/zsh", shell.Portable},
		{"kiro", "bash", "/bin/bash", shell.Portable},
		{"cline", "execute_command", "/bin/bash", shell.BashInteractive},
		{"cline", "execute_command", "/bin/zsh", shell.Zsh},
		{"cline", "execute_command", "", shell.Portable},
	}
	for _, c := range cases {
		a, _ := Lookup(c.host)
		r, ok := a.ShellRun(c.tool)
		if !ok {
			t.Errorf("%s: no ShellRun for %s", c.host, c.tool)
			continue
		}
		if got := r.Profile(c.shell); got != c.want {
			t.Errorf("%s %s with SHELL=%q: profile %s, want %s", c.host, c.tool, c.shell, got, c.want)
		}
	}
}

// TestPinned: the hosts whose shell may keep a cd's folder for the next
// call, where the event would not say so, are pinned; those whose event
// reports the folder, or whose terminal the gate follows, are not.
func TestPinned(t *testing.T) {
	for host, want := range map[string]bool{"cline": true, "windsurf": true, "kiro": true, "claude-code": false, "codex": false, "cursor": false, "gemini-cli": false} {
		a, _ := Lookup(host)
		for _, r := range hostShells[host] {
			if r.Pinned() != want {
				t.Errorf("%s: pinned %v, want %v", a.Name, r.Pinned(), want)
			}
		}
	}
	a, _ := Lookup("copilot")
	if r, _ := a.ShellRun("run_in_terminal"); r.Folder != FolderTracked {
		t.Errorf("VS Code's terminal is not tracked")
	}
}
