package command

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// The access engine: every path a program's rule names is judged here,
// the same way for every program. A path is made absolute against the
// working folder, resolved through FS and must be inside the roots; a
// write also needs the workspace-write effect mode, a target that is not
// the workspace or the working folder, no protected path, and an
// observation of what it changes. An admitted write records its Intent.

// accessMode is what a command does with a path.
type accessMode uint8

const (
	modeRead  accessMode = iota // reads the file's contents
	modeProbe                   // looks at the path's metadata (stat, test -f, readlink)
	modeList                    // lists the folder
	modeWrite                   // creates, changes or removes it
)

// access is one path a command would open, and how.
type access struct {
	word      string // as written
	what      string // what named it, for reasons: "operand", "option -o", "redirection >"
	from      string // the source word of a copy or a move
	mode      accessMode
	nofollow  bool // the program acts on a final symlink itself (rm, mv, stat)
	recursive bool // rm -r: the folder's listing must have been observed
	dironly   bool // ls -d: the folder is not listed
	target    bool // a change target of a write program (not a redirection)
	// op is what the write is meant to do, recorded as an Intent once it
	// is admitted (with from as its source); keep lets cp -n leave an
	// existing destination.
	op   Op
	keep bool
}

// check judges every access of one program: the effect mode first, then
// each path.
func (j *judge) check(prog *Program, acs []access) {
	writes := 0
	for _, a := range acs {
		if a.mode == modeWrite && !specialWrite(j.cleanAbs(a.word)) {
			writes++
		}
	}
	if prog.Write || writes > 0 {
		j.wrote() // the kind of the command, allowed or not
	}
	if (prog.Write || writes > 0) && j.c.Effects != WorkspaceWrite {
		what := fmt.Sprintf("%s changes files", prog.Name)
		hint := "ask the person for the workspace-write effect mode"
		if !prog.Write {
			for _, a := range acs {
				if a.mode == modeWrite {
					what = fmt.Sprintf("%s writes %q (%s)", prog.Name, a.word, a.what)
					hint += ", or drop the " + a.what + " and read the output instead"
					break
				}
			}
		}
		j.refuse(rule.ReadOnlyEffects, what+", and the effect mode is read-only", hint)
		return
	}
	if prog.Write && writes == 0 {
		j.refuse(rule.NoTarget, fmt.Sprintf("%s needs an explicit target: name the files or folders it changes", prog.Name), "")
		return
	}
	for _, a := range acs {
		j.path(prog.Name, a)
		if j.acc.refused {
			return
		}
	}
}

// abs makes word absolute against the working folder, expanding "~" in
// an argv. The checks of one path each ask for it (resolve, protect,
// secrets, intents), so the last answer is kept: it is a function of the
// word, the folder and the argv mode alone.
func (j *judge) abs(word string) string {
	if k := &j.lastAbs; k.out != "" && k.word == word && k.cwd == j.cwd && k.argv == j.argv {
		return k.out
	}
	in := word
	if j.argv && (word == "~" || strings.HasPrefix(word, "~/")) && j.c.Home != "" {
		word = j.c.Home + word[1:]
	}
	switch {
	case strings.HasPrefix(word, "/"):
	case j.cwd == "/":
		word = "/" + word
	default:
		word = j.cwd + "/" + word
	}
	j.lastAbs = absMemo{word: in, cwd: j.cwd, argv: j.argv, out: word}
	return word
}

// cleanAbs is cleanPath(j.abs(word)), kept beside abs's answer.
func (j *judge) cleanAbs(word string) string {
	abs := j.abs(word)
	if k := &j.lastAbs; k.clean == "" {
		if clean, ok := j.joinedClean(word, abs); ok {
			k.clean = clean
		} else {
			k.clean = cleanPath(abs)
		}
	}
	return j.lastAbs.clean
}

// joinedClean is cleanPath(abs) for the common words, abs being word
// joined to the working folder: "." is the folder, and a relative word of
// plain names (isClean) under a clean folder is clean. ok is false for
// the others. The folder, the long part, is checked once while it stays
// the same (cleanCwd), not for every word (isClean of the whole path,
// and path.Clean of "folder/.", were 3% of a decision).
func (j *judge) joinedClean(word, abs string) (string, bool) {
	if word == "" || word[0] == '/' || word[0] == '~' || j.cwd == "/" {
		return "", false // abs did not join it to the folder
	}
	if j.cwd != j.cleanCwd {
		if !isClean(j.cwd) {
			return "", false
		}
		j.cleanCwd = j.cwd
	}
	if word == "." {
		return j.cwd, true
	}
	return abs, isClean(word)
}

