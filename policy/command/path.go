package command

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
)

// A program name is resolved on the PATH the command runs with
// (Context.Path), as bash resolves it, before the table's rules are
// applied to it: "ls" with an activated virtualenv's .venv/bin first on
// PATH runs .venv/bin/ls, which the agent can write, and is then no read
// program at all. A name that resolves inside the workspace, or through a
// link into it, or to nothing (a file the line or a background command
// may yet create), is a workspace program: asked, as code that runs.

// bashBuiltins are the names bash runs itself, whatever PATH holds
// (compgen -b): a file of that name on PATH is never run for them.
var bashBuiltins = map[string]bool{}

func init() {
	for _, b := range strings.Fields(". : [ alias bg bind break builtin caller cd command compgen complete compopt continue " +
		"declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local " +
		"logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap " +
		"true type typeset ulimit umask unalias unset wait") {
		bashBuiltins[b] = true
	}
}

// lineWrite is a write admitted for a command of the line (or, with cmd
// -1, one a background command of the session may still make).
type lineWrite struct {
	path string // resolved, absolute
	cmd  int
	word string // as written, for reasons
}

// noteWrite records an admitted write for the commands after it.
func (j *judge) noteWrite(resolved, word string) {
	w := lineWrite{path: resolved, cmd: j.cmd, word: word}
	if !slices.Contains(j.acc.written, w) { // a second pass starts with the first's
		j.acc.written = append(j.acc.written, w)
	}
}

// writesBefore reports whether the write was made by a command that runs
// before the current one, or beside it in the same pipeline (and so
// perhaps before it), or by a background command (cmd -1).
func (j *judge) writesBefore(w lineWrite) bool {
	if w.cmd < 0 || w.cmd < j.cmd {
		return true
	}
	if w.cmd == j.cmd {
		return false
	}
	for k := j.cmd + 1; k <= w.cmd && k < len(j.line); k++ {
		if j.line[k].Joiner != "|" {
			return false
		}
	}
	return true
}

// resolverIn is an FS that resolves a name in a folder it has just
// resolved starting the walk there: PATH is searched on every line, a
// folder at a time, and walking each from / again costs most of a
// decision.
type resolverIn interface {
	ResolveIn(dir, name string) (Resolved, error)
}

// resolveIn resolves name (no "/") in dir, a folder fsys resolved: from
// dir where fsys can (one lstat), else from the root.
func resolveIn(fsys FS, dir, name string) (Resolved, error) {
	if in, ok := fsys.(resolverIn); ok {
		return in.ResolveIn(dir, name)
	}
	return fsys.Resolve(dir + "/" + name)
}

// pathSearcher is an FS that can answer a PATH folder and a name in it
// at once: on Linux one openat2 that refuses symlinks answers both for a
// folder without links, where resolving the folder and then the name
// costs an lstat per component.
type pathSearcher interface {
	// SearchPath returns Resolve(dir).Path and ResolveIn of name in it
	// for a clean absolute dir; ok false when it cannot tell cheaply (a
	// link on the way, an error, no openat2), and the caller resolves
	// as without it.
	SearchPath(dir, name string) (canon string, r Resolved, ok bool)
}

// searchPath is the FS's SearchPath of name in Context.Path[i] when that
// folder is absolute and not resolved yet in this decision (nor named
// before it, whose answer it shares); the answer for the folder is kept
// as pathDir's.
func (j *judge) searchPath(i int, name string) (string, Resolved, bool) {
	s, ok := j.c.FS.(pathSearcher)
	d := j.c.Path[i]
	if !ok || !strings.HasPrefix(d, "/") {
		return "", Resolved{}, false
	}
	j.initPathDirs()
	if j.acc.pathDirs[i] != unresolved {
		return "", Resolved{}, false
	}
	d = cleanPath(d)
	if slices.ContainsFunc(j.c.Path[:i], func(e string) bool { return strings.HasPrefix(e, "/") && cleanPath(e) == d }) {
		return "", Resolved{}, false
	}
	dir, r, ok := s.SearchPath(d, name)
	if ok {
		j.acc.pathDirs[i] = dir
	}
	return dir, r, ok
}

func (j *judge) initPathDirs() {
	if j.acc.pathDirs == nil {
		j.acc.pathDirs = make([]string, len(j.c.Path))
		for k := range j.acc.pathDirs {
			j.acc.pathDirs[k] = unresolved
		}
	}
}

// unresolved marks a PATH folder not resolved yet in accum.pathDirs (no
// path holds a NUL).
const unresolved = "\x00"

