package workspace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"admit/internal/sysfile"
	"admit/policy/command"
)

// maxHeadBytes bounds HEAD, a ref file and packed-refs: a HEAD is one
// line, and a packed-refs file bigger than this is not read.
const maxHeadBytes = 1 << 20

// GitHead reads what git rev-parse --show-toplevel, git branch
// --show-current and git rev-parse HEAD print in dir, from the files of
// the repository containing dir, without running git. Only the plain case
// is answered: dir inside the roots, a ".git" folder (no link, no ".git"
// file, no commondir) at the top of a working tree inside the roots, HEAD
// a regular file naming a branch of plain characters or a commit, the
// branch's commit in a regular loose ref or packed-refs. Whatever is not
// read cleanly is left empty, and the caller takes it as unknown: a
// hostile repository may make these files lie.
func (r *Resolver) GitHead(dir string) command.GitHead {
	var h command.GitHead
	res, err := resolve(filepath.Clean(dir))
	if err != nil || !res.Exists || !res.Dir || !r.roots.Contains(res.Path) {
		return h
	}
	top := ""
	for d := res.Path; ; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if !fi.IsDir() {
				return h // a link, a gitdir file, a FIFO: not the plain case
			}
			top = d
			break
		}
		if isGitDir(d) || d == "/" || !r.roots.Contains(filepath.Dir(d)) {
			// A bare repository, or the search leaves the roots: git
			// would go on where the gate does not look.
			return h
		}
	}
	gitDir := filepath.Join(top, ".git")
	if _, err := os.Lstat(filepath.Join(gitDir, "commondir")); err == nil {
		return h
	}
	if !isGitDir(gitDir) {
		return h // git would not take it for a repository, and look further up
	}
	head, ok := readPlain(gitDir, "HEAD")
	if !ok {
		return h
	}
	line, ok := strings.CutSuffix(string(head), "\n")
	if !ok || strings.ContainsAny(line, "\n\r") {
		return h
	}
	if ref, isRef := strings.CutPrefix(line, "ref: "); isRef {
		if !strings.HasPrefix(ref, "refs/") {
			return h // git would not take it for a repository, and look further up
		}
		h.Top = top
		name, isBranch := strings.CutPrefix(ref, "refs/heads/")
		if !isBranch || !command.PlainBranch(name) {
			return h
		}
		h.Branch, h.OnBranch = name, true
		h.Commit = r.refCommit(gitDir, ref)
		return h
	}
	if command.HexName(line) {
		h.Top, h.Commit, h.Detached = top, line, true
	}
	return h
}

// refCommit is the commit a branch's ref names: its loose file, else its
// line in packed-refs; "" when neither is read cleanly.
func (r *Resolver) refCommit(gitDir, ref string) string {
	if data, ok := readPlain(gitDir, ref); ok {
		line, ok := strings.CutSuffix(string(data), "\n")
		if ok && command.HexName(line) {
			return line
		}
		return ""
	}
	if _, err := os.Lstat(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return "" // there, but not a plain file
	}
	data, ok := readPlain(gitDir, "packed-refs")
	if !ok {
		return ""
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		hash, name, ok := bytes.Cut(line, []byte(" "))
		if ok && string(name) == ref && command.HexName(string(hash)) {
			return string(hash)
		}
	}
	return ""
}

// readPlain reads gitDir/rel (slash-separated), every element of it a
// real folder or file (no link), the last a regular file of at most
// maxHeadBytes.
func readPlain(gitDir, rel string) ([]byte, bool) {
	p := gitDir
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, false
		}
		last := i == len(parts)-1
		if last && !fi.Mode().IsRegular() || !last && !fi.IsDir() {
			return nil, false
		}
	}
	f, err := sysfile.OpenNoFollow(p, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxHeadBytes+1))
	if err != nil || len(data) > maxHeadBytes {
		return nil, false
	}
	return data, true
}
