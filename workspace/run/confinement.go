package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"admit/internal/sysfile"
)

// tempBase is the folder private temporary folders are made in, and the
// empty folder the confiner binds a run's own onto (its TMPDIR, the same
// on every run): <temp>/admit-<uid>/ and its tmp/, made 0700 by this user.
// If that folder is not this user's own (someone else made it first, or a
// link), private folders are made in the system's temporary folder and
// stable is "". Without a uid (Windows, whose temporary folder is the
// person's own) they are made there too.
func tempBase() (base, stable string) {
	sys := os.TempDir()
	if r, err := filepath.EvalSymlinks(sys); err == nil {
		sys = r
	}
	if os.Getuid() < 0 {
		return sys, ""
	}
	base = filepath.Join(sys, fmt.Sprintf("admit-%d", os.Getuid()))
	ours := func(p string) bool {
		if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return false
		}
		info, err := os.Lstat(p)
		if err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
			return false
		}
		id, err := sysfile.LstatOf(p, info)
		return err == nil && ownedByUser(id)
	}
	if !ours(base) {
		return sys, ""
	}
	if at := filepath.Join(base, "tmp"); ours(at) {
		return base, at
	}
	return base, ""
}

// cleanup lets go of what this system's confinement holds for the run
// and removes the private temporary folder.
func (x *executor) cleanup() {
	x.sysRun.cleanup()
	if x.temp != "" {
		removeAll(x.temp)
	}
}

// removeAll removes a folder a program may have left read-only parts in
// (Go's module cache extracts read-only folders): write permission is
// given back to each folder first.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// inside keeps the paths beneath root.
func inside(paths []string, root string) []string {
	var out []string
	for _, p := range paths {
		if within(p, []string{root}) {
			out = append(out, p)
		}
	}
	return out
}

// setEnv sets name in env, replacing any earlier value.
func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// linkCount is the link count of a regular file at p, or 0.
func linkCount(p string) uint64 {
	id, err := sysfile.Lstat(p)
	if err != nil || !id.Mode.IsRegular() {
		return 0
	}
	return id.Links
}

// errNotRegular is returned by openRegular for a FIFO, socket or device.
var errNotRegular = errors.New("not a regular file")
