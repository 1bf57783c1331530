package command

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"admit/policy/rule"
)

// Secrets read by a walk (issue 18): a program that reads every file
// under a folder (grep -r, rg --hidden, tar -c, cp -r, diff -r, find
// -exec cat {} +, find -print0 | xargs -0 cat) reads the workspace's
// secret files among them and prints or sends what they hold. The gate
// looks through the folder walked and the folders under it, once per
// decision and within bounds (treeSecrets: past them it cannot tell, and
// the person decides), and a file there that the secrets patterns name and
// that the program's own filters do not leave out (grep --exclude and
// --exclude-dir, rg without --hidden or with -g '!NAME', tar --exclude,
// find's -name tests and depths) makes the walk a secret read, asked as
// cat .env is. git's walks (git grep, git ls-files | xargs cat) read the
// files the index tracks, at any depth; the index is read for them.

// Bounds of the look for secrets under one walked folder: past them
// the gate cannot tell what the walk reads, and says so.
const (
	maxSecretFolders = 2048
	maxSecretEntries = 100_000
)

// filledFolder reports whether a folder called name is one git, a
// package manager or a tool's cache fills (.git, node_modules,
// site-packages, vendor, cargo's target, __pycache__, .gradle): a key or
// a certificate in it (a package's test fixtures, certifi's cacert.pem)
// was put there by an install or a build, not written by the person, and
// a secret of the person's copied there was read by the line that copied
// it, which was judged as that read. The walk does not look inside one
// below the folder it was given, and its thousands of folders do not
// spend the bounds. Build outputs a project's own scripts fill (dist,
// build) are looked into: they may hold a copied .env.
func filledFolder(name string) bool {
	return hasField(".git node_modules site-packages dist-packages vendor target __pycache__ .gradle .mypy_cache .pytest_cache .ruff_cache .tox .nox .next .nuxt .turbo .parcel-cache", name)
}

// treeLook is what a look for secrets under a folder is told of the walk.
type treeLook struct {
	maxD    int                                  // folders down the walk reads (1: the folder's own entries)
	follows bool                                 // it enters links to folders (grep -R, rg -L, find -L)
	enters  func(name string) bool               // it enters a folder of this name
	keeps   func(rel string, e fs.DirEntry) bool // it reads this file (rel: its path under the folder, with "/")
}

// treeSecrets hands found each file under dir (resolved) that the walk
// look describes reads and that the secrets patterns name, by its path
// under dir or by where it lands (a link's target), with its resolved
// path and the pattern, until found says no more. Folders are entered
// unless filledFolder or look says not; links to folders only when the
// walk follows them. whole is false when the bounds stopped the look
// before the tree was seen: a secret may be among the rest. Nothing is
// found when dir is outside the roots or cannot be listed (the program
// cannot list it either).
func (j *judge) treeSecrets(dir string, look treeLook, found func(rel, abs, pat string) (more bool)) (whole bool) {
	root := j.rootOf(dir)
	if j.c.FS == nil || root == "" {
		return true
	}
	s := j.c.secrets()
	top := strings.TrimPrefix(dir, root)
	type folder struct {
		abs, rel string // where it is (resolved), and its path under dir
		linked   bool   // entered through a link: abs is not dir/rel
	}
	folders, entries := []folder{{abs: dir}}, 0 // breadth first
	var entered []string                        // the targets of the links entered
	for n := 0; n < len(folders); n++ {
		if n == maxSecretFolders {
			return false
		}
		fo := folders[n]
		ents, err := j.listWalked(fo.abs, n == 0)
		if err != nil {
			continue
		}
		if entries += len(ents); entries > maxSecretEntries {
			return false
		}
		parent := "" // the folder's name, for the patterns' index
		switch {
		case fo.rel != "":
			parent = strings.ToLower(path.Base(fo.rel))
		case top != "":
			parent = strings.ToLower(path.Base(top))
		}
		depth := 0 // fo's, dir's own being 0
		if fo.rel != "" {
			depth = strings.Count(fo.rel, "/") + 1
		}
		deeper := depth+2 <= look.maxD // the entries of a folder here are that deep
		for _, e := range ents {
			// Paths are built only for the entries that need them: most
			// are files no pattern can name.
			name, linked, abs := e.Name(), fo.linked, ""
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				r, err := resolveIn(j.c.FS, fo.abs, name)
				if err != nil || !r.Exists {
					continue
				}
				if r.Dir {
					if look.follows && deeper && !filledFolder(name) && look.enters(name) && !slices.Contains(entered, r.Path) {
						entered = append(entered, r.Path)
						folders = append(folders, folder{abs: r.Path, rel: joinRel(fo.rel, name), linked: true})
					}
					continue
				}
				abs, linked = r.Path, true
			case e.IsDir():
				if deeper && !filledFolder(name) && look.enters(name) {
					folders = append(folders, folder{abs: fo.abs + "/" + name, rel: joinRel(fo.rel, name), linked: fo.linked})
				}
				continue
			case !linked && !s.mayName(parent, strings.ToLower(name)):
				continue
			default:
				abs = fo.abs + "/" + name
			}
			rel := joinRel(fo.rel, name)
			pat := s.Secret(top + "/" + rel)
			if lroot := j.rootOf(abs); pat == "" && linked && lroot != "" {
				pat = s.Secret(strings.TrimPrefix(abs, lroot)) // named otherwise where it lands
			}
			if pat != "" && look.keeps(rel, e) && !found(rel, abs, pat) {
				return true
			}
		}
	}
	return true
}

