package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// Secrets sought by a walk (issue 18): a walk whose filter names secrets'
// files reads only them, at any depth: grep -r TOKEN --include=.env, rg
// -g '*.pem' KEY, find . -name id_rsa -exec cat {} +. A filter that names
// a secret's file asks, as reading the file by its name does. A walk
// that reads every file of a folder is judged by what that folder holds
// (walksecrets.go).

// secretGlob returns the secrets pattern a file-name filter (a glob, as
// find -name, grep --include and rg -g take them) selects files of, or
// "": the glob read as a name ("*.pem", ".env"), with its stars dropped
// (".env*"), or, starting with a literal, matching a pattern's literal
// name ("id_*", ".npm*"; not "*.json").
func (s *Secrets) secretGlob(glob string) string {
	g := strings.ToLower(strings.TrimPrefix(glob, "**/"))
	if g == "" || strings.HasPrefix(g, "!") {
		return "" // rg's exclusion
	}
	if p := s.Secret(g); p != "" {
		return p
	}
	if bare := strings.ReplaceAll(g, "*", ""); bare != g && bare != "" {
		if p := s.Secret(bare); p != "" {
			return p
		}
	}
	base := path.Base(g)
	if strings.IndexAny(base[:1], "*?[") == 0 {
		return "" // "*.json" or "src/**" selects every kind of file, not a secret's
	}
	for i := range s.match {
		sp := &s.match[i]
		last := sp.names[len(sp.names)-1]
		if last.kind != '=' {
			continue
		}
		if ok, _ := path.Match(base, last.text); ok && len(sp.names) == 1 {
			return sp.text
		}
	}
	return ""
}

// Glob is the secrets pattern a search's file filter selects the files
// of (secretGlob), "" when it selects none; nil s means the defaults. A
// search tool's filter (Grep's glob, Cline's file_pattern) is judged by
// it as grep --include is.
func (s *Secrets) Glob(glob string) string {
	if s == nil {
		s = DefaultSecrets()
	}
	return s.secretGlob(glob)
}

// askSecretFilter asks when one of a walk's filters selects secrets.
func (j *judge) askSecretFilter(prog string, filters []string) {
	s := j.c.secrets()
	for _, f := range filters {
		if pat := s.secretGlob(f); pat != "" {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("%s reads the files its filter %q selects, which the secrets pattern %q names, so the person decides whether the model sees them", prog, f, pat),
				"search the sources (--include='*.go'), or read a template of it (.env.example)")
			return
		}
	}
}

// namesSecretFilter asks when the walk that feeds prog its names (xargs,
// a while read loop) is filtered to secrets' files: find . -name .env |
// xargs cat reads only them, as find -exec cat does, and git ls-files
// '*.pem' | ... the same.
func (j *judge) namesSecretFilter(prog string, producer []string) {
	switch path.Base(producer[0]) {
	case "find":
		j.askSecretFilter(prog, findNameFilters(producer[1:]))
	case "git":
		if why := gitListsIgnored(producer); why != "" {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("%s reads the files git ls-files lists %s, where secrets are kept (.env, keys), so the person decides whether the model sees them", prog, why),
				"list the tracked files (git ls-files), or untracked ones with --exclude-standard")
			return
		}
		var specs []string
		for _, w := range producer[min(2, len(producer)):] {
			if _, leaves := pathspecExclusion(w); !leaves && !strings.HasPrefix(w, "-") {
				specs = append(specs, w) // ':!.env' leaves it out: no filter that selects it
			}
		}
		j.askSecretFilter(prog, specs)
	}
}

// gitListsIgnored says how a git ls-files lists the files git ignores
// (-i, or -o without an --exclude option), or "".
func gitListsIgnored(argv []string) string {
	others, ignored, excluded := lsFilesLists(argv)
	switch {
	case ignored:
		return "as ignored"
	case others && !excluded:
		return "as untracked, ignored ones with them"
	}
	return ""
}

// lsFilesLists reads git ls-files' options in argv: whether it lists
// untracked files (-o), ignored ones (-i), and leaves some out by an
// --exclude option (-x, -X, --exclude-standard).
func lsFilesLists(argv []string) (others, ignored, excluded bool) {
	if len(argv) < 2 || argv[1] != "ls-files" {
		return false, false, false
	}
words:
	for _, w := range argv[2:] {
		switch {
		case w == "--":
			break words // pathspecs after it
		case w == "--others":
			others = true
		case w == "--ignored":
			ignored = true
		case strings.HasPrefix(w, "--exclude"):
			excluded = true
		case len(w) > 1 && w[0] == '-' && w[1] != '-':
			others = others || strings.IndexByte(w, 'o') > 0
			ignored = ignored || strings.IndexByte(w, 'i') > 0
			excluded = excluded || strings.IndexByte(w, 'x') > 0 || strings.IndexByte(w, 'X') > 0
		}
	}
	return others, ignored, excluded
}

// optionValues are the values of ps's options named (as parsed) in names.
func optionValues(ps *parsed, names string) []string {
	var out []string
	for _, u := range ps.opts {
		if u.hasValue && hasField(names, u.name) {
			out = append(out, u.value)
		}
	}
	return out
}

// gitBlobSecrets asks when a git read names a committed or staged secret
// by a revision and a path (git show HEAD:.env, git cat-file -p
// :keys/id_rsa, HEAD~3:.aws/credentials): git prints the file as it was,
// which the model then sees as it would by reading it.
func (j *judge) gitBlobSecrets(sub string, ops []string) {
	s := j.c.secrets()
	for _, o := range ops {
		p := blobPath(o)
		if p == "" {
			continue
		}
		if pat := s.Secret(p); pat != "" {
			j.acc.asks(rule.SecretRead, fmt.Sprintf("git %s %s prints %q as committed or staged, which the secrets pattern %q names, so the person decides whether the model sees it", sub, o, p, pat),
				"read a template of it (git show HEAD:.env.example), or ask the user for the values the task needs")
			return
		}
	}
}

// blobPath is the path of a REV:PATH (or :PATH, :N:PATH) word, "" for a
// word of another kind: a URL, a commit search (:/text), pathspec magic.
func blobPath(o string) string {
	if strings.Contains(o, "://") {
		return ""
	}
	var p string
	switch i := strings.IndexByte(o, ':'); {
	case i < 0:
		return ""
	case i == 0:
		p = o[1:]
		if len(p) >= 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' {
			p = p[2:]
		} else if p != "" && strings.ContainsRune("/(!^", rune(p[0])) {
			return ""
		}
	default:
		p = o[i+1:]
	}
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}
