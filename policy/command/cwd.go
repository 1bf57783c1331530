package command

import (
	"fmt"
	"slices"
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
			hint := "run the cd as a line of its own (cd DIR), then the commands"
			if cmd.Argv[0] == "popd" {
				hint = "join popd with \";\" (pushd DIR && COMMAND; popd): it then runs whether COMMAND fails or not"
			}
			acc.refuse(rule.DynamicWord, fmt.Sprintf("%s: the terminal keeps the folder a cd leaves it in, and this cd's effect is not certain: %s", strings.Join(cmd.Argv, " "), why), hint)
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

// pushd DIR is a cd that also puts the folder it leaves on the shell's
// folder stack; popd goes back to the folder on top of it. The policy
// follows them where the stack is known: popd returns to the folder of
// the line's own last pushd, when nothing between them could have
// changed the stack (a cd: zsh's auto_pushd pushes every cd). A popd
// with no such pushd pops what the shell had before: in a terminal a
// folder of earlier lines the gate did not follow, refused; elsewhere
// the line starts with an empty stack (popd fails and stays), but for
// zsh's auto_pushd, whose stack holds the folders the line was in, so
// the commands after it are judged in each of them. dirs only prints
// the stack (or clears it, which only makes a later popd fail).

// movesFolder reports the builtins that move the shell: the policy
// follows the line's folder through them.
func movesFolder(name string) bool {
	return name == "cd" || name == "pushd" || name == "popd"
}

// folderBuiltin reports the builtins that move the shell or show its
// folder stack, judged by the policy itself (in no table).
func folderBuiltin(name string) bool {
	return movesFolder(name) || name == "dirs"
}

// dirStack judges pushd, popd and dirs in one folder; pushd's folder is
// set as cd's is, popd's by trackDirs, which knows the line's stack.
func (j *judge) dirStack(argv []string) {
	args := argv[1:]
	switch argv[0] {
	case "pushd":
		if len(args) == 1 && args[0] == "--" {
			args = nil
		} else if len(args) == 2 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) != 1 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[0], "+") {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s: pushd is followed only with one folder (no option, no +N or -N, no swap of the stack's top)", showArgv(argv)), "pushd FOLDER, or cd FOLDER")
			return
		}
		j.cd(args)
	case "popd":
		if len(args) > 0 {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s: popd is followed only without options or +N, -N", showArgv(argv)), "popd alone, or cd FOLDER")
		}
	case "dirs":
		for _, a := range args {
			if !(a == "-c" || a == "-l" || a == "-p" || a == "-v" || len(a) > 1 && (a[0] == '+' || a[0] == '-') && allDigits(a[1:])) {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of dirs is not accepted", a), "dirs, or dirs -v")
				return
			}
		}
	}
}

// pushedDir is a folder pushd left, on the line's stack: the folders it
// may be (pushd ran in each), and whether it is certain to be on top.
type pushedDir struct {
	dirs    []string
	unknown bool
}

// trackDirs follows the folder stack through command i (cd, pushd or
// popd), which ran in the folders cur; next are the folders pushd goes
// to, and it returns the folders popd goes to.
func (p *Policy) trackDirs(script *shell.Script, i int, cur, next []string, c *Context, acc *accum) []string {
	cmd := &script.Commands[i]
	certain := !(cmd.Subshell || cmd.Joiner == "|" || i+1 < len(script.Commands) && script.Commands[i+1].Joiner == "|")
	switch cmd.Argv[0] {
	case "cd":
		// zsh's auto_pushd pushes the folder cd leaves: the top is no
		// longer the line's last pushd.
		acc.seen = union(acc.seen, next)
		if n := len(acc.dirs); n > 0 {
			acc.dirs[n-1].unknown = true
		}
		acc.stackUnknown = acc.stackUnknown || !certain
		return nil
	case "pushd":
		acc.seen = union(acc.seen, next)
		// A pushd that may not run, or fail, leaves the stack unknown.
		sure := certain && acc.certainCd == i
		acc.dirs = append(acc.dirs, pushedDir{dirs: slices.Clone(cur), unknown: !sure})
		acc.stackUnknown = acc.stackUnknown || !certain
		return nil
	}
	// popd
	n := len(acc.dirs)
	if n > 0 && !acc.dirs[n-1].unknown && !acc.stackUnknown && certain {
		to := acc.dirs[n-1].dirs
		acc.dirs = acc.dirs[:n-1]
		p.trackCd(script, i, to, c, acc)
		return to
	}
	acc.finalKnown = false
	if c.Terminal {
		acc.refuse(rule.DynamicWord, "popd: the terminal keeps a folder stack from earlier lines, and this popd goes back to a folder the line did not push", "cd FOLDER, or pushd FOLDER earlier in the same line")
		return nil
	}
	if n > 0 {
		acc.dirs = acc.dirs[:n-1]
	}
	acc.stackUnknown = true
	return acc.seen
}