// joinRel is name under the folder rel ("" for the walk's own).
func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// listWalked lists a folder of a walk: the one named through the
// decision's memo (other checks list it too), those under it directly,
// so that a tree does not crowd the memo out.
func (j *judge) listWalked(abs string, named bool) ([]fs.DirEntry, error) {
	if named {
		return j.acc.memo.readDir(j.c.FS, abs)
	}
	return listResolved(j.c.FS, abs)
}

// mayShow reports whether a search that prints only lines holding one of
// shows (lower case; nil: any line) may print a line of file (resolved).
func (j *judge) mayShow(file string, shows []string) bool {
	th, ok := j.c.FS.(TextHolder)
	return shows == nil || !ok || th.MayHold(file, shows)
}

// walkPastBounds judges a walk whose folder holds more than the gate
// looks through for secrets: it cannot tell whether the walk reads one,
// so the person decides (where admit runs the line too: it cannot hide
// a file it has not seen).
func (j *judge) walkPastBounds(prog, how string) {
	j.acc.asks(rule.SecretRead, fmt.Sprintf("%s %s, and it holds more than %d folders or %d names, more than the gate looks through for a secret's file, so the person decides whether the model sees what it reads", prog, how, maxSecretFolders, maxSecretEntries),
		"walk a smaller folder, or name the files to read, or ask the person")
}

// walkSecrets judges prog reading the folder dir (word, resolved) whole:
// each secret's file under it that skip keeps is read.
func (j *judge) walkSecrets(prog, word, dir string, skip *walkSkips) {
	if j.settled() || skip.unshown {
		return
	}
	how := fmt.Sprintf("reads the folder %q whole", word)
	look := treeLook{maxD: 1 << 30, follows: j.words.ps.has("follow") != nil,
		enters: func(name string) bool { return !skip.leavesFolder(name) },
		keeps:  func(_ string, e fs.DirEntry) bool { return !skip.leaves(e.Name()) }}
	whole := j.treeSecrets(dir, look, func(rel, abs, pat string) bool {
		if strings.Contains(rel, "/") && !j.c.AdmitRuns && !j.mayShow(abs, skip.shows) {
			return true // below the folder named, a file whose lines the search cannot print
		}
		j.walkSecret(prog, how+", and with it", path.Join(word, rel), abs, pat)
		return j.c.AdmitRuns // each one hidden; where the host runs it, one question is enough
	})
	if !whole && !j.settled() {
		j.walkPastBounds(prog, how)
	}
}

