package command

import (
	"fmt"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// The folder a line leaves the shell in. A terminal keeps it for the
// next line typed into it: after "cd .git", a write judged as <ws>/config
// would land in .git/config. So the policy follows every cd of a line
// that a terminal would keep, and reports the folder where the line ends
// (Decision.FinalCwd) when it is certain; with Context.Terminal, a cd
// whose effect is not certain is refused, and so is a line that ends in a
// repository whose configuration runs programs (a git-aware prompt runs
// git there after every line).
//
// A cd is certain when it runs whatever came before (first in its list,
// after ";", or after "&&" behind a cd that was certain), goes to a
// folder that exists, and is not in a pipeline (bash runs each part in a
// subshell; zsh keeps the last part in the shell itself). A cd inside
// "( )" has no effect on the shell; "cd a || cd b", "make && cd out" and
// a cd to a folder that does not exist yet leave the folder unknown.

// trackCd follows the cd that is command i, judged in every folder
// before it; next are the folders it goes to.
func (p *Policy) trackCd(script *shell.Script, i int, next []string, c *Context, acc *accum) {
	cmd := &script.Commands[i]
	inPipeline := cmd.Joiner == "|" || i+1 < len(script.Commands) && script.Commands[i+1].Joiner == "|"
	why := ""
	switch {
	case inPipeline:
		why = "it is part of a pipeline, which some shells run in the shell itself (zsh's last part) and others in a subshell"
	case cmd.Subshell:
		return // inside ( ): the shell's own folder does not change
	case len(next) != 1:
		why = "it runs in a folder that depends on an earlier cd"
	case !acc.finalKnown:
		why = "an earlier cd of the line left the folder unknown"
	case cmd.Joiner == "||":
		why = "it runs only when the command before it fails"
	case cmd.Joiner == "&&" && !(i > 0 && acc.certainCd == i-1):
		why = "it runs only when the command before it succeeds"
	}
	if why == "" && c.FS != nil {
		if r, err := acc.memo.resolve(c.FS, next[0]); err != nil || !r.Exists || !r.Dir {
			why = "the folder does not exist (yet), so cd fails and the shell stays where it was"
		}
	}
	if why != "" {
		acc.finalKnown = false
		if c.Terminal {
			acc.refuse(rule.DynamicWord, fmt.Sprintf("%s: the terminal keeps the folder a cd leaves it in, and this cd's effect is not certain: %s", strings.Join(cmd.Argv, " "), why),
				"run the cd as a line of its own (cd DIR), then the commands")
		}
		return
	}
	acc.final, acc.certainCd = next[0], i
}

// finalCwd reports the folder the line leaves the shell in, and in a
// terminal asks about one whose repository runs programs: the prompt of
// a git-aware shell runs git status there.
func (p *Policy) finalCwd(d *Decision, acc *accum, start string, c *Context) {
	if !acc.finalKnown || !(d.Allowed || d.Ask) {
		return
	}
	d.FinalCwd, d.FinalCwdKnown = acc.final, true
	if !c.Terminal || acc.final == start || c.FS == nil {
		return
	}
	if found := c.FS.GitExec(acc.final); found != "" && !d.Ask {
		d.Allowed, d.Ask, d.Rule = false, true, rule.GitConfigExec
		d.Reason = fmt.Sprintf("the line leaves the terminal in %s, where a git-aware prompt runs git after every line, and git there would run a program named by its configuration, or read outside the workspace (%s)", acc.final, found)
		d.Hint = "ask the person, or stay out of that repository's folder"
	}
}