// absMemo is judge.abs's last answer, and that cleaned once asked for.
type absMemo struct {
	word, cwd, out, clean string
	argv                  bool
}

// specialRead is a device a command may read without it being a file of
// the workspace: each gives nothing, zeros, random bytes or one of the
// command's own streams, and none is another program's.
func specialRead(abs string) bool {
	if !strings.HasPrefix(abs, "/dev/") {
		return false // the callers' abs is clean (cleanAbs): not cleaned again
	}
	switch cleanPath(abs) { // a clean abs is taken as it is
	case "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr",
		"/dev/tty", "/dev/fd/0":
		return true // the endless ones are bounded or refused (devices.go)
	}
	return false
}

// NotAFile says why an existing path that a command would open is not a
// file the policy can judge by its name, or "": a FIFO or a socket
// yields (or takes) what another process writes (or reads), and may
// block forever; a device is hardware. Folders are judged elsewhere.
// A path whose type the FS cannot tell is refused too.
func NotAFile(r Resolved) string {
	if !r.Exists || r.Dir {
		return ""
	}
	if !r.Typed() {
		return "a file whose type cannot be told"
	}
	switch t := r.Mode.Type(); {
	case t == 0:
		return ""
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe): what it yields comes from whichever process writes it, and opening it may wait forever"
	case t&fs.ModeSocket != 0:
		return "a socket: it connects to another process"
	case t&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file (" + r.Mode.Type().String() + ")"
}

// SharesInode says why a write to an existing file would also change a
// file elsewhere, or "": a regular file with more than one hard link is
// the same file under another name, which may be outside the workspace
// (a package store's, a file linked in from home), and no name tells
// where the others are.
func SharesInode(r Resolved) string {
	if r.Regular() && r.Links > 1 {
		return fmt.Sprintf("it has %d hard links, so it is the same file as one under another name, which may be outside the workspace", r.Links)
	}
	return ""
}

// changesInode reports whether a write of op changes the file a path
// names, rather than the name: removing, moving or exchanging a name
// leaves the file's other names as they are; a backup is a rename.
func changesInode(a access) bool {
	switch a.op {
	case OpRemove, OpMove, OpExchange:
		return false
	case OpNone:
		// mv's source and a backup name are renamed; a write without an
		// intent (a write option, sort -o) is opened and written.
		return !a.nofollow && a.what != "backup of the destination"
	}
	return true
}

// specialWrite is a device a command may write without it being a change.
func specialWrite(abs string) bool {
	if !strings.HasPrefix(abs, "/dev/") {
		return false // as specialRead
	}
	switch cleanPath(abs) {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2":
		return true
	}
	return false
}

// resolve resolves a path word; ok is false (and the decision refused)
// when it cannot be.
func (j *judge) resolve(prog string, a access) (Resolved, bool) {
	abs := j.abs(a.word)
	if j.c.FS == nil {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: %q cannot be resolved (no file system to check it against)", prog, a.word), "")
		return Resolved{}, false
	}
	var r Resolved
	var err error
	if a.nofollow {
		r, err = j.resolveNoFollow(abs)
	} else {
		r, err = j.resolvePath(abs)
	}
	if err != nil {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: %q cannot be resolved: %v", prog, a.word, err), "")
		return r, false
	}
	if !inside(r.Path, j.c.Roots) {
		shown := fmt.Sprintf("%q", a.word)
		if r.Path != cleanPath(abs) {
			shown += fmt.Sprintf(" (which resolves to %q)", r.Path)
		}
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: %s %s is outside the workspace (%s)", prog, a.what, shown, strings.Join(j.c.Roots, ", ")),
			"use paths inside the workspace")
		return r, false
	}
	if len(j.acc.relinked) > 0 {
		if rl := j.relinkedAt(r.Path, cleanPath(abs)); rl != nil {
			j.refuseRelinked(prog, a.what, a.word, rl)
			return r, false
		}
	}
	if len(j.acc.treeChanged) > 0 {
		if t := j.treeChangedAt(r.Path); t != nil {
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s: %s %q is in the working tree that a git command of the same line changes (checkout, pull, stash pop, ...); what it holds, and where its links lead, is only known after that has run", prog, a.what, a.word),
				"run the git command on its own, then this one")
			return r, false
		}
	}
	if !j.checkFlux(prog, a, abs, r) {
		return r, false
	}
	return r, true
}