// settled reports whether a walk's secrets need not be looked for: the
// line is refused, or asked already where the host runs it (one question
// is enough). Where admit runs the line they are looked for still: the
// run hides them whatever the person answers.
func (j *judge) settled() bool {
	return j.acc.refused || j.acc.ask && !j.c.AdmitRuns
}

// walkSecret judges a walk that reads file (abs, resolved), which pat
// names: where admit runs the line, the run is made without it (an empty
// read-only file in its place, Decision.Hidden), so the walk reads
// nothing secret and nobody need be asked; where the host runs it, the
// person decides, as for cat .env.
func (j *judge) walkSecret(prog, how, file, abs, pat string) {
	if j.c.AdmitRuns {
		j.acc.hidden = addPath(j.acc.hidden, abs)
		return
	}
	name := path.Base(file)
	j.acc.asks(rule.SecretRead, fmt.Sprintf("%s %s %q, which the secrets pattern %q names, so the person decides whether the model sees it", prog, how, file, pat),
		fmt.Sprintf("leave %s out of the walk (grep -r --exclude=%s, rg without --hidden or with -g '!%s', tar --exclude=%s, find ... ! -name %s, git grep ... ':!%s'), or ask the person", name, name, name, name, name, name))
}

// findSecrets asks when find's walk of starts hands a secret's file to a
// command that reads it: expr (find's expression) may reach, for that
// file, one of the primaries hits names (-exec for find -exec, -print0
// for find | xargs), or prints it with no action of its own; follows
// says find follows links (-L), and then sees a link as its target.
func (j *judge) findSecrets(prog string, starts, expr []string, hits string, follows bool) {
	if j.c.FS == nil || j.settled() {
		return
	}
	minD, maxD := findDepths(expr)
	for _, st := range starts {
		r, ok := j.quietResolve(st)
		if !ok || !r.Exists {
			continue
		}
		if !r.Dir {
			// A file named as the start: find's only file, at depth 0.
			root := j.rootOf(r.Path)
			if pat := j.c.secrets().Secret(strings.TrimPrefix(r.Path, root)); root != "" && pat != "" && minD == 0 &&
				j.findReaches(expr, findFile{name: path.Base(st), path: st, typ: 'f'}, hits) {
				j.walkSecret(prog, "is handed, by the walk of find,", st, r.Path, pat)
				if !j.c.AdmitRuns {
					return
				}
			}
			continue
		}
		if maxD < 1 {
			continue
		}
		dir, asked := r.Path, false
		base := strings.TrimSuffix(st, "/")
		how := fmt.Sprintf("is handed, by the walk of find %s,", st)
		look := treeLook{maxD: maxD, follows: follows, enters: func(string) bool { return true }, keeps: func(rel string, e fs.DirEntry) bool {
			if strings.Count(rel, "/")+1 < minD {
				return false
			}
			typ := byte('f')
			if e.Type()&fs.ModeSymlink != 0 && !follows {
				typ = 'l'
			} else if !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
				typ = '?'
			}
			return j.findReaches(expr, findFile{name: e.Name(), path: base + "/" + rel, typ: typ}, hits)
		}}
		whole := j.treeSecrets(dir, look, func(rel, abs, pat string) bool {
			j.walkSecret(prog, how, path.Join(st, rel), abs, pat)
			asked = !j.c.AdmitRuns
			return !asked
		})
		if asked {
			return
		}
		if !whole {
			j.walkPastBounds(prog, fmt.Sprintf("is handed the files of the walk of find %s", st))
			return
		}
	}
}

// findDepths are find's -mindepth and -maxdepth (0 and a large number
// when not given).
func findDepths(expr []string) (minD, maxD int) {
	minD, maxD = 0, 1<<30
	for k := 0; k+1 < len(expr); k++ {
		n, err := strconv.Atoi(expr[k+1])
		if err != nil {
			continue
		}
		switch expr[k] {
		case "-mindepth":
			minD = n
		case "-maxdepth":
			maxD = n
		}
	}
	return minD, maxD
}

// findFile is one file as find's expression sees it.
type findFile struct {
	name, path string
	typ        byte // 'f', 'l' or '?' (not known)
}

