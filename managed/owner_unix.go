//go:build unix

package managed

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// readAdminFile reads path when an administrator alone can have written
// it: the file and every folder above it (symlinks resolved) owned by
// root, and neither writable by group or others (a folder may be, with
// the sticky bit, as /tmp is: others cannot replace what root owns in
// it). A file that does not exist is fs.ErrNotExist.
func readAdminFile(path string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, st.Mode().Type())
	}
	if why := notAdmin(st, false); why != "" {
		return nil, fmt.Errorf("%s: refused as a managed policy: the file %s, so the person could have written it; an administrator must own it (root, mode 0644)", path, why)
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		ds, err := os.Stat(dir)
		if err != nil {
			return nil, err
		}
		if why := notAdmin(ds, true); why != "" {
			return nil, fmt.Errorf("%s: refused as a managed policy: the folder %s %s, so the person could have replaced the file; an administrator must own every folder above it", path, dir, why)
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	return readBounded(f, path)
}

// notAdmin says why st is not an administrator's alone, or "".
func notAdmin(st fs.FileInfo, dir bool) string {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "has no owner this system reports"
	}
	if sys.Uid != 0 {
		return fmt.Sprintf("is owned by uid %d, not root", sys.Uid)
	}
	m := st.Mode()
	if m&0o022 != 0 && !(dir && m&fs.ModeSticky != 0) {
		return fmt.Sprintf("is writable by its group or others (mode %04o)", m.Perm())
	}
	return ""
}