// resolveNoFollow resolves abs without following a final symlink: the
// folder it is in is resolved, and the last name kept (rm link removes
// the link). A path ending in "/", ".", ".." or "/" itself is resolved
// in full, as the kernel does.
func (j *judge) resolveNoFollow(abs string) (Resolved, error) {
	base := path.Base(abs)
	if strings.HasSuffix(abs, "/") || base == "." || base == ".." || base == "/" {
		return j.resolvePath(abs)
	}
	dir := abs[:strings.LastIndexByte(abs, '/')]
	if dir == "" {
		dir = "/"
	}
	rd, err := j.resolvePath(dir)
	if err != nil {
		return Resolved{}, err
	}
	full, err := j.resolvePath(abs)
	if err != nil {
		return Resolved{}, err
	}
	p := path.Join(rd.Path, base)
	r := Resolved{Path: p, Exists: full.Exists || full.Path != p, Dir: full.Dir && full.Path == p}
	if full.Path == p {
		r.Mode, r.Links, r.Foreign = full.Mode, full.Links, full.Foreign
	} else {
		r.Mode = fs.ModeSymlink // the name is a link, which the program acts on itself
	}
	return r, nil
}

// noFollowPath is where word leads without following a final symlink,
// as resolveNoFollow finds it, or "" when it cannot be resolved.
func (j *judge) noFollowPath(word string) string {
	if j.c.FS == nil {
		return ""
	}
	abs := j.abs(word)
	base := path.Base(abs)
	if strings.HasSuffix(abs, "/") || base == "." || base == ".." || base == "/" {
		r, err := j.resolvePath(abs)
		if err != nil {
			return ""
		}
		return r.Path
	}
	dir := abs[:strings.LastIndexByte(abs, '/')]
	if dir == "" {
		dir = "/"
	}
	if dir == j.cwd {
		return abs // in the working folder, which is resolved already
	}
	rd, err := j.resolvePath(dir)
	if err != nil {
		return ""
	}
	return path.Join(rd.Path, base)
}

// quietResolve resolves a word without judging it.
func (j *judge) quietResolve(word string) (Resolved, bool) {
	if j.c.FS == nil {
		return Resolved{}, false
	}
	r, err := j.resolvePath(j.abs(word))
	return r, err == nil
}

// inside reports whether p is one of the roots or under one.
func inside(p string, roots []string) bool {
	for _, r := range roots {
		if r == "/" || p == r || (strings.HasPrefix(p, r) && p[len(r)] == '/') {
			return true
		}
	}
	return false
}

// path judges one access.
func (j *judge) path(prog string, a access) {
	if a.word == runtimeName {
		// A name find or xargs gives when it runs (xargs.go): inside the
		// workspace, but not known, so it cannot be a change's target.
		j.namesRead = j.namesRead || a.mode == modeRead
		if a.mode == modeWrite {
			j.refuse(rule.NoTarget, fmt.Sprintf("%s would change files named only when it runs; a change needs its targets named", prog), "list the files first, then change them by name")
		}
		return
	}
	switch a.mode {
	case modeRead, modeProbe, modeList:
		if a.word == "" {
			return // names nothing; the program fails on it
		}
		if a.word == "-" && a.mode == modeRead {
			return // standard input
		}
		if specialRead(j.cleanAbs(a.word)) {
			if a.mode == modeRead && endlessDevice(j.abs(a.word)) && a.what != "option --random-source" {
				j.endlessRead(prog, a.word)
			}
			return
		}
		if j.outsideRead(prog, a) {
			return
		}
		r, ok := j.resolve(prog, a)
		if !ok {
			return
		}
		if a.mode == modeRead {
			if why := NotAFile(r); why != "" {
				j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: %s %q is %s; only regular files of the workspace are read", prog, a.what, a.word, why),
					"read a regular file instead")
				return
			}
		}
		switch {
		case a.mode == modeRead && r.Exists && !r.Dir:
			j.secretRead(prog, a.word, r.Path)
			j.acc.reads = addPath(j.acc.reads, r.Path)
		case a.mode == modeRead && r.Exists && r.Dir:
			j.walkCredentials(prog, a.word, r.Path, j.words.skip)
			if j.words.walks || j.words.ps.has("recursive") != nil || j.words.ps.has("follow") != nil {
				j.walkSecrets(prog, a.word, r.Path, &j.words.skip)
			}
		case a.mode == modeList && r.Exists && r.Dir && !a.dironly:
			j.acc.lists = addPath(j.acc.lists, r.Path)
		}
	case modeWrite:
		if specialWrite(j.cleanAbs(a.word)) {
			return
		}
		j.write(prog, a)
	}
}

