package run

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"admit/internal/sysfile"
	"admit/workspace"
)

// The one protected path made during a run that can be told to be the
// person's: what their git wrote while the run went on (a checkout of a
// branch that has a .gitattributes, a sub/.admit). A run of code cannot
// write the repository (.git is protected), so when the root's index
// changed during the run, the person's git ran; and a path whose every
// file is, byte for byte, what that index holds is the person's content,
// whoever wrote it. It is left in place (still unexpected, for the gate).

// indexState is what tells an index file changed: its identity, size and
// modification time.
type indexState struct {
	dev, ino uint64
	size     int64
	mtime    int64
	ctime    int64
}

// maxCheckoutBytes bounds what is read to compare a path with the index.
const maxCheckoutBytes = 8 << 20

// indexStates are the index files of the roots' repositories now.
func indexStates(roots []string) map[string]indexState {
	out := map[string]indexState{}
	for _, r := range roots {
		if st, ok := statIndex(r); ok {
			out[r] = st
		}
	}
	return out
}

func statIndex(root string) (indexState, bool) {
	info, err := os.Lstat(filepath.Join(root, ".git", "index"))
	if err != nil || !info.Mode().IsRegular() {
		return indexState{}, false
	}
	id, err := sysfile.LstatOf(filepath.Join(root, ".git", "index"), info)
	if err != nil {
		return indexState{}, false
	}
	// The change time too: git writes a new index by rename, but a
	// clock that moves in coarse ticks could give the same mtime.
	return indexState{dev: id.Dev, ino: id.Ino, size: info.Size(), mtime: info.ModTime().UnixNano(), ctime: id.Ctime.UnixNano()}, true
}

// personsCheckout: p, under root, is what root's index holds, and the
// index changed since before (the person's git ran during the run).
func personsCheckout(root, p string, before map[string]indexState) bool {
	was, ok := before[root]
	now, ok2 := statIndex(root)
	if !ok2 || ok && was == now {
		return false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	git := filepath.Join(root, ".git")
	hashLen, newHash := 20, sha1.New
	if cfg, err := readRegular(filepath.Join(git, "config"), 1<<20); err == nil {
		flat := strings.ToLower(strings.Join(strings.Fields(string(cfg)), ""))
		if strings.Contains(flat, "objectformat=sha256") {
			hashLen, newHash = 32, sha256.New
		}
	}
	entries, err := workspace.ReadIndex(filepath.Join(git, "index"), hashLen, func(name string) bool {
		return name == rel || strings.HasPrefix(name, rel+"/")
	})
	if err != nil || len(entries) == 0 {
		return false
	}
	budget := int64(maxCheckoutBytes)
	seen := 0
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		r, _ := filepath.Rel(root, path)
		e, ok := entries[filepath.ToSlash(r)]
		if !ok {
			return fmt.Errorf("%s is not in the index", r)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var content []byte
		var mode uint32
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			content, mode = []byte(target), 0o120000
		case info.Mode().IsRegular():
			if budget -= info.Size(); budget < 0 {
				return errTooLarge
			}
			if content, err = readAll(path, info.Size()); err != nil {
				return err
			}
			mode = 0o100644
			if info.Mode().Perm()&0o100 != 0 {
				mode = 0o100755
			}
		default:
			return fmt.Errorf("%s is not a file git checks out", r)
		}
		if e.Mode != mode || !bytes.Equal(blobHash(newHash, content), e.Hash) {
			return fmt.Errorf("%s is not what the index holds", r)
		}
		seen++
		return nil
	})
	return err == nil && seen == len(entries)
}

// readAll reads the regular file path, of size bytes (one more is
// an error: it grew meanwhile).
func readAll(path string, size int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, size+1))
	if err == nil && int64(len(b)) != size {
		err = fmt.Errorf("%s changed while it was read", path)
	}
	return b, err
}

// blobHash is git's object name of a blob of content.
func blobHash(newHash func() hash.Hash, content []byte) []byte {
	h := newHash()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return h.Sum(nil)
}
