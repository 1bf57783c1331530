package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"syscall"
)

// The bounds of the walk of a structured tool's glob patterns (Glob's
// pattern, Grep's glob, read_many_files' include): a call's patterns
// together may read this many folders and list this many names. Past
// them the call is refused: the answer must come in bounded time, and a
// pattern that reaches that far can be narrowed to a folder.
const (
	maxGlobReads      = 2048
	maxGlobEntries    = 200_000
	maxGlobComponents = 32
	// maxGlobStarDirs bounds the folders a "**" is walked from: each is
	// walked whole (FS.LinksOutside, with its own bound).
	maxGlobStarDirs = 16
	// maxGlobFiles bounds the files the patterns of a tool that reads
	// what they match may name: each is judged as a read.
	maxGlobFiles = 10_000
)

// globWalk walks glob patterns against the workspace through the FS, as
// a tool that expands them would, and says why one reaches outside.
type globWalk struct {
	e              *Env
	reads, entries int
	stars          int
	// maxReads and maxEntries are the bounds; 0 is maxGlobReads and
	// maxGlobEntries (tests lower them).
	maxReads, maxEntries int
	flux                 bool // the refusal is of a folder in flux
	// listed keeps the folders read, so a folder that a "**" and the
	// component after it both look in is read (and counted) once.
	listed map[string][]fs.DirEntry
}

// errGlobBound is the walk past its bounds.
var errGlobBound = errors.New("policy: the glob's walk is over its bound")

// errGlobFlux is a folder the walk would list while a background command
// may still change it.
var errGlobFlux = errors.New("policy: the glob would list a folder in flux")

// read lists dir through the FS, counted against the walk's bounds.
func (w *globWalk) read(dir string) ([]fs.DirEntry, error) {
	maxReads, maxEntries := w.maxReads, w.maxEntries
	if maxReads <= 0 {
		maxReads = maxGlobReads
	}
	if maxEntries <= 0 {
		maxEntries = maxGlobEntries
	}
	if ents, ok := w.listed[dir]; ok {
		return ents, nil
	}
	if w.reads >= maxReads {
		return nil, errGlobBound
	}
	w.reads++
	if len(w.e.InFlux) > 0 {
		p := dir
		if r, err := w.e.FS.Resolve(dir); err == nil {
			p = r.Path
		}
		for _, f := range w.e.InFlux {
			if p == f || strings.HasPrefix(p, f+"/") || path.Dir(f) == p {
				return nil, fmt.Errorf("%w: a background command of this session may still change %s", errGlobFlux, f)
			}
		}
	}
	ents, err := w.e.FS.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	w.entries += len(ents)
	if w.entries > maxEntries {
		return nil, errGlobBound
	}
	if w.listed == nil {
		w.listed = map[string][]fs.DirEntry{}
	}
	w.listed[dir] = ents
	return ents, nil
}

// readFailure says why a folder the walk looks in stops the judgement,
// or "" for one that is not there (nothing is read from it).
func (w *globWalk) readFailure(dir string, err error) string {
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return ""
	case errors.Is(err, errGlobBound):
		return "would read more folders or names than the gate walks for one call; give the tool a narrower path or pattern"
	case errors.Is(err, errGlobFlux):
		w.flux = true
		return "looks in " + dir + ", where " + strings.TrimPrefix(err.Error(), errGlobFlux.Error()+": ")
	}
	return fmt.Sprintf("looks in %q, which cannot be read: %v", dir, err)
}

// files adds to found the files the pattern's components comps match
// from dir, as a tool that reads every file its patterns match expands
// them (Gemini CLI's read_many_files: node-glob with dot and nocase,
// following links): a "**" is every folder below, links to folders
// inside the workspace included (each folder once), and a name that
// matches and is a link leading outside is refused, as reach refuses it.
// Only files are added; a folder the last component matches is not read
// (the tool asks for files). It says why the walk stops, or "".
func (w *globWalk) files(comps []string, dir string, found map[string]bool) string {
	for len(comps) > 0 && (comps[0] == "" || comps[0] == ".") {
		comps = comps[1:]
	}
	if len(comps) == 0 {
		return ""
	}
	if comps[0] == "**" {
		rest := comps[1:]
		if strings.Trim(strings.Join(rest, "/"), "/.") == "" {
			rest = []string{"*"} // a trailing "**" is every file below
		}
		return w.below(dir, map[string]bool{}, func(d string) string { return w.files(rest, d, found) })
	}
	ents, err := w.read(dir)
	if err != nil {
		return w.readFailure(dir, err)
	}
	match, last := globMatcher(comps[0]), len(comps) == 1
	for _, e := range ents {
		if !match(e.Name()) {
			continue
		}
		p, isDir := path.Join(dir, e.Name()), e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			r, err := w.e.FS.Resolve(p)
			if err != nil || !inside(r.Path, w.e.Roots) {
				return fmt.Sprintf("matches %q, a symlink leading outside the workspace", p)
			}
			if isDir = r.Dir; isDir {
				p = r.Path
			}
		}
		switch {
		case last && !isDir:
			found[p] = true
			if len(found) > maxGlobFiles {
				return fmt.Sprintf("matches more than %d files, each of which the tool would read; give it a narrower pattern", maxGlobFiles)
			}
		case !last && isDir:
			if why := w.files(comps[1:], p, found); why != "" {
				return why
			}
		}
	}
	return ""
}

