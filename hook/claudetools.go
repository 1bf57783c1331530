package hook

// claudeTools maps Claude Code's tools (its tools reference, and the
// tool list of the 2.1.328 binary) to admit's where the built-in policy
// knows them under another name:
//
//   - Agent (formerly Task) starts a subagent, whose every tool call comes
//     through this same hook: the call itself reads and writes nothing,
//     so it is the built-in policy's Task.
//   - TaskCreate, TaskUpdate, TaskList, TaskGet keep the session's task
//     list (bookkeeping, no file system), and AskUserQuestion,
//     EnterPlanMode and ToolSearch talk to the person or to Claude Code
//     itself.
//   - PowerShell is powershell, as for the Copilot CLI: admit's command
//     policy reads POSIX shell lines only, so a PowerShell line is refused
//     (not-in-allow-list) unless the policy allows the tool by name, which
//     lets its lines run unjudged.
//
// Monitor runs a command in the background under Bash's rules (its input
// is Bash's command): it is judged as a Bash line run in the background.
// Every other tool keeps its name and is refused unless a policy allows
// it.
var claudeTools = toolTable{
	"Agent": "Task", "TaskCreate": "TodoWrite", "TaskUpdate": "TodoWrite", "TaskList": "TodoRead", "TaskGet": "TodoRead",
	"AskUserQuestion": "think", "EnterPlanMode": "think", "ToolSearch": "think",
	"PowerShell": "powershell", "Monitor": "Bash",
}

// claudeCall maps one Claude Code tool call.
func claudeCall(ev Event) (Call, error) {
	tool := claudeTools.name(ev.Tool)
	c := newCall(ev, tool, false)
	if tool == "Bash" {
		c, err := shellCall(c, ev.Input, "command", "")
		if ev.Tool == "Monitor" {
			c.Background = true
		}
		return c, err
	}
	return withArgs(c, ev), nil
}
