package workspace

import (
	"bytes"
	"io"
	"os"

	"admit/internal/sysfile"
	"admit/policy/command"
)

var _ command.TextHolder = (*Resolver)(nil)

// maxHeldBytes bounds the file MayHold reads: a bigger one may hold
// anything. A secret's file (a key, a .env) is a few KiB.
const maxHeldBytes = 256 << 10

// MayHold reports whether the file (resolved) may hold one of words
// (printable ASCII, lower case) in any case (command.TextHolder): false
// only for a regular file inside the roots, of at most maxHeldBytes of
// printable ASCII lines, that holds none of them. Any other byte may be
// read otherwise by a search (rg reads UTF-16 and folds Unicode case),
// so such a file may hold anything.
func (r *Resolver) MayHold(file string, words []string) bool {
	if !r.roots.Contains(file) {
		return true
	}
	f, err := sysfile.OpenNoFollow(file, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return true
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxHeldBytes {
		return true
	}
	data, err := io.ReadAll(io.LimitReader(f, maxHeldBytes+1))
	if err != nil || len(data) > maxHeldBytes {
		return true
	}
	for _, b := range data {
		if (b < ' ' || b > '~') && b != '\n' && b != '\t' && b != '\r' {
			return true
		}
	}
	lower := bytes.ToLower(data)
	for _, w := range words {
		if bytes.Contains(lower, []byte(w)) {
			return true
		}
	}
	return false
}
