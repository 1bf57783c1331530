package workspace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// git's index (.git/index) lists the files git tracks. A gitlink entry
// (mode 160000) is a nested repository tracked by its commit: a submodule,
// or a repository committed inside another one. git status and git diff
// look into every gitlink whose folder holds a repository (they run git
// there, with that repository's own configuration), so what runs for
// git status in the outer repository includes what those configurations
// name.

const (
	// gitlinkMode is the index mode of a nested repository.
	gitlinkMode = 0o160000
	// maxIndexEntries bounds the entries read from one index; a larger
	// one is reported, not read (the largest public repositories have a
	// few million files).
	maxIndexEntries = 4_000_000
	// maxGitlinks bounds the nested repositories checked under one.
	maxGitlinks = 200
	// maxGitlinkDepth bounds repositories inside repositories.
	maxGitlinkDepth = 4
)

// errIndex is a git index this reader cannot read: git would refuse it
// too, or it is a format not known here.
var errIndex = errors.New("workspace: unreadable git index")

// readGitlinks returns the paths (relative to the working tree, with
// "/") of the gitlink entries of the index file p, for object names of
// hashLen bytes (20 for SHA-1, 32 for SHA-256). A missing index has
// none. Versions 2, 3 and 4 are read; anything else is an error, so
// that the caller fails closed.
func readGitlinks(p string, hashLen int) ([]string, error) {
	var links []string
	err := readIndex(p, hashLen, func(mode uint32, _, name []byte) error {
		if mode&0o170000 == gitlinkMode {
			if bytes.Contains(name, []byte("..")) || bytes.HasPrefix(name, []byte("/")) {
				return fmt.Errorf("%w: %s: gitlink %q", errIndex, p, name)
			}
			links = append(links, string(name))
		}
		return nil
	})
	return links, err
}

// IndexEntry is a path git's index holds: its mode and object name.
type IndexEntry struct {
	Mode uint32
	Hash []byte
}

// ReadIndex returns the entries of the index file p (object names of
// hashLen bytes) whose path, relative to the working tree with "/", want
// accepts. A missing index has none; one this reader cannot read is an
// error.
func ReadIndex(p string, hashLen int, want func(name string) bool) (map[string]IndexEntry, error) {
	out := map[string]IndexEntry{}
	err := readIndex(p, hashLen, func(mode uint32, hash, name []byte) error {
		if n := string(name); want(n) {
			out[n] = IndexEntry{Mode: mode, Hash: bytes.Clone(hash)}
		}
		return nil
	})
	return out, err
}

// readIndex calls visit with each entry of the index file p.
func readIndex(p string, hashLen int, visit func(mode uint32, hash, name []byte) error) error {
	f, err := os.OpenFile(p, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", errIndex, p)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return fmt.Errorf("%w: %s: header: %v", errIndex, p, err)
	}
	if string(hdr[:4]) != "DIRC" {
		return fmt.Errorf("%w: %s has no DIRC signature", errIndex, p)
	}
	version := binary.BigEndian.Uint32(hdr[4:8])
	count := binary.BigEndian.Uint32(hdr[8:12])
	if version < 2 || version > 4 {
		return fmt.Errorf("%w: %s is version %d", errIndex, p, version)
	}
	if count > maxIndexEntries {
		return fmt.Errorf("%w: %s has %d entries, more than %d", errIndex, p, count, maxIndexEntries)
	}
	fixed := make([]byte, 40+hashLen+2)
	var prev []byte // version 4: the previous entry's path
	for n := uint32(0); n < count; n++ {
		if _, err := io.ReadFull(r, fixed); err != nil {
			return fmt.Errorf("%w: %s: entry %d: %v", errIndex, p, n, err)
		}
		mode := binary.BigEndian.Uint32(fixed[24:28])
		flags := binary.BigEndian.Uint16(fixed[40+hashLen:])
		size := len(fixed)
		if flags&0x4000 != 0 { // extended flags, version 3 and later
			if version < 3 {
				return fmt.Errorf("%w: %s: extended flags in version 2", errIndex, p)
			}
			if _, err := r.Discard(2); err != nil {
				return fmt.Errorf("%w: %s: entry %d: %v", errIndex, p, n, err)
			}
			size += 2
		}
		var name []byte
		if version == 4 {
			strip, err := readIndexVarint(r)
			if err != nil || strip > uint64(len(prev)) {
				return fmt.Errorf("%w: %s: entry %d: bad path prefix", errIndex, p, n)
			}
			suffix, err := r.ReadBytes(0)
			if err != nil {
				return fmt.Errorf("%w: %s: entry %d: %v", errIndex, p, n, err)
			}
			name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], suffix[:len(suffix)-1]...)
			prev = name
		} else {
			// The name ends with 1 to 8 NULs, padding the entry to a
			// multiple of 8 bytes.
			raw, err := r.ReadBytes(0)
			if err != nil {
				return fmt.Errorf("%w: %s: entry %d: %v", errIndex, p, n, err)
			}
			name = raw[:len(raw)-1]
			size += len(raw)
			if pad := (8 - size%8) % 8; pad > 0 {
				if _, err := r.Discard(pad); err != nil {
					return fmt.Errorf("%w: %s: entry %d: %v", errIndex, p, n, err)
				}
			}
		}
		if err := visit(mode, fixed[40:40+hashLen], name); err != nil {
			return err
		}
	}
	return nil
}

// readIndexVarint reads git's offset varint (varint.c).
func readIndexVarint(r *bufio.Reader) (uint64, error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, err
	}
	val := uint64(c & 127)
	for c&128 != 0 {
		val++
		if val == 0 || val>>57 != 0 {
			return 0, errIndex
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, err
		}
		val = val<<7 + uint64(c&127)
	}
	return val, nil
}

// errEnough stops an index read that found what it was asked for.
var errEnough = errors.New("workspace: enough index entries")

// maxTracked bounds the files GitTracked returns.
const maxTracked = 8

// GitTracked lists files the index of the repository holding dir tracks
// under dir (paths relative to dir, with "/") that want accepts, at most
// a few: what git grep and git ls-files read there. ok is false when the
// repository or its index cannot be read; a folder in no repository, or
// a bare one, tracks none.
func (r *Resolver) GitTracked(dir string, want func(rel string) bool) ([]string, bool) {
	repo, finding := r.findRepo(dir)
	if finding != "" {
		return nil, false
	}
	if repo.gitDir == "" || repo.worktree == "" {
		return nil, true
	}
	res, err := resolve(filepath.Clean(dir))
	if err != nil {
		return nil, false
	}
	rel, err := filepath.Rel(repo.worktree, res.Path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, true
	}
	prefix := ""
	if rel != "." {
		prefix = filepath.ToSlash(rel) + "/"
	}
	var out []string
	pre := []byte(prefix)
	err = readIndex(filepath.Join(repo.gitDir, "index"), hashLen(repo.commonDir), func(mode uint32, _, name []byte) error {
		if mode&0o170000 == gitlinkMode || !bytes.HasPrefix(name, pre) {
			return nil
		}
		if n := string(name[len(prefix):]); want(n) {
			out = append(out, n)
			if len(out) >= maxTracked {
				return errEnough
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, false
	}
	return out, true
}
