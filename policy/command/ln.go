package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// ln -s TARGET LINK: the link is a write of its own name (never
// followed), and its target is judged where the link will point: a
// relative target from the link's folder (ln -s ../README.md docs/
// points at README.md), from the working folder with -r. A target
// outside the workspace is refused, as any path outside is; another
// command of the line that names a path at or under the link is refused
// (relink.go), since where it leads is only known once ln ran. A hard
// link (no -s) shares a file under a new name (a secret's under a name no
// pattern knows): it stays a question, as before ln had a table.
func (j *judge) ln(prog *Program, argv []string) {
	ps, err := parseArgs(prog, argv[1:], false)
	if err != nil {
		j.refuse(rule.ForbiddenFlag, err.reason, "leave the option out (see ln --help)")
		return
	}
	if ps.has("symbolic") == nil {
		if !j.refusedOption(prog, &ps) {
			j.wrote()
			if j.c.Effects != WorkspaceWrite {
				j.refuse(rule.ReadOnlyEffects, "ln makes a link, and the effect mode is read-only", "ask the person for the workspace-write effect mode")
				return
			}
			j.argPaths(argv, 1)
			if !j.acc.refused {
				j.asksCode(rule.UnsupportedProgram, argv, "ln without -s makes a hard link, a second name of the same file (a secret's under a name no pattern knows), so a person decides", "make a symbolic link with ln -s")
			}
		}
		return
	}
	j.judgeParsed(prog, ps, programRule{operands: (*judge).lnOperands})
}

func (j *judge) lnOperands(w *words) {
	ps := &w.ps
	ops := w.ops
	type pair struct{ target, link string }
	var pairs []pair
	into := func(dir string, targets []string) {
		for _, t := range targets {
			pairs = append(pairs, pair{t, strings.TrimRight(dir, "/") + "/" + path.Base(strings.TrimRight(t, "/"))})
		}
	}
	switch t := ps.has("target"); {
	case t != nil:
		into(t.value, ops)
	case len(ops) == 0:
		j.refuse(rule.NoTarget, "ln -s needs a target", "")
		return
	case len(ops) == 1:
		into(".", ops)
	case !hasName(ps, "-T") && !hasName(ps, "--no-target-directory") && j.lnIntoDir(ops[len(ops)-1], ps):
		into(ops[len(ops)-1], ops[:len(ops)-1])
	case len(ops) == 2:
		pairs = append(pairs, pair{ops[0], ops[1]})
	default:
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("ln -s with %d operands needs a folder as the last", len(ops)), "")
		return
	}
	relative := ps.has("relative") != nil
	for _, p := range pairs {
		w.add(access{word: p.link, what: "link", mode: modeWrite, target: true, nofollow: true})
		if !j.lnTarget(p.target, p.link, relative) {
			return
		}
	}
}

// lnIntoDir reports whether ln puts its links into dest: a folder (a
// link to one too, unless -n).
func (j *judge) lnIntoDir(dest string, ps *parsed) bool {
	if strings.HasSuffix(dest, "/") {
		return true
	}
	r, ok := j.quietResolve(dest)
	if !ok || !r.Dir {
		return false
	}
	if ps.has("nofollow") != nil {
		return !j.carriesLinks(dest) || j.isDirNotLink(dest)
	}
	return true
}

// isDirNotLink reports a folder that is not itself a symlink.
func (j *judge) isDirNotLink(word string) bool {
	abs := strings.TrimRight(j.abs(word), "/")
	dir, base := path.Split(abs)
	rd, err := j.resolvePath(cleanPath(dir))
	if err != nil {
		return false
	}
	full, err := j.resolvePath(abs)
	return err == nil && full.Dir && full.Path == path.Join(rd.Path, base)
}

// lnTarget judges where the link at link will point: target from the
// link's folder as the file system has it (or from the working folder
// with -r), resolved through the links on the way; false when refused.
func (j *judge) lnTarget(target, link string, relative bool) bool {
	if j.c.FS == nil {
		return true
	}
	dir, base := path.Split(strings.TrimRight(j.abs(link), "/"))
	rd, err := j.resolvePath(cleanPath(dir))
	if err != nil {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("ln: the folder of the link %q cannot be resolved: %v", link, err), "")
		return false
	}
	var abs string
	switch {
	case strings.HasPrefix(target, "/"):
		abs = target
	case relative, strings.HasPrefix(target, "~"):
		abs = j.abs(target)
	default:
		// As the kernel reads it: from the link's folder, its ".." taken
		// physically (resolvePath walks the components).
		abs = rd.Path + "/" + target
	}
	r, err := j.resolvePath(abs)
	if err != nil || !inside(r.Path, j.c.Roots) {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("ln: the link %q would point at %q, outside the workspace", link, abs),
			"link to a file inside the workspace (a relative target is read from the link's folder)")
		return false
	}
	// Where the link itself stands: its folder resolved, its own name.
	j.acc.relinked = append(j.acc.relinked, relink{path: path.Join(rd.Path, base), cmd: j.cmd, by: "ln", word: link})
	return true
}
