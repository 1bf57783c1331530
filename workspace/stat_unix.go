//go:build unix

package workspace

import (
	"syscall"

	"admit/internal/sysfile"
)

// statT is what the resolver's lstat fills: on Unix the system's own stat
// (Mode holds the syscall.S_IF* type, Nlink the link count).
type statT = syscall.Stat_t

// lstat is syscall.Lstat retried on EINTR (sysfile.StatPath).
func lstat(p string, st *statT) error {
	return sysfile.StatPath(p, st, false)
}