// secretRead asks a person before a command shows the model a file whose
// name says it holds secrets (Context.Secrets), by where it lands or as
// it was named.
func (j *judge) secretRead(prog, word, resolved string) {
	s := j.c.secrets()
	for i, p := range [2]string{resolved, j.cleanAbs(word)} {
		if i == 1 && p == resolved {
			continue // named as it lands: checked already
		}
		root := j.rootOf(p)
		if root == "" {
			continue // outside
		}
		if pat := s.Secret(strings.TrimPrefix(p, root)); pat != "" {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("%s reads %q, which the secrets pattern %q names, so the person decides whether the model sees it", prog, word, pat),
				"read a template of it (.env.example) instead, or ask the user for the values the task needs")
			return
		}
	}
	if why := GitConfigCredential(j.c.FS, resolved); why != "" {
		j.acc.asks(rule.SecretRead, fmt.Sprintf("%s reads %q, %s, so the person decides whether the model sees it", prog, word, why),
			"read the settings the task needs with git config --local --get NAME, or ask the person")
	}
}

// write judges one change: inside the roots, not the workspace or the
// working folder itself, not protected, and observed.
func (j *judge) write(prog string, a access) {
	if a.word == "" {
		j.refuse(rule.NoTarget, fmt.Sprintf("%s: %s is an empty path, which names nothing", prog, a.what), "")
		return
	}
	if j.c.Effects != WorkspaceWrite {
		j.refuse(rule.ReadOnlyEffects, fmt.Sprintf("%s writes %q (%s), and the effect mode is read-only", prog, a.word, a.what),
			"ask the person for the workspace-write effect mode, or drop the "+a.what)
		return
	}
	r, ok := j.resolve(prog, a)
	if !ok {
		return
	}
	if changesInode(a) && r.Mode.Type() != fs.ModeSymlink {
		why := NotAFile(r)
		if why == "" {
			why = SharesInode(r)
		}
		if why != "" {
			j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: %s %q is not written: %s", prog, a.what, a.word, why),
				"write a new file instead (or ask the person to break the link with cp)")
			return
		}
	}
	j.noteGitInput(r.Path, a.word)
	if a.target {
		for _, root := range j.c.Roots {
			if r.Path == root {
				j.refuse(rule.NoTarget, fmt.Sprintf("%s: %s %q is the workspace folder itself, which is not a change target; name the files inside it", prog, a.what, a.word), "")
				return
			}
		}
		if r.Path == j.cwd || strings.HasPrefix(j.cwd, r.Path+"/") {
			j.refuse(rule.NoTarget, fmt.Sprintf("%s: %s %q is the working folder or contains it, which is not a change target; name the files inside it", prog, a.what, a.word), "")
			return
		}
	}
	// Both the path as written and where it lands: a link into .admit/
	// is refused, and so is a write through a protected folder that is
	// itself a link elsewhere. A refusal wins over an ask.
	pr := j.protection(j.cleanAbs(a.word), r.Path)
	if pr.Protected && !pr.Ask {
		j.refuse(rule.ProtectedPath, fmt.Sprintf("%s: %s %q is protected: %s", prog, a.what, a.word, pr.Why), "")
		return
	}
	if !j.observed(prog, a, r) {
		return
	}
	if pr.Protected {
		j.acc.asks(rule.ProtectedPath, fmt.Sprintf("%s: changing %q needs a person's approval: %s", prog, a.word, pr.Why), "")
	}
	j.wrote()
	j.acc.writes = addPath(j.acc.writes, r.Path)
	j.noteWrite(r.Path, a.word)
	if a.op != OpNone {
		j.intend(prog, a, r.Path)
	}
}