// tri is a test's value on a file the gate knows only some of: its
// name, path and type, not its size or times.
type tri uint8

const (
	triNo tri = iota
	triMaybe
	triYes
)

// findEval evaluates find's expression, as find does (! before -a
// before -o before ","; -a and -o short-circuit), for one file.
type findEval struct {
	j      *judge
	expr   []string
	k      int
	f      findFile
	hits   string // the primaries whose reaching counts
	action bool   // the expression holds an action (no implicit -print)
}

// findReaches reports whether expr may reach, for f, a primary hits
// names; an expression without an action prints (hands on) every file
// it may be true for.
func (j *judge) findReaches(expr []string, f findFile, hits string) bool {
	e := findEval{j: j, expr: expr, f: f, hits: hits}
	v, hit := e.comma(true)
	if e.k < len(expr) {
		return true // not read to its end (a stray ")"): taken as reached
	}
	if !e.action {
		return v != triNo
	}
	return hit
}

func (e *findEval) peek() string {
	if e.k < len(e.expr) {
		return e.expr[e.k]
	}
	return ""
}

func (e *findEval) comma(live bool) (tri, bool) {
	v, hit := e.or(live)
	for e.peek() == "," {
		e.k++
		var h bool
		v, h = e.or(live)
		hit = hit || h
	}
	return v, hit
}

func (e *findEval) or(live bool) (tri, bool) {
	v, hit := e.and(live)
	for p := e.peek(); p == "-o" || p == "-or"; p = e.peek() {
		e.k++
		w, h := e.and(live && v != triYes)
		hit = hit || h
		switch {
		case v == triYes || w == triYes:
			v = triYes
		case v == triNo && w == triNo:
		default:
			v = triMaybe
		}
	}
	return v, hit
}

func (e *findEval) and(live bool) (tri, bool) {
	v, hit := e.unary(live)
	for {
		switch p := e.peek(); p {
		case "", ")", "-o", "-or", ",":
			return v, hit
		case "-a", "-and":
			e.k++
		}
		w, h := e.unary(live && v != triNo)
		hit = hit || h
		v = min(v, w)
	}
}

func (e *findEval) unary(live bool) (tri, bool) {
	switch e.peek() {
	case "!", "-not":
		e.k++
		v, hit := e.unary(live)
		return triYes - v, hit
	case "(":
		e.k++
		v, hit := e.comma(live)
		if e.peek() == ")" {
			e.k++
		}
		return v, hit
	case "":
		return triYes, false
	}
	return e.primary(live)
}

// primary evaluates one test or action and steps past its arguments.
func (e *findEval) primary(live bool) (tri, bool) {
	a := e.expr[e.k]
	e.k++
	arg := func() string {
		if e.k < len(e.expr) {
			e.k++
			return e.expr[e.k-1]
		}
		return ""
	}
	hit := live && hasField(e.hits, a)
	switch a {
	case "-exec", "-execdir", "-ok", "-okdir":
		for e.k < len(e.expr) {
			w := e.expr[e.k]
			e.k++
			if w == ";" || w == "+" && e.expr[e.k-2] == "{}" {
				break
			}
		}
		e.action = true
		return triMaybe, hit
	case "-print", "-print0", "-ls", "-delete":
		e.action = true
		return triYes, hit
	case "-printf", "-fprint", "-fprint0", "-fls":
		arg()
		e.action = true
		return triYes, hit
	case "-fprintf":
		arg()
		arg()
		e.action = true
		return triYes, hit
	case "-true", "-prune", "-quit":
		return triYes, false
	case "-false":
		return triNo, false
	case "-name", "-iname":
		return globTri(arg(), e.f.name, a == "-iname", false), false
	case "-path", "-ipath", "-wholename", "-iwholename":
		return globTri(arg(), e.f.path, a[1] == 'i', true), false
	case "-type":
		t := arg()
		if e.f.typ == '?' {
			return triMaybe, false
		}
		if strings.IndexByte(t, e.f.typ) >= 0 {
			return triYes, false
		}
		return triNo, false
	}
	if pr, ok := e.j.p.find[a]; ok && pr.Arg != NoArg {
		arg()
	}
	// Options (-maxdepth, -xdev) are true; a test of what the gate does
	// not know (-size, -newer, -regex) may be either.
	if hasField("-maxdepth -mindepth -depth -d -mount -xdev -noleaf -ignore_readdir_race -noignore_readdir_race -nowarn -warn -daystart -regextype", a) {
		return triYes, false
	}
	return triMaybe, false
}

