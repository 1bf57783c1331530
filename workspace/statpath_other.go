//go:build unix && !(linux && (amd64 || arm64))

package workspace

import "syscall"

// statPath is syscall.Stat (follow) or syscall.Lstat, retried on EINTR.
func statPath(path string, st *syscall.Stat_t, follow bool) error {
	return statPathSlow(path, st, follow)
}
