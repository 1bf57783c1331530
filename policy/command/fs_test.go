package command

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"admit/internal/sysfile"
)

// testFS is a small FS on the real file system for tests: it resolves
// paths the way the kernel does, one lstat per component below the
// nearest root (roots are already resolved), and finds programs in git
// configuration by reading it.
type testFS struct {
	roots []string

	mu  sync.Mutex        // guards git
	git map[string]string // GitExec answers by folder

	listings sysfile.Listings // as workspace.Resolver keeps them
}

func newTestFS(roots ...string) *testFS {
	return &testFS{roots: roots, git: map[string]string{}}
}

func (f *testFS) Resolve(p string) (Resolved, error) {
	if !strings.HasPrefix(p, "/") {
		return Resolved{}, errors.New("not absolute")
	}
	cur, rest := "/", p
	for _, r := range f.roots {
		if strings.HasPrefix(p, r) && (len(p) == len(r) || p[len(r)] == '/') {
			cur, rest = r, p[len(r):]
			break
		}
	}
	queue := strings.Split(rest, "/")
	exists, dir := true, true
	links := 0
	// last is what the walk's last lstat found, and at names it: the
	// final path's type and links when the walk ends there, so a path is
	// lstat'ed once, as workspace.Resolver does.
	var last fs.FileInfo
	at := ""
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			if exists {
				dir = true
			}
			continue
		}
		next := path.Join(cur, c)
		if !exists {
			cur = next
			continue
		}
		if !dir {
			exists = false
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			exists, dir = false, false
			cur = next
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			links++
			if links > 40 {
				return Resolved{}, errors.New("too many links")
			}
			t, err := os.Readlink(next)
			if err != nil {
				return Resolved{}, err
			}
			if strings.HasPrefix(t, "/") {
				cur = "/"
			}
			queue = append(strings.Split(t, "/"), queue...)
			continue
		}
		cur, dir = next, fi.IsDir()
		last, at = fi, cur
	}
	r := Resolved{Path: cur, Exists: exists, Dir: exists && dir}
	if exists {
		if at != cur {
			// The walk ended on "..", or on a root it did not lstat.
			fi, err := os.Lstat(cur)
			if err != nil {
				return Resolved{}, err
			}
			last = fi
		}
		r.Mode, r.Links, r.Foreign = last.Mode(), linkCount(last), ownedByOther(last)
	}
	return r, nil
}

func (f *testFS) inside(p string) bool { return inside(p, f.roots) }

// SplitNames walks dir without following links.
func (f *testFS) SplitNames(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && p != dir && (strings.ContainsAny(e.Name(), " \t\n\v\f\r'\"\\*?[]()<>|^#~") || strings.HasPrefix(e.Name(), "=")) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// OptionNames walks dir without following links.
func (f *testFS) OptionNames(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && p != dir && strings.HasPrefix(e.Name(), "-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// LinksOutside walks dir without following links, and also the folders
// inside the roots that links under it lead to, since a program that
// follows links walks those too.
func (f *testFS) LinksOutside(dir string) []string {
	var out []string
	seen := map[string]bool{}
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] {
			continue
		}
		seen[d] = true
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			r, err := f.Resolve(p)
			switch {
			case err != nil || !f.inside(r.Path):
				out = append(out, p)
			case r.Dir:
				queue = append(queue, r.Path)
			}
			return nil
		})
	}
	return out
}

func (f *testFS) GitExec(dir string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v, ok := f.git[dir]; ok {
		return v
	}
	v := ""
	for d := dir; ; d = path.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil && fi.IsDir() {
			v = gitConfigExec(filepath.Join(d, ".git", "config"), 0)
			break
		}
		if d == "/" {
			break
		}
	}
	f.git[dir] = v
	return v
}

// CargoExec is a small reader of cargo's configuration for the tests:
// from dir up, a .cargo/config.toml (or config) or rust-toolchain.toml
// that names one of the settings workspace.CargoExec reports that run
// code, by a plain match on its text.
func (f *testFS) CargoExec(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		for _, name := range []string{".cargo/config.toml", ".cargo/config", "rust-toolchain.toml"} {
			data, err := os.ReadFile(filepath.Join(d, name))
			if err != nil {
				continue
			}
			for _, k := range []string{"rustc-wrapper", "rustc =", "rustc=", "rustdoc", "credential-provider", "git-fetch-with-cli", "LD_PRELOAD", "-Z", "path =", "[unstable]"} {
				if strings.Contains(string(data), k) {
					return k + " in " + name
				}
			}
		}
		if d == "/" {
			return ""
		}
	}
}