// globTri matches find's -name or -path pattern (fnmatch without
// FNM_PERIOD; for paths, "*" matches "/" too); a bad pattern may match.
func globTri(glob, s string, fold, slash bool) tri {
	if fold {
		glob, s = strings.ToLower(glob), strings.ToLower(s)
	}
	ok, err := wildMatch(glob, s, slash)
	switch {
	case err != nil:
		return triMaybe
	case ok:
		return triYes
	}
	return triNo
}

// wildMatch is path.Match, with "*" matching "/" too when slash is set
// (as find's -path and git's pathspecs match): with "/" replaced by a
// byte no name holds, path.Match's "*" crosses it.
func wildMatch(glob, s string, slash bool) (bool, error) {
	if slash {
		const sep = "\x00"
		glob, s = strings.ReplaceAll(glob, "/", sep), strings.ReplaceAll(s, "/", sep)
	}
	return path.Match(glob, s)
}

// TextHolder is an FS that can tell whether a file holds a text
// (workspace.Resolver, and the facts' recorder and replay); without it,
// every file is taken as holding any.
type TextHolder interface {
	// MayHold reports whether the file (resolved) may hold one of words
	// (printable ASCII, lower case) in any case: false only for a small
	// file of printable ASCII text that holds none of them.
	MayHold(file string, words []string) bool
}

// GitIndex is an FS that reads a repository's index (workspace.Resolver,
// and the facts' recorder and replay); without it, git's walks are
// judged by the folder's own names, each taken as tracked.
type GitIndex interface {
	// GitTracked lists files the index of the repository holding dir
	// tracks under dir (relative to it, with "/") that want accepts, at
	// most a few; ok is false when the index cannot be read. want is the
	// same for every call of one decision (it names secrets), so an
	// answer may be kept by dir alone.
	GitTracked(dir string, want func(rel string) bool) (files []string, ok bool)
}

// namesWalkSecrets asks when the command feeding prog its names (xargs,
// a while read loop, a substitution) walks to a secret's file: find's
// walk as its expression selects, ls's folder, the files git tracks.
// grep -l and rg -l read the files themselves, and are judged so.
func (j *judge) namesWalkSecrets(prog string, producer []string) {
	if j.c.FS == nil || j.settled() || len(producer) == 0 {
		return
	}
	args := producer[1:]
	switch path.Base(producer[0]) {
	case "find":
		i, follow := findOptions(args)
		var starts []string
		for ; i < len(args); i++ {
			a := args[i]
			if (strings.HasPrefix(a, "-") && a != "-") || a == "(" || a == "!" {
				break
			}
			if a != "--" || len(starts) > 0 {
				starts = append(starts, a)
			}
		}
		if len(starts) == 0 {
			starts = []string{"."}
		}
		j.findSecrets(prog, starts, args[i:], "-print -print0", follow != "" || slices.Contains(args[i:], "-follow"))
	case "ls":
		all := false
		var dirs []string
		for _, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
				all = all || strings.ContainsRune(a, 'A')
			} else if !strings.HasPrefix(a, "-") {
				dirs = append(dirs, a)
			}
		}
		if len(dirs) == 0 {
			dirs = []string{"."}
		}
		skip := walkSkips{hidden: !all}
		for _, d := range dirs {
			if r, ok := j.quietResolve(d); ok && r.Exists {
				if r.Dir {
					j.walkSecrets(prog, d, r.Path, &skip)
				} else {
					j.secretRead(prog, d, r.Path)
				}
			}
		}
	case "git":
		if len(args) == 0 {
			return
		}
		// Its pathspecs, read with the subcommand's own options (-x PATTERN
		// takes a value); where they cannot be read, every tracked file.
		var specs []string
		if sub := j.p.git[args[0]]; sub != nil {
			if ps, err := parseArgs(sub, args[1:], false); err == nil {
				specs = j.walkPathspecs(args[0], &ps)
			}
		}
		if others, _, _ := lsFilesLists(producer); others {
			j.untrackedSecrets(prog, specs, args)
		}
		j.gitTrackedSecrets(prog, specs, nil)
	}
}

