//go:build unix

package rpc

import (
	"fmt"
	"os"
	"syscall"
)

// socketFolder makes dir (mode 0700) and checks that it is a folder this
// user owns that nobody else may enter.
func socketFolder(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("socket folder %s must be a folder owned by this user with mode 0700 (found %v)", dir, fi.Mode())
	}
	return nil
}

// socketFile makes the socket this user's only (mode 0600).
func socketFile(path string) error { return os.Chmod(path, 0o600) }