// below calls each for dir and every folder under it, through links to
// folders inside the workspace (a folder reached twice is walked once),
// and says why the walk stops: each's answer, a link to a folder outside
// the workspace, or a folder that cannot be read.
func (w *globWalk) below(dir string, visited map[string]bool, each func(string) string) string {
	key := dir
	if r, err := w.e.FS.Resolve(dir); err == nil {
		key = r.Path
	}
	if visited[key] {
		return ""
	}
	visited[key] = true
	if why := each(dir); why != "" {
		return why
	}
	ents, err := w.read(dir)
	if err != nil {
		return w.readFailure(dir, err)
	}
	for _, e := range ents {
		p := path.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			r, err := w.e.FS.Resolve(p)
			if err == nil && r.Exists && !r.Dir {
				continue // a file: each judges it where a component matches it
			}
			if err != nil || !inside(r.Path, w.e.Roots) {
				return fmt.Sprintf("walks %q with **, and %q there leads outside the workspace (the tool follows links)", dir, p)
			}
			p = r.Path
		} else if !e.IsDir() {
			continue
		}
		if why := w.below(p, visited, each); why != "" {
			return why
		}
	}
	return ""
}

// reach walks the brace-free pattern g from base (resolved, inside the
// roots; for an absolute pattern, the folder its fixed leading part
// names) and says why it reaches outside the workspace, or "". Every
// component is matched against the names of the folders before it, the
// way a tool that follows links does: case-insensitively and hidden names
// included (some tools match so; matching more can only refuse more). A
// name that matches and is a symlink leading outside the workspace is
// refused, whether the pattern ends there or walks on through it; a "**"
// walks every folder below, following links, so one that holds a link
// leading outside is refused. A folder that cannot be read is refused
// too: the tool might read it.
func (w *globWalk) reach(g, base string) string {
	comps := strings.Split(g, "/")
	if len(comps) > maxGlobComponents {
		return fmt.Sprintf("has %d components, more than the %d the gate walks", len(comps), maxGlobComponents)
	}
	dirs := []string{base}
	for i, comp := range comps {
		switch comp {
		case "", ".":
			continue
		case "**":
			return w.star(dirs, comps[i+1:])
		}
		last := i == len(comps)-1
		match := globMatcher(comp)
		var next []string
		for _, d := range dirs {
			ents, err := w.read(d)
			switch {
			case errors.Is(err, errGlobBound):
				return "would read more folders or names than the gate walks for one call; give the tool a narrower path or pattern"
			case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
				continue
			case errors.Is(err, errGlobFlux):
				w.flux = true
				return "looks in " + d + ", where " + strings.TrimPrefix(err.Error(), errGlobFlux.Error()+": ")
			case err != nil:
				return fmt.Sprintf("looks in %q, which cannot be read: %v", d, err)
			}
			for _, e := range ents {
				if !match(e.Name()) {
					continue
				}
				p := path.Join(d, e.Name())
				if e.Type()&fs.ModeSymlink != 0 {
					r, err := w.e.FS.Resolve(p)
					if err != nil || !inside(r.Path, w.e.Roots) {
						return fmt.Sprintf("matches %q, a symlink leading outside the workspace", p)
					}
					if !last && r.Dir {
						next = append(next, r.Path)
					}
					continue
				}
				if !last && e.IsDir() {
					next = append(next, p)
				}
			}
		}
		if len(next) == 0 {
			return ""
		}
		dirs = next
	}
	return ""
}