// untrackedSecrets judges git ls-files -o feeding prog: it lists the
// untracked files of the folders its pathspecs name (the working folder
// without one), a secret's file among them unless an --exclude=NAME
// leaves it out. What .gitignore leaves out (--exclude-standard) is not
// read here, so a secret's file there is taken as listed.
func (j *judge) untrackedSecrets(prog string, specs, args []string) {
	skip := walkSkips{git: true, modules: true}
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--exclude="); ok {
			skip.exclude = append(skip.exclude, v)
		}
	}
	if len(specs) == 0 {
		specs = []string{"."}
	}
	for _, sp := range specs {
		if r, ok := j.quietResolve(sp); ok && r.Dir {
			j.walkSecrets(prog, sp, r.Path, &skip)
		}
	}
}

// specsOf are the pathspecs among git's operands ops (dash the index of
// "--" among them, -1 without one, -2 when all are): every word after "--", and before it
// the words that name a path (looksLikePath) or are pathspec magic
// (":!vendor"); the rest are revisions.
func (j *judge) specsOf(ops []string, dash int) []string {
	var specs []string
	for k, o := range ops {
		switch {
		case k == dash:
		case dash == -2, dash >= 0 && k > dash, strings.HasPrefix(o, ":"), j.looksLikePath(o):
			specs = append(specs, o)
		}
	}
	return specs
}

// gitTrackedSecrets asks when a git walk of the working folder (git grep,
// git ls-files | xargs cat) reads a tracked file the secrets patterns
// name, or a tracked .gitmodules that holds a credential, and specs (its
// pathspecs) do not leave it out; below the working folder, not when the
// walk prints only lines holding one of shows (walkSkips.shows) and the
// file holds none.
func (j *judge) gitTrackedSecrets(prog string, specs, shows []string) {
	if j.c.FS == nil || j.settled() {
		return
	}
	dir := j.cwd
	root := j.rootOf(dir)
	if root == "" {
		return
	}
	s := j.c.secrets()
	rel0 := strings.TrimPrefix(dir, root)
	want := func(rel string) bool {
		return path.Base(rel) == ".gitmodules" || s.Secret(rel0+"/"+rel) != ""
	}
	var files []string
	if gi, ok := j.c.FS.(GitIndex); ok {
		var readable bool
		if files, readable = gi.GitTracked(dir, want); !readable {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("%s reads the files git tracks, and the repository's index cannot be read to tell whether a secret's file is among them, so the person decides", prog),
				"name the files to read, or ask the person")
			return
		}
	} else if ents, err := j.acc.memo.readDir(j.c.FS, dir); err == nil {
		for _, e := range ents {
			if !e.IsDir() && want(e.Name()) {
				files = append(files, e.Name())
			}
		}
	}
	for _, f := range files {
		if !pathspecsKeep(specs, f) {
			continue
		}
		if path.Base(f) != ".gitmodules" {
			if strings.Contains(f, "/") && !j.c.AdmitRuns && !j.mayShow(dir+"/"+f, shows) {
				continue // a file whose lines the search cannot print
			}
			j.walkSecret(prog, "reads the files git tracks, and with them", f, dir+"/"+f, s.Secret(rel0+"/"+f))
			if !j.c.AdmitRuns {
				return
			}
			continue
		}
		if why := GitConfigCredential(j.c.FS, dir+"/"+f); why != "" {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("%s reads the files git tracks, and with them %q, %s, so the person decides whether the model sees it", prog, f, why),
				"leave it out with a pathspec (git grep PATTERN -- ':!.gitmodules'), or ask the person")
			return
		}
	}
}