// pathDir is Context.Path[i] resolved when it is absolute ("" for the
// others, and for one that does not resolve). A folder is resolved when a
// lookup first reaches it, so folders after every hit of the line are
// never asked about, and once however often PATH names it. The answer is
// kept for one decision (accum.pathDirs, carried to its second pass) and
// never across decisions: between them the workspace may change a link
// that a PATH folder runs through.
func (j *judge) pathDir(i int) string {
	j.initPathDirs()
	if dir := j.acc.pathDirs[i]; dir != unresolved {
		return dir
	}
	dir := ""
	if d := j.c.Path[i]; strings.HasPrefix(d, "/") {
		d = cleanPath(d)
		if k := slices.IndexFunc(j.c.Path[:i], func(e string) bool { return strings.HasPrefix(e, "/") && cleanPath(e) == d }); k >= 0 {
			dir = j.pathDir(k)
		} else if rd, err := j.resolvePath(d); err == nil {
			dir = rd.Path
		}
	}
	j.acc.pathDirs[i] = dir
	return dir
}

// programOnPath resolves argv[0] on Context.Path and judges what it
// finds; false when the command is decided (asked or refused) and must
// not be judged as the table's program of its name. A file of the
// workspace is judged as the program given as its path would be
// (pathProgram: the toolchain of its name refuses what it refuses, and it
// is asked as code that runs, matched by the person's rules under that
// path, never under the bare name); a name found nowhere is asked as
// code that runs, besides what the table says of it.
func (j *judge) programOnPath(argv []string) bool { return j.onPath(argv, false) }

// helperOnPath judges a program a command may start on its own, for a
// reason the line does not show (gpg, for a signature a committed file
// asks git to check): found inside the workspace, or written there first,
// it is judged as programOnPath judges it; found nowhere, nothing starts.
func (j *judge) helperOnPath(argv []string) bool { return j.onPath(argv, true) }

func (j *judge) onPath(argv []string, missingOK bool) bool {
	name := argv[0]
	if j.c.Path == nil || bashBuiltins[name] || name == "cd" || j.c.FS == nil {
		return true
	}
	j.acc.readsWrites = true
	var dirs []string     // the PATH folders searched before (and with) the hit, resolved
	var searched []string // of dirs, those searched by ResolveIn
	found, foundAt := "", ""
	for i, d := range j.c.Path {
		if d == "" {
			d = "." // an empty entry is the working folder
		}
		if dir, r, ok := j.searchPath(i, name); ok {
			dirs = append(dirs, dir)
			searched = append(searched, dir)
			if r.Exists && !r.Dir && r.Mode.Perm()&0o111 != 0 {
				found, foundAt = r.Path, j.cleanAbs(d)+"/"+name
				break
			}
			continue
		}
		dir, canonical := j.pathDir(i), true
		if dir == "" {
			dir = j.cleanAbs(d)
			rd, err := j.resolvePath(dir)
			if canonical = err == nil; canonical {
				dir = rd.Path
			}
		}
		dirs = append(dirs, dir)
		var r Resolved
		var err error
		if in, ok := j.c.FS.(resolverIn); ok && canonical {
			if slices.Contains(searched, dir) {
				continue // a folder PATH names twice (or two links to it): asked once
			}
			searched = append(searched, dir)
			r, err = in.ResolveIn(dir, name)
		} else {
			r, err = j.resolvePath(dir + "/" + name)
		}
		if err != nil {
			j.refuse(rule.OutsideWorkspace, fmt.Sprintf("program %q: %s/%s on PATH cannot be resolved: %v", name, d, name, err), "")
			return false
		}
		if r.Exists && !r.Dir && r.Mode.Perm()&0o111 != 0 {
			found, foundAt = r.Path, j.cleanAbs(d)+"/"+name
			break
		}
	}
	// A write of the line, or of a background command, into a folder
	// searched first changes which file runs.
	for _, w := range j.acc.written {
		if !j.writesBefore(w) {
			continue
		}
		for _, d := range dirs {
			if path.Dir(w.path) == d || w.path == d || strings.HasPrefix(d, w.path+"/") {
				j.refuse(rule.DynamicWord, fmt.Sprintf("program %q is looked up on PATH in %q, and %q is written there before it runs, so which file runs is only known after that write", name, d, w.word),
					"run the write as a command of its own, then the program")
				return false
			}
		}
	}
	switch {
	case found == "" && missingOK:
		return true
	case found == "":
		j.acc.writesAnywhere = true
		j.asksCode(rule.RunsCode, argv, fmt.Sprintf("program %q is not found on the PATH the command runs with, so what runs is only known when it runs (a file the agent could create first), and a person decides", name), "")
		return true
	case inside(found, j.c.Roots):
		// Named as the path it runs from, as written from the working
		// folder (.venv/bin/ls), or absolute when it is not below it.
		shown := foundAt
		if rel, ok := strings.CutPrefix(foundAt, j.cwd+"/"); ok {
			shown = rel
		}
		j.acc.writesAnywhere = true
		asPath := append([]string{shown}, argv[1:]...)
		if !j.personRules(asPath) {
			j.pathProgram(asPath)
		}
		return false
	}
	return true
}
