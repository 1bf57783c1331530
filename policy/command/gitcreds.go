package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// Git commands that print the repository's URLs or settings print the
// credentials a URL carries (https://user:token@host/ in .git/config, a
// url.BASE.insteadOf rewrite whose BASE holds a token, an
// http.extraHeader): such a line is a secret read, asked as reading .env
// is, when the configuration holds one (GitWrites.GitCredentials). The
// same lines stay allowed in a repository whose configuration holds none.

// gitPrinted is what a git command prints of the configuration: nothing
// (ok false), the settings named (names), or every setting (all), and
// whether only their names are printed (a credential in a value is then
// not).
type gitPrinted struct {
	ok       bool
	all      bool
	nameOnly bool
	names    []string // section.sub.key, or section.key
	urls     bool     // the remotes' URLs, rewritten by url.*.insteadOf
	anySub   bool     // names match whatever their subsection (--get-urlmatch)
}

// gitPrints says what of the configuration sub (a git subcommand, with
// its parsed words) prints.
func gitPrints(sub string, ps *parsed) gitPrinted {
	ops := ps.operands
	switch sub {
	case "remote":
		verbose := false
		for _, u := range ps.opts {
			verbose = verbose || u.name == "-v" || u.name == "--verbose"
		}
		if verbose || len(ops) > 0 && (ops[0] == "get-url" || ops[0] == "show") {
			return gitPrinted{ok: true, urls: true}
		}
	case "ls-remote":
		return gitPrinted{ok: true, urls: true} // "From URL", or the URL with --get-url
	case "config":
		p := gitPrinted{ok: true}
		for _, u := range ps.opts {
			switch u.name {
			case "-l", "--list", "--get-regexp", "--regexp":
				p.all = true // --regexp: git config get's name is a pattern
			case "--get-urlmatch", "--url":
				p.anySub = true // the subsections that match the URL
			case "--name-only":
				p.nameOnly = true
			}
		}
		switch {
		case len(ops) >= 1 && ops[0] == "list":
			p.all = true
		case p.all:
		case len(ops) >= 2 && ops[0] == "get":
			p.names = []string{ops[1]}
		case len(ops) >= 1:
			p.names = []string{ops[0]}
		default:
			return gitPrinted{}
		}
		return p
	}
	return gitPrinted{}
}

// gitCredentialRead asks a person when the git command sub, run in the
// working folder, prints a setting of the repository's configuration
// that holds a credential; a configuration the gate cannot read asks too.
func (j *judge) gitCredentialRead(sub string, ps *parsed, argv []string) {
	p := gitPrints(sub, ps)
	if !p.ok || j.c.FS == nil {
		return
	}
	cmd := showArgv(argv)
	gw, ok := j.c.FS.(GitWrites)
	var creds []string
	if ok {
		creds, ok = gw.GitCredentials(j.cwd)
	}
	if !ok {
		j.acc.asks(rule.SecretRead, fmt.Sprintf("%s prints settings of the repository's configuration, which the gate cannot read to tell whether they hold a credential, so the person decides whether the model sees them", cmd),
			"read the configuration's names only, or ask the person")
		return
	}
	for _, c := range creds {
		if gitPrintsSetting(p, c) {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("%s prints %s of the repository's configuration, which holds a credential (a password or token in a URL, or an authorization header), so the person decides whether the model sees it", cmd, c),
				"git remote (the names only), or ask the person for what the task needs")
			return
		}
	}
}

// gitPrintsSetting reports whether what p prints shows the credential of
// setting c (as GitCredentials names it: a "*" subsection holds it).
func gitPrintsSetting(p gitPrinted, c string) bool {
	sec, sub, key := splitSetting(c)
	inName := sub == "*"
	switch {
	case p.urls:
		// The remotes' URLs, and the rewrites applied to them.
		return sec == "remote" && (key == "url" || key == "pushurl") || sec == "url"
	case p.all:
		return !p.nameOnly || inName
	}
	if p.nameOnly && !inName {
		return false
	}
	for _, n := range p.names {
		nsec, nsub, nkey := splitSetting(n)
		if nkey == "" && p.anySub && strings.EqualFold(nsec, sec) {
			return true // --get-urlmatch SECTION prints every key of the matching subsections
		}
		if strings.EqualFold(nsec, sec) && strings.EqualFold(nkey, key) && (inName || p.anySub || nsub == sub) {
			return true
		}
	}
	return false
}

// splitSetting splits a setting's name as git does: the section before
// the first dot, the key after the last, the subsection between (which
// may hold dots: a URL).
func splitSetting(n string) (section, sub, key string) {
	i, k := strings.IndexByte(n, '.'), strings.LastIndexByte(n, '.')
	if i < 0 {
		return strings.ToLower(n), "", ""
	}
	section, key = strings.ToLower(n[:i]), strings.ToLower(n[k+1:])
	if k > i {
		sub = n[i+1 : k]
	}
	return section, sub, key
}

// GitConfigCredential says why reading the file resolved (cat
// .git/config, a Read tool of it) shows the model a credential: it is a
// repository's configuration file (config or config.worktree in a .git
// folder, a bare repository or a worktree's folder of it) and that
// configuration holds one (GitWrites.GitCredentials), or cannot be read to
// tell. "" for any other file, and where fsys cannot tell (no GitWrites).
func GitConfigCredential(fsys FS, resolved string) string {
	base := path.Base(resolved)
	if base == ".gitmodules" {
		return gitModulesCredential(fsys, resolved)
	}
	if base != "config" && base != "config.worktree" || fsys == nil {
		return ""
	}
	gw, ok := fsys.(GitWrites)
	if !ok {
		return ""
	}
	dir := path.Dir(resolved)
	if path.Base(dir) != ".git" {
		// A bare repository, or .git/worktrees/NAME: HEAD beside it.
		if r, err := fsys.Resolve(dir + "/HEAD"); err != nil || !r.Exists || r.Dir {
			return ""
		}
	}
	creds, ok := gw.GitCredentials(dir)
	switch {
	case !ok:
		return "a repository's configuration the gate cannot read to tell whether it holds a credential"
	case len(creds) > 0:
		return fmt.Sprintf("a repository's configuration, whose %s holds a credential (a password or token in a URL, or an authorization header)", creds[0])
	}
	return ""
}

// gitFileCredentials is the FS that reads one file in git's
// configuration format for credentials (workspace.Resolver).
type gitFileCredentials interface {
	GitFileCredentials(file string) (names []string, ok bool)
}

// gitModulesCredential says why reading a .gitmodules file shows the model
// a credential: a submodule's url with a password or token in it
// (url = https://user:token@host/x), or a file that cannot be read to
// tell. "" where fsys cannot tell.
func gitModulesCredential(fsys FS, resolved string) string {
	gf, ok := fsys.(gitFileCredentials)
	if !ok {
		return ""
	}
	creds, ok := gf.GitFileCredentials(resolved)
	switch {
	case !ok:
		return "a submodules file the gate cannot read to tell whether it holds a credential"
	case len(creds) > 0:
		return fmt.Sprintf("a submodules file, whose %s holds a credential (a password or token in a URL)", creds[0])
	}
	return ""
}