// GitConfigFiles lists the repository's config and the files it
// includes, as far as the small reader of gitConfigExec follows them.
func (f *testFS) GitConfigFiles(dir string) []string {
	var out []string
	var add func(file string, depth int)
	add = func(file string, depth int) {
		if depth > 5 {
			return
		}
		if r, err := f.Resolve(file); err == nil {
			file = r.Path
		}
		out = append(out, file)
		data, err := os.ReadFile(file)
		if err != nil {
			return
		}
		section := ""
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "[") {
				section = strings.ToLower(strings.Trim(line, "[]"))
				continue
			}
			key, val, _ := strings.Cut(line, "=")
			if strings.HasPrefix(section, "include") && strings.TrimSpace(strings.ToLower(key)) == "path" {
				val = strings.TrimSpace(val)
				if !strings.HasPrefix(val, "/") {
					val = filepath.Join(filepath.Dir(file), val)
				}
				add(val, depth+1)
			}
		}
	}
	for d := dir; ; d = path.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil && fi.IsDir() {
			add(filepath.Join(d, ".git", "config"), 0)
			break
		}
		if d == "/" {
			break
		}
	}
	return out
}

// gitConfigExec reads a git config file and its includes for keys that
// name programs.
func gitConfigExec(file string, depth int) string {
	fh, err := os.Open(file)
	if err != nil || depth > 5 {
		return ""
	}
	defer fh.Close()
	section := ""
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[]"))
			continue
		}
		key, val, _ := strings.Cut(line, "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		sec, sub, _ := strings.Cut(section, " ")
		full := sec + "." + key
		switch {
		case sec == "include" && key == "path":
			if !strings.HasPrefix(val, "/") {
				val = filepath.Join(filepath.Dir(file), val)
			}
			if v := gitConfigExec(val, depth+1); v != "" {
				return v
			}
		case full == "core.fsmonitor", full == "core.pager", full == "core.sshcommand", full == "gpg.program",
			full == "core.hookspath", full == "diff.external", sec == "pager" && sub == "" && !pagerSwitch(val), sec == "alias", sec == "filter",
			sec == "diff" && sub != "" && (key == "textconv" || key == "command"):
			return full + " = " + val
		}
	}
	return ""
}

// pagerSwitch reports a pager.<cmd> value that only turns the pager on
// or off, as git's boolean (a bare key is true).
func pagerSwitch(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "yes", "on", "1", "false", "no", "off", "0":
		return true
	}
	return false
}

// testObs is a set of observations.
type testObs struct {
	files map[string]ObsState
	dirs  map[string]bool
}

func (o *testObs) File(p string) ObsState { return o.files[p] }
func (o *testObs) Dir(p string) bool      { return o.dirs[p] }

func (f *testFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	r, err := f.Resolve(dir)
	if err != nil {
		return nil, err
	}
	if !inside(r.Path, f.roots) {
		return nil, errors.New("outside the roots")
	}
	return f.listings.ReadDir(r.Path) // as workspace.Resolver lists
}

// ListResolved lists a folder Resolve returned, as workspace.Resolver does.
func (f *testFS) ListResolved(dir string) ([]fs.DirEntry, error) {
	if !inside(dir, f.roots) {
		return nil, errors.New("outside the roots")
	}
	return f.listings.ReadDir(dir)
}

// GitHead reads the plain case as workspace.Resolver does: a ".git" folder
// (no link) found from dir up inside the roots, HEAD a regular file naming
// a plain branch whose loose ref holds a commit, or a commit.
func (f *testFS) GitHead(dir string) GitHead {
	var h GitHead
	for d := dir; f.inside(d); d = filepath.Dir(d) {
		fi, err := os.Lstat(filepath.Join(d, ".git"))
		if err != nil {
			continue
		}
		hf, herr := os.Lstat(filepath.Join(d, ".git", "HEAD"))
		if !fi.IsDir() || herr != nil || !hf.Mode().IsRegular() {
			return h
		}
		data, _ := os.ReadFile(filepath.Join(d, ".git", "HEAD"))
		line, ok := strings.CutSuffix(string(data), "\n")
		if !ok {
			return h
		}
		if name, isBranch := strings.CutPrefix(line, "ref: refs/heads/"); isBranch {
			h.Top = d
			if PlainBranch(name) {
				h.Branch, h.OnBranch = name, true
				ref, _ := os.ReadFile(filepath.Join(d, ".git", "refs", "heads", name))
				if c, ok := strings.CutSuffix(string(ref), "\n"); ok && HexName(c) {
					h.Commit = c
				}
			}
		} else if HexName(line) {
			h.Top, h.Commit, h.Detached = d, line, true
		}
		return h
	}
	return h
}

// GitTracked answers as workspace.Resolver does for the corpus's
// repository, which has no index: git tracks nothing there yet.
func (f *testFS) GitTracked(string, func(string) bool) ([]string, bool) { return nil, true }

// MayHold answers as workspace.Resolver does for the corpus's small text
// files: whether one of words is in the file, in any case.
func (f *testFS) MayHold(file string, words []string) bool {
	data, err := os.ReadFile(file)
	if err != nil || !f.inside(file) {
		return true
	}
	lower := strings.ToLower(string(data))
	for _, w := range words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}
