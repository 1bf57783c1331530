package hook

import (
	"admit/policy/shell"
)

// How each host runs a shell call's line when admit does not run it: a
// host that cannot be sent a rewrite always does, and one that can still
// does for a call it puts to its own prompt (an ask, with no editor to
// ask in). The gate judges the line as that shell reads it (ShellRun.Profile);
// docs/agents.md has the table.

// ShellKind is which shell a host runs a line in.
type ShellKind uint8

const (
	// ShellBash: always bash, whatever the person's shell is.
	ShellBash ShellKind = iota + 1
	// ShellPerson: the person's shell, $SHELL, when it is one the host
	// runs (ShellRun.Picks); another, or none, is not known for certain.
	ShellPerson
	// ShellUnknown: a shell the host does not document (its own
	// terminal's, the person's, configurable): judged portable.
	ShellUnknown
)

// Folder is what the host says about the folder a line runs in.
type Folder uint8

const (
	// FolderReported: the event names the folder the line runs in (the
	// host starts a shell there, or tracks its own shell's folder).
	FolderReported Folder = iota
	// FolderTracked: one terminal kept from call to call, which keeps
	// the folder a line leaves it in, and the event does not say where it
	// is: the gate follows it (Call.Terminal), and refuses a cd it cannot
	// follow.
	FolderTracked
	// FolderPinned: a shell the host may keep in the folder a line left
	// it in, or put back in the call's folder before the next line: the
	// gate cannot know which, so a line may not leave the folder it starts
	// in (gate.CheckParams.StayInFolder).
	FolderPinned
)

// ShellRun is a host's shell tool as it runs a line.
type ShellRun struct {
	Kind ShellKind
	// Picks are the shells (base names) a ShellPerson host runs when
	// $SHELL names one of them.
	Picks []string
	// Interactive: the line is typed into a terminal, whose line editor,
	// history and state builtins act on it.
	Interactive bool
	// Login: the shell starts as a login shell. It then reads the
	// person's profile files, which admit does not model, as it models no
	// startup file.
	Login  bool
	Folder Folder
	// RewriteHonoured: every release of the host runs the rewrite it is
	// answered with. Where false (Codex's releases before allow took
	// updatedInput; VS Code's Local harness, which drops an input its
	// schema refuses), an allowed line may still run in the host's shell,
	// so it is judged as that shell reads it even when rewritten.
	RewriteHonoured bool
}

// Profile is the shell profile the gate judges the host's line with,
// given the person's $SHELL (empty when unset): bash -c as analyze, an
// interactive bash, zsh or fish as theirs, and any shell not known for
// certain (ShellUnknown, or a $SHELL the host does not run) as portable.
// Non-interactive zsh is judged by the zsh profile, which refuses more
// than zsh -c reads differently (history, comments), never less.
func (r ShellRun) Profile(personShell string) shell.Profile {
	switch r.Kind {
	case ShellBash:
		if r.Interactive {
			return shell.BashInteractive
		}
		return shell.Analyze
	case ShellPerson:
		prof := shell.TerminalProfile(personShell)
		if prof == shell.Portable || !r.picks(prof) {
			return shell.Portable
		}
		if prof == shell.BashInteractive && !r.Interactive {
			return shell.Analyze
		}
		return prof
	}
	return shell.Portable
}

func (r ShellRun) picks(prof shell.Profile) bool {
	name := map[shell.Profile]string{shell.BashInteractive: "bash", shell.Zsh: "zsh", shell.Fish: "fish"}[prof]
	for _, p := range r.Picks {
		if p == name {
			return true
		}
	}
	return false
}

// Pinned says the line may not leave the folder it starts in.
func (r ShellRun) Pinned() bool { return r.Folder == FolderPinned }

// hostShells are the shell tools of each adapter (by admit's tool name)
// and how the host runs them. Sources: Claude Code's Bash tool runs the
// person's shell when it is bash or zsh (settings.md, CLAUDE_CODE_SHELL),
// with a snapshot of its profile; Gemini CLI's run_shell_command runs
// bash -c (packages/core/src/tools/shell.ts); VS Code's run_in_terminal
// types into the chat's terminal, the person's default profile; the
// Copilot CLI's bash is "an interactive bash session" that keeps its
// folder, named by shellId (copilotCLITools.ts); Codex runs the passwd
// shell when it is bash or zsh, as -lc (codex-rs/core/src/shell.rs:
// derive_exec_args, fish falls back to another); Cline types into a VS
// Code terminal it picks in the workspace folder, or cds back there
// (TerminalManager.getOrCreateTerminal); Cursor, Windsurf and Kiro do not
// document the shell, only that it is the person's.
var hostShells = map[string]map[string]ShellRun{
	"claude-code": {"Bash": {Kind: ShellPerson, Picks: []string{"bash", "zsh"}, Login: true, RewriteHonoured: true}},
	"gemini-cli":  {"run_shell_command": {Kind: ShellBash, RewriteHonoured: true}},
	"copilot": {
		"run_in_terminal": {Kind: ShellPerson, Picks: []string{"bash", "zsh", "fish"}, Interactive: true, Folder: FolderTracked},
		"Bash":            {Kind: ShellBash, Interactive: true, RewriteHonoured: true},
	},
	"codex":    {"Bash": {Kind: ShellPerson, Picks: []string{"bash", "zsh"}, Login: true}},
	"cursor":   {"shell": {Kind: ShellUnknown}},
	"windsurf": {"run_command": {Kind: ShellUnknown, Folder: FolderPinned}},
	"kiro":     {"bash": {Kind: ShellUnknown, Folder: FolderPinned}},
	"cline":    {"execute_command": {Kind: ShellPerson, Picks: []string{"bash", "zsh", "fish"}, Interactive: true, Folder: FolderPinned}},
	// opencode's bash tool runs each line in a shell of its choosing (its
	// log names it: /bin/bash here), from args.workdir; it runs the input
	// admit's plugin puts in output.args (measured with 1.18.33).
	"opencode": {"Bash": {Kind: ShellUnknown, RewriteHonoured: true}},
}

// ShellRun is how a's host runs a line of its shell tool (admit's name),
// and false for a tool that runs no shell line.
func (a *Adapter) ShellRun(tool string) (ShellRun, bool) {
	r, ok := hostShells[a.Name][tool]
	return r, ok
}
