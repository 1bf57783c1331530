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

// walkSkips says which of a repository's files a program's walk leaves out
// (grep --exclude-dir=.git, rg without --hidden, tar --exclude-vcs); the
// zero value reads them all.
type walkSkips struct{ git, modules bool }

// walkCredentials asks when the folder dir (word, resolved), walked by
// prog, holds a configuration file with a credential that the walk reads.
func (j *judge) walkCredentials(prog, word, dir string, skip walkSkips) {
	if j.c.FS == nil || skip.git && skip.modules {
		return
	}
	var files [2]string
	if strings.Contains(dir+"/", "/.git/") {
		// .git itself, or a repository's folder inside it
		// (.git/modules/NAME): GitConfigCredential tells which.
		if skip.git {
			return
		}
		files[0] = dir + "/config"
	} else {
		// One look for the common walk (grep -r TODO src): a folder with
		// no .git is no repository's top, and a .gitmodules there is no
		// submodule list git reads.
		gd, err := j.c.FS.Resolve(dir + "/.git")
		if err != nil || !gd.Exists {
			return
		}
		if !skip.git && gd.Dir {
			// A .git file names the repository's folder (a worktree, a
			// submodule), which the walk does not enter.
			files[0] = gd.Path + "/config"
		}
		if !skip.modules {
			files[1] = dir + "/.gitmodules"
		}
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		fr, err := j.c.FS.Resolve(f)
		if err != nil || !fr.Exists || fr.Dir {
			continue
		}
		if why := GitConfigCredential(j.c.FS, fr.Path); why != "" {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("%s reads the folder %q whole, and with it %s, %s, so the person decides whether the model sees it", prog, word, path.Join(word, strings.TrimPrefix(f, dir+"/")), why),
				"leave .git and .gitmodules out of the walk (grep -r --exclude-dir=.git --exclude=.gitmodules, tar --exclude-vcs), or ask the person")
			return
		}
	}
}

// grepSkips says what grep's --exclude-dir and --exclude leave out.
func grepSkips(ps *parsed) walkSkips {
	var s walkSkips
	for _, u := range ps.opts {
		if !u.hasValue {
			continue
		}
		switch u.name {
		case "--exclude-dir":
			s.git = s.git || globMatches(u.value, ".git")
		case "--exclude":
			s.modules = s.modules || globMatches(u.value, ".gitmodules")
		}
	}
	return s
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
			if neg, ok := strings.CutPrefix(o.value, "!"); ok && o.hasValue {
				neg = strings.TrimSuffix(strings.TrimSuffix(neg, "/**"), "/")
				s.git = s.git || globMatches(neg, ".git")
				s.modules = s.modules || globMatches(neg, ".gitmodules")
			}
		}
	}
	if !hidden && u < 2 {
		return walkSkips{true, true}
	}
	return s
}

// tarSkips says what tar's --exclude-vcs and --exclude leave out.
func tarSkips(ps *parsed) walkSkips {
	if hasName(ps, "--exclude-vcs") {
		return walkSkips{true, true} // .gitmodules is one of its names
	}
	var s walkSkips
	for _, v := range optionValues(ps, "--exclude") {
		s.git = s.git || globMatches(v, ".git")
		s.modules = s.modules || globMatches(v, ".gitmodules")
	}
	return s
}

// globMatches reports whether glob (a grep, rg or tar filter) matches
// name; a bad pattern matches nothing, so the walk is looked at.
func globMatches(glob, name string) bool {
	ok, err := path.Match(strings.TrimSuffix(glob, "/"), name)
	return err == nil && ok
}