// pathspecsKeep reports whether git's pathspecs specs (relative to the
// working folder) select rel: some positive one may match it (none given
// selects all) and no exclusion (":!x", ":^x", ":(exclude)x") surely
// does. Magic not worked out here may match.
func pathspecsKeep(specs []string, rel string) bool {
	pos, kept := false, false
	for _, sp := range specs {
		if ex, ok := pathspecExclusion(sp); ok {
			if specTri(ex, rel) == triYes {
				return false
			}
			continue
		}
		pos = true
		if strings.HasPrefix(sp, ":") || specTri(sp, rel) != triNo {
			kept = true
		}
	}
	return !pos || kept
}

// pathspecExclusion is the pattern of an exclusion pathspec.
func pathspecExclusion(sp string) (string, bool) {
	if rest, ok := strings.CutPrefix(sp, ":!"); ok {
		return rest, true
	}
	if rest, ok := strings.CutPrefix(sp, ":^"); ok {
		return rest, true
	}
	if rest, ok := strings.CutPrefix(sp, ":("); ok {
		magic, pat, found := strings.Cut(rest, ")")
		if found && slices.Contains(strings.Split(magic, ","), "exclude") {
			if magic != "exclude" {
				return "", false // with other magic (icase, top): not worked out
			}
			return pat, true
		}
	}
	return "", false
}

// specTri matches one plain pathspec against rel: a folder's prefix, the
// path itself, or a glob whose "*" matches "/" too.
func specTri(sp, rel string) tri {
	sp = path.Clean(sp)
	switch {
	case sp == ".":
		return triYes
	case path.IsAbs(sp) || sp == ".." || strings.HasPrefix(sp, "../"):
		return triMaybe
	case rel == sp || strings.HasPrefix(rel, sp+"/"):
		return triYes
	}
	return globTri(sp, rel, false, true)
}

// gitGrepWalk judges the files git grep reads: those the index tracks
// under the working folder, as its pathspecs select; with --untracked
// or --no-index, the folder's other files too, read as grep -r does.
// With -l, -c or -q it shows no file's text, and reads nothing secret.
func (j *judge) gitGrepWalk(g *words) {
	if printsNoText(&g.ps, "-l --files-with-matches --name-only -L --files-without-match -c --count -q --quiet") {
		g.skip.unshown = true
		return
	}
	specs := j.walkPathspecs("grep", &g.ps)
	var first []string // the pattern, when no -e gives it
	if g.ps.has("pattern") == nil && len(g.ps.operands) > 0 {
		first = g.ps.operands[:1]
	}
	shows := searchShows(&g.ps, first, "-v --invert-match --not")
	if hasName(&g.ps, "--untracked") || hasName(&g.ps, "--no-index") {
		g.walks = true // the folders named are read whole (access.go)
		g.skip.shows = shows
		if len(specs) == 0 {
			if r, ok := j.quietResolve("."); ok && r.Dir {
				j.walkSecrets("git grep", ".", r.Path, &walkSkips{shows: shows})
			}
		}
	}
	j.gitTrackedSecrets("git grep", specs, shows)
}

// walkPathspecs are the pathspecs of git grep or git ls-files parsed as ps:
// the operands after the pattern (grep without -e), and for ls-files all
// of them (it takes no revisions); before a "--", those that look like
// paths (specsOf).
func (j *judge) walkPathspecs(sub string, ps *parsed) []string {
	ops, dash := ps.operands, ps.dash
	if sub == "grep" && ps.has("pattern") == nil && len(ops) > 0 {
		ops = ops[1:]
		if dash > 0 {
			dash--
		}
	}
	switch {
	case dash >= 0 && dash <= len(ops):
		ops = slices.Insert(slices.Clone(ops), dash, "--") // ps.dash counts the operands before it
	case sub == "ls-files":
		dash = -2
	default:
		dash = -1
	}
	return j.specsOf(ops, dash)
}
