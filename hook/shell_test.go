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

// TestTerminalNamed: a host whose terminal keeps its folder between calls
// names it on each shell call (not a background one), so the gate can
// follow or pin it; a host whose event reports the folder does not.
func TestTerminalNamed(t *testing.T) {
	cline, _ := Lookup("cline")
	ev, err := cline.Parse([]byte(`{"hookName":"PreToolUse","taskId":"t1","workspaceRoots":["/w"],"preToolUse":{"toolName":"execute_command","parameters":{"command":"cd .git"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	calls, err := cline.Map(ev)
	if err != nil || len(calls) != 1 || calls[0].Terminal != "cline:t1" {
		t.Fatalf("cline execute_command: %+v, %v; want terminal cline:t1", calls, err)
	}
	if r, _ := cline.ShellRun("execute_command"); !r.Pinned() {
		t.Errorf("cline's terminal is not pinned")
	}
	windsurf, _ := Lookup("windsurf")
	ev, err = windsurf.Parse([]byte(`{"agent_action_name":"pre_run_command","trajectory_id":"t","tool_info":{"command_line":"cd .git","cwd":"/w"}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if calls, err := windsurf.Map(ev); err != nil || calls[0].Terminal != "" {
		t.Errorf("windsurf reports its folder, yet the call names a terminal: %+v, %v", calls, err)
	}
}