// star judges a "**" from dirs, with rest the components after it: a
// tool that follows links walks every folder below, and those the links
// there lead to. A link leading to a folder outside the workspace is
// refused (the walk would list and read there); one leading to a file
// outside (a virtualenv's bin/python) only when its name matches the
// pattern's last component, so that the tool would read it. An answer of
// LinksOutside that says it stopped at its bound is refused.
func (w *globWalk) star(dirs, rest []string) string {
	last := func(string) bool { return true }
	for k := len(rest) - 1; k >= 0; k-- {
		if c := rest[k]; c != "" && c != "." {
			if c != "**" {
				last = globMatcher(c)
			}
			break
		}
	}
	for _, d := range dirs {
		w.stars++
		if w.stars > maxGlobStarDirs {
			return fmt.Sprintf("walks ** from more than %d folders; give the tool a narrower path or pattern", maxGlobStarDirs)
		}
		for _, l := range w.e.FS.LinksOutside(d) {
			if strings.Contains(l, "(more than ") {
				return fmt.Sprintf("walks every folder under %q with **, more than the gate checks: %s", d, l)
			}
			r, err := w.e.FS.Resolve(l)
			if err == nil && inside(r.Path, w.e.Roots) {
				continue // reached outside only through a link further on, which is listed too
			}
			if err != nil || r.Dir || last(path.Base(l)) {
				return fmt.Sprintf("walks every folder under %q with **, and %q there leads outside the workspace (a tool that follows links would walk it)", d, l)
			}
		}
	}
	return ""
}

// globMatcher matches one component of a glob pattern, as the glob
// libraries of the tools read it (fast-glob, node-glob, ripgrep's
// globset), leaning towards a match: "*" and "?" match any characters of
// a name, "[...]" a class ("[!...]" and "[^...]" negated), a backslash
// escapes the next character, case is ignored, and a component with an
// extended operator ("@(", "!(", "+(", "*(", "?(") or one the matcher
// cannot read matches every name.
func globMatcher(comp string) func(string) bool {
	all := func(string) bool { return true }
	for _, op := range []string{"@(", "!(", "+(", "*(", "?("} {
		if strings.Contains(comp, op) {
			return all
		}
	}
	var b strings.Builder
	b.WriteString("(?is)^")
	for i := 0; i < len(comp); i++ {
		c := comp[i]
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			if i+1 < len(comp) {
				i++
				b.WriteString(regexp.QuoteMeta(comp[i : i+1]))
			} else {
				b.WriteString(`\\`)
			}
		case '[':
			end := strings.IndexByte(comp[i+1:], ']')
			if end == 0 && i+2 < len(comp) { // "[]...]": the first "]" is in the class
				if e := strings.IndexByte(comp[i+2:], ']'); e >= 0 {
					end = e + 1
				} else {
					end = -1
				}
			}
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := comp[i+1 : i+1+end]
			i += 1 + end
			neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
			if neg {
				class = class[1:]
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			for k := 0; k < len(class); k++ {
				switch ch := class[k]; ch {
				case '\\', '[', ']', '^':
					b.WriteByte('\\')
					b.WriteByte(ch)
				default:
					b.WriteByte(ch)
				}
			}
			b.WriteByte(']')
		default:
			b.WriteString(regexp.QuoteMeta(comp[i : i+1])) // a byte, not a rune: invalid UTF-8 stays invalid, and the matcher then matches all
		}
	}
	b.WriteString("$")
	rx, err := regexp.Compile(b.String())
	if err != nil {
		return all
	}
	return rx.MatchString
}

// globBases are the folders a relative glob of a call is walked from:
// the call's working folder and the folders its path arguments name (a
// Grep's or Glob's path, read_many_files' paths).
func globBases(cwd string, listed []string) []string {
	bases := []string{cwd}
	for _, l := range listed {
		if l != cwd {
			bases = append(bases, l)
		}
	}
	return bases
}

// globStart is where an absolute brace-free pattern's walk starts: the
// folder its fixed leading components name, resolved, and the rest.
func globStart(g string, e *Env) (start, rest string, err error) {
	comps := strings.Split(g, "/")
	k := 0
	for k < len(comps) && !strings.ContainsAny(comps[k], "*?[]{}!()+@\\") {
		k++
	}
	prefix := "/" + strings.Join(comps[:k], "/")
	r, err := e.FS.Resolve(path.Clean(prefix))
	if err != nil {
		return "", "", err
	}
	return r.Path, strings.Join(comps[k:], "/"), nil
}
