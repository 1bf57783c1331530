package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// A walk that reads every file under a folder (grep -r, rg --hidden, tar,
// cp -r) reads a repository's .git/config and its .gitmodules among them,
// and prints or sends on what it read: a remote's https://user:token@host/,
// an http.extraHeader, a submodule's url with a token. Where the folder
// walked is a repository's top (or inside its .git) and the configuration
// holds a credential, the walk is a secret read, asked as cat .git/config
// is. Only the folder named is looked at: the gate lists no folders, so a
// repository nested deeper is not seen.

// walkSkips says which files a program's walk leaves out: a repository's
// (grep --exclude-dir=.git, rg without --hidden, tar --exclude-vcs), and
// by name (walksecrets.go); the zero value reads them all.
type walkSkips struct {
	git, modules bool
	hidden       bool     // every name starting with "." (rg without --hidden)
	exclude      []string // globs of names left out (grep --exclude, rg -g '!G', tar --exclude)
	excludeDirs  []string // globs of folders' names left out (grep --exclude-dir, rg -g '!G', tar --exclude)
	include      []string // when any, only the names one matches are read (grep --include, rg -g G)
	// shows, when not nil, are strings one of which a line must hold (in
	// any case) for the walk to print it: a search's fixed patterns.
	shows []string
	// unshown: the walk prints no file's text, only names,
	// counts or nothing (grep -l, -c, -q): what it reads is not seen.
	unshown bool
}

// leaves reports whether the walk leaves out the file name (a folder's
// entry, not a path).
func (s *walkSkips) leaves(name string) bool {
	if s.unshown || s.hidden && strings.HasPrefix(name, ".") {
		return true
	}
	for _, g := range s.exclude {
		if globMatches(g, name) {
			return true
		}
	}
	if len(s.include) == 0 {
		return false
	}
	for _, g := range s.include {
		if globMatches(g, name) {
			return false
		}
	}
	return true
}

// leavesFolder reports whether the walk does not enter the folder name
// (an entry of a folder it walks).
func (s *walkSkips) leavesFolder(name string) bool {
	if s.hidden && strings.HasPrefix(name, ".") {
		return true
	}
	for _, g := range s.excludeDirs {
		if globMatches(g, name) {
			return true
		}
	}
	return false
}

// walkCredentials asks when the folder dir (word, resolved), walked by
// prog, holds a configuration file with a credential that the walk reads.
func (j *judge) walkCredentials(prog, word, dir string, skip walkSkips) {
	if j.c.FS == nil || skip.git && skip.modules {
		return
	}
	var files [2][2]string // folder (resolved) and name
	if strings.Contains(dir+"/", "/.git/") {
		// .git itself, or a repository's folder inside it
		// (.git/modules/NAME): GitConfigCredential tells which.
		if skip.git {
			return
		}
		files[0] = [2]string{dir, "config"}
	} else {
		// One look for the common walk (grep -r TODO src): a folder with
		// no .git is no repository's top, and a .gitmodules there is no
		// submodule list git reads.
		gd, err := resolveIn(j.c.FS, dir, ".git")
		if err != nil || !gd.Exists {
			return
		}
		if !skip.git && gd.Dir {
			// A .git file names the repository's folder (a worktree, a
			// submodule), which the walk does not enter.
			files[0] = [2]string{gd.Path, "config"}
		}
		if !skip.modules {
			files[1] = [2]string{dir, ".gitmodules"}
		}
	}
	for _, f := range files {
		if f[1] == "" {
			continue
		}
		fr, err := resolveIn(j.c.FS, f[0], f[1])
		if err != nil || !fr.Exists || fr.Dir {
			continue
		}
		if why := GitConfigCredential(j.c.FS, fr.Path); why != "" {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("%s reads the folder %q whole, and with it %s, %s, so the person decides whether the model sees it", prog, word, path.Join(word, strings.TrimPrefix(f[0]+"/"+f[1], dir+"/")), why),
				"leave .git and .gitmodules out of the walk (grep -r --exclude-dir=.git --exclude=.gitmodules, tar --exclude-vcs), or ask the person")
			return
		}
	}
}

// grepSkips says what grep's --exclude-dir, --exclude and --include
// leave out.
func grepSkips(ps *parsed) walkSkips {
	var s walkSkips
	for _, u := range ps.opts {
		if !u.hasValue {
			continue
		}
		switch u.name {
		case "--exclude-dir":
			s.git = s.git || globMatches(u.value, ".git")
			s.excludeDirs = append(s.excludeDirs, u.value)
		case "--exclude":
			s.exclude = append(s.exclude, u.value)
		case "--include":
			s.include = append(s.include, u.value)
		}
	}
	s.unshown = printsNoText(ps, "-l -L -c -q --files-with-matches --files-without-match --count --quiet --silent")
	s.modules = s.leaves(".gitmodules")
	s.git = s.git || s.unshown
	return s
}

// printsNoText reports whether ps holds one of names, output options
// that print no line of the files read (names, counts, or nothing).
func printsNoText(ps *parsed, names string) bool {
	for _, u := range ps.opts {
		if hasField(names, u.name) {
			return true
		}
	}
	return false
}

// rgSkips says what rg leaves out: hidden files and folders unless -.,
// --hidden or -uu, and what its negated globs name (-g '!.git').
func rgSkips(ps *parsed) walkSkips {
	u, hidden := 0, false
	var s walkSkips
	for _, o := range ps.opts {
		switch o.name {
		case "-.", "--hidden":
			hidden = true
		case "-u", "--unrestricted":
			u++
		case "-g", "--glob", "--iglob":
			if !o.hasValue {
				continue
			}
			g := strings.TrimPrefix(o.value, "**/")
			if neg, ok := strings.CutPrefix(g, "!"); ok {
				neg = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(neg, "**/"), "/**"), "/")
				s.git = s.git || globMatches(neg, ".git")
				s.exclude = append(s.exclude, neg)
				s.excludeDirs = append(s.excludeDirs, neg)
			} else if !strings.Contains(g, "/") {
				s.include = append(s.include, g)
			} else {
				// A glob of paths (src/**): a name in the folder walked may
				// match it; the walk is taken as reading them all.
				s.include = append(s.include, "*")
			}
		}
	}
	s.unshown = printsNoText(ps, "-l --files-with-matches --files-without-match -c --count --count-matches -q --quiet")
	s.modules = s.leaves(".gitmodules")
	s.git = s.git || s.unshown
	if !hidden && u < 2 {
		s.git, s.modules, s.hidden = true, true, true
	}
	return s
}

// tarSkips says what tar's --exclude-vcs and --exclude leave out.
func tarSkips(ps *parsed) walkSkips {
	var s walkSkips
	if hasName(ps, "--exclude-vcs") {
		s.git, s.modules = true, true // .gitmodules is one of its names
	}
	for _, v := range optionValues(ps, "--exclude") {
		v = strings.TrimPrefix(v, "./")
		s.git = s.git || globMatches(v, ".git")
		s.exclude = append(s.exclude, v)
		s.excludeDirs = append(s.excludeDirs, v)
	}
	s.modules = s.modules || s.leaves(".gitmodules")
	return s
}

// globMatches reports whether glob (a grep, rg or tar filter) matches
// name; a bad pattern matches nothing, so the walk is looked at.
func globMatches(glob, name string) bool {
	ok, err := path.Match(strings.TrimSuffix(glob, "/"), name)
	return err == nil && ok
}