// protection is how the protected paths take a change to paths, one place
// named more than one way (as written, and where it lands): the first of
// them that refuses, else the first that asks, else not protected.
func (j *judge) protection(paths ...string) Protection {
	personal := j.c.Personal
	if personal == nil {
		personal = j.p.Personal(j.c.Home)
	}
	var ask Protection
	for i, p := range paths {
		if slices.Contains(paths[:i], p) {
			continue // named as it lands: judged already
		}
		switch pr := ProtectFor(p, j.c.Roots, personal); {
		case pr.Protected && !pr.Ask:
			return pr
		case pr.Protected && !ask.Protected:
			ask = pr
		}
	}
	return ask
}

// intend records what an admitted write is meant to do, for the run's
// readback. A source is resolved without following its final symlink:
// what cp or mv takes is the name, which may be a link.
func (j *judge) intend(prog string, a access, resolved string) {
	in := Intent{Op: a.op, Path: resolved, Keep: a.keep, By: prog, Cmd: j.cmd, Dir: j.cwd}
	if prog == "shell" {
		in.By = a.what
	}
	if a.from != "" {
		in.From = j.noFollowPath(a.from)
	}
	j.acc.intents = append(j.acc.intents, in)
}

// observeHint is the hint of a refusal of an unobserved change of word.
func observeHint(word string) string {
	return "read the file or list its folder (ls " + path.Dir(word) + ") first"
}

// observed checks that the agent has seen what it changes.
func (j *judge) observed(prog string, a access, r Resolved) bool {
	obs := j.c.Obs
	state := Unobserved
	if obs != nil {
		state = obs.File(r.Path)
	}
	if state == Stale {
		j.refuse(rule.StaleObservation, fmt.Sprintf("%s: %q changed since the agent read it", prog, a.word), "read it again, then retry")
		return false
	}
	if obs == nil {
		j.refuse(rule.UnobservedTarget, fmt.Sprintf("%s: %s %q was not observed before the change", prog, a.what, a.word), observeHint(a.word))
		return false
	}
	if r.Exists {
		if r.Dir && a.recursive {
			if obs.Dir(r.Path) {
				return true
			}
			j.refuse(rule.UnobservedTarget, fmt.Sprintf("%s: folder %q was not listed before removing it recursively", prog, a.word), "list it first (ls -R "+a.word+" or find "+a.word+")")
			return false
		}
		if state == Observed || obs.Dir(parentOf(r.Path)) || (r.Dir && obs.Dir(r.Path)) {
			return true
		}
		j.refuse(rule.UnobservedTarget, fmt.Sprintf("%s: %s %q was not observed before the change", prog, a.what, a.word), observeHint(a.word))
		return false
	}
	// A new path: its nearest existing folder must have been listed.
	dir := parentOf(r.Path)
	for range 64 {
		if obs.Dir(dir) {
			return true
		}
		d, err := j.resolvePath(dir)
		if err != nil || d.Exists || dir == "/" {
			break
		}
		dir = parentOf(dir)
	}
	j.refuse(rule.UnobservedTarget, fmt.Sprintf("%s: %s %q is new, and its folder %q was not listed first", prog, a.what, a.word, dir), "list the folder first (ls "+path.Dir(a.word)+")")
	return false
}

// linksOutside refuses an option that follows symlinks while walking
// folders that hold a symlink leading outside the workspace.
func (j *judge) linksOutside(prog, opt string, dirs []string) {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	for _, d := range dirs {
		r, ok := j.quietResolve(d)
		if !ok || !r.Dir {
			continue
		}
		if rl := j.relinkedUnder(r.Path); rl != nil {
			j.refuseRelinkedWalk(prog, opt, d, rl)
			return
		}
		if links := j.c.FS.LinksOutside(r.Path); len(links) > 0 {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of %s follows symlinks, and %q under %q leads outside the workspace", opt, prog, links[0], d),
				"leave out "+opt+" so symlinks are not followed")
			return
		}
	}
}

// redirect judges one redirection.
func (j *judge) redirect(r shell.Redirect) {
	if r.Target == "" {
		return // a duplication, a close, a here-document
	}
	what := "redirection " + r.Op
	if r.Read {
		j.path("shell", access{word: r.Target, what: what, mode: modeRead})
	}
	if r.Write && !j.acc.refused && !specialWrite(j.cleanAbs(r.Target)) {
		j.wrote()
		j.write("shell", access{word: r.Target, what: what, mode: modeWrite, op: OpChange})
	}
}
