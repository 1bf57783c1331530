package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// relink is a path where a command of the line puts a symlink, or a
// folder that may hold symlinks, by moving or copying it (mv, cp -r,
// cp -P). Where a path under it leads is only known once that command
// has run: "mv dirlink-out x && cat x/secret" reads outside although x
// does not exist when the line is judged, and a relative link moved to
// another folder leads somewhere else. Every other command of the line
// that names a path at or under a relink is refused (dynamic-word).
type relink struct {
	path string // resolved, absolute
	cmd  int    // the index of the command that makes it
	by   string // the program, for reasons
	word string // the destination as written
}

// noteRelink records that prog puts src at dest, if src is a symlink or
// a folder (or cannot be told apart from one).
func (j *judge) noteRelink(prog, src, dest string) {
	if !j.carriesLinks(src) {
		return
	}
	r, ok := j.quietResolve(dest)
	if !ok {
		return // the destination is refused on its own
	}
	for _, have := range j.acc.relinked {
		if have.path == r.Path && have.cmd == j.cmd {
			return
		}
	}
	j.acc.relinked = append(j.acc.relinked, relink{path: r.Path, cmd: j.cmd, by: prog, word: dest})
}

// carriesLinks reports whether word names a symlink (not followed) or a
// folder; true when that cannot be told.
func (j *judge) carriesLinks(word string) bool {
	if j.c.FS == nil {
		return true
	}
	abs := strings.TrimRight(j.abs(word), "/")
	if abs == "" {
		return true
	}
	full, err := j.resolvePath(abs)
	if err != nil {
		return true
	}
	if full.Dir {
		return true
	}
	dir, base := path.Split(abs)
	if base == "." || base == ".." {
		return true
	}
	rd, err := j.resolvePath(cleanPath(dir))
	if err != nil {
		return true
	}
	// A final symlink resolves somewhere other than its own name.
	return full.Path != path.Join(rd.Path, base)
}

// relinkedAt returns the relink of another command that p is at or
// under, or nil.
func (j *judge) relinkedAt(paths ...string) *relink {
	for i := range j.acc.relinked {
		rl := &j.acc.relinked[i]
		if rl.cmd == j.cmd {
			continue
		}
		for _, p := range paths {
			if p == rl.path || strings.HasPrefix(p, rl.path+"/") {
				return rl
			}
		}
	}
	return nil
}

// relinkedUnder returns the relink of another command at or under dir,
// or that dir is under, for programs that walk dir following links.
func (j *judge) relinkedUnder(dir string) *relink {
	if rl := j.relinkedAt(dir); rl != nil {
		return rl
	}
	for i := range j.acc.relinked {
		rl := &j.acc.relinked[i]
		if rl.cmd != j.cmd && strings.HasPrefix(rl.path, dir+"/") {
			return rl
		}
	}
	return nil
}

// refuseRelinked refuses an access to word that lands on a relink.
func (j *judge) refuseRelinked(prog, what, word string, rl *relink) {
	j.refuse(rule.DynamicWord, fmt.Sprintf("%s: %s %q is at or under %q, where %s in the same command line moves or copies a symlink or a folder; where it leads is only known after that has run", prog, what, word, rl.word, rl.by),
		"run the "+rl.by+" as a command of its own, then this one")
}

// refuseRelinkedWalk refuses a walk that follows links into a relink.
func (j *judge) refuseRelinkedWalk(prog, opt, dir string, rl *relink) {
	j.refuse(rule.DynamicWord, fmt.Sprintf("option %q of %s follows symlinks under %q, and %s in the same command line moves or copies a symlink or a folder to %q; where it leads is only known after that has run", opt, prog, dir, rl.by, rl.word),
		"run the "+rl.by+" as a command of its own, then this one")
}

// gitInput is a write by one command of a line to a path git may read as
// configuration, attributes, hooks or the shape of a repository.
type gitInput struct {
	path string
	cmd  int
	word string
}

// gitInputName reports whether a resolved path is one git reads when it
// finds and configures a repository: config and attributes files, the
// files and folders that make a folder a repository, hooks.
func gitInputName(p string) bool {
	for _, part := range strings.Split(foldName(p), "/") {
		switch part {
		case ".git", "config", "config.worktree", "head", "commondir", "gitdir", "objects", "refs", "info",
			"hooks", "attributes", ".gitattributes", ".gitmodules", "modules", "worktrees":
			return true
		}
	}
	return false
}

// noteGitInput records a write that git may read.
func (j *judge) noteGitInput(resolved, word string) {
	if !gitInputName(strings.TrimPrefix(resolved, j.rootOf(resolved))) {
		return
	}
	j.acc.gitInputs = append(j.acc.gitInputs, gitInput{path: resolved, cmd: j.cmd, word: word})
}

// rootOf is the root p lies in ("" if none).
func (j *judge) rootOf(p string) string {
	for _, r := range j.c.Roots {
		if p == r || len(p) > len(r) && p[len(r)] == '/' && strings.HasPrefix(p, r) {
			return r
		}
	}
	return ""
}

// gitInputBefore returns a write git may read that runs before or beside
// the current command: by an earlier command, or by a later one in the
// same pipeline. Moved or copied folders count (they may be repositories).
func (j *judge) gitInputBefore() string {
	affects := func(cmd int) bool {
		if cmd < j.cmd {
			return true
		}
		for k := j.cmd + 1; k <= cmd && k < len(j.line); k++ {
			if j.line[k].Joiner != "|" {
				return false
			}
		}
		return cmd > j.cmd
	}
	for _, g := range j.acc.gitInputs {
		if g.cmd != j.cmd && affects(g.cmd) {
			return g.word
		}
	}
	for _, rl := range j.acc.relinked {
		if rl.cmd != j.cmd && affects(rl.cmd) {
			return rl.word
		}
	}
	return ""
}

// gitConfigWritten refuses git when a write before it (or beside it in a
// pipeline, or by a background command) lands on a file git reads as
// configuration for this repository under any name: a file an include
// names (include.path = ../.gitconfig) is no config file by its name, and
// may not exist yet.
func (j *judge) gitConfigWritten() bool {
	j.acc.readsWrites = true
	var files []string
	for _, w := range j.acc.written {
		if !j.writesBefore(w) {
			continue
		}
		if files == nil {
			files = j.c.FS.GitConfigFiles(j.cwd)
		}
		for _, f := range files {
			if f == w.path || strings.HasPrefix(f, w.path+"/") {
				what := "another command of the same line writes"
				if w.cmd < 0 {
					what = "a background command of the session may still write"
				}
				j.refuse(rule.DynamicWord, fmt.Sprintf("%s %q, which git reads as configuration here (%s), so what git would run is only known after that write", what, w.word, f),
					"run the write as a command of its own, then git")
				return true
			}
		}
	}
	return false
}
