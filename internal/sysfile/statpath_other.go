//go:build unix && !(linux && (amd64 || arm64))

package sysfile

import "syscall"

// StatPath is syscall.Stat (follow) or syscall.Lstat, retried on EINTR.
func StatPath(path string, st *syscall.Stat_t, follow bool) error {
	return statPathSlow(path, st, follow)
}
