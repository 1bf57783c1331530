package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// Secrets relabelled (issue 18): a read of a file whose name says it
// holds secrets asks a person, so a rename that drops that name would let
// a later read show it unasked (mv .env notes.txt, then cat notes.txt).
// A move or a copy of a secret to a name no pattern names asks, as the
// read would; so does one of a folder whose name a pattern needs (cp -r
// .aws aws-backup: aws-backup/credentials is named by no pattern). A
// rename that keeps a secret's name (mv .env .env.bak) is what it was.

// relabelsSecret asks when moving or copying src (as written) to dst
// drops the name that makes src a secret.
func (j *judge) relabelsSecret(prog, src, dst string) {
	if j.c.FS == nil {
		return
	}
	r, ok := j.quietResolve(src)
	if !ok || !r.Exists {
		return
	}
	srcRel, dstRel := j.rootRel(r.Path), j.rootRel(j.cleanAbs(dst))
	if srcRel == "" || dstRel == "" {
		return // outside: judged as such
	}
	s := j.c.secrets()
	pat := s.Secret(srcRel)
	if pat == "" && r.Dir {
		pat = s.folderSecret(srcRel, dstRel)
	}
	if pat == "" || !r.Dir && s.Secret(dstRel) != "" {
		return
	}
	j.acc.asks(rule.SecretRead, fmt.Sprintf("%s gives %q, which the secrets pattern %q names, the name %q, which it does not: a later read would show the model the secret unasked, so the person decides", prog, src, pat, dst),
		"keep a name the secrets patterns name (.env.bak), or ask the user")
}

// rootRel is p (absolute, clean) relative to its root, "" outside.
func (j *judge) rootRel(p string) string {
	root := j.rootOf(p)
	if root == "" {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
}

// folderSecret is the pattern that names the files of the folder at
// from (relative to its root) by the folder's name, where the folder
// moved to to is named by no such pattern: ".aws/credentials" for .aws
// moved to aws-backup. "" when none does.
func (s *Secrets) folderSecret(from, to string) string {
	for i := range s.match {
		sp := &s.match[i]
		for k := 1; k < len(sp.parts); k++ { // the folders a pattern needs, from the file's up
			tail := strings.Join(sp.parts[len(sp.parts)-k:], "/")
			probe := strings.ReplaceAll(strings.ReplaceAll(tail, "*", "x"), "?", "x")
			if s.Secret(path.Join(from, probe)) == sp.text && s.Secret(path.Join(to, probe)) == "" {
				return sp.text
			}
		}
	}
	return ""
}

// stagesSecret asks when git add names a secret's file: staged, it is
// printed by git diff --cached and kept by the next commit, where git
// show and git log -p print it to whoever reads the history.
func (j *judge) stagesSecret(ops []string) {
	if j.c.FS == nil {
		return
	}
	s := j.c.secrets()
	for _, o := range ops {
		r, ok := j.quietResolve(o)
		if !ok || !r.Exists || r.Dir {
			continue
		}
		if rel := j.rootRel(r.Path); rel != "" {
			if pat := s.Secret(rel); pat != "" {
				j.acc.asks(rule.SecretRead, fmt.Sprintf("git add %s stages a file the secrets pattern %q names: git diff --cached would then print it, and a commit keep it in the history", o, pat),
					"leave it out of the commit (add it to .gitignore), or ask the user")
				return
			}
		}
	}
}
