//go:build unix

package workspace

import "syscall"

// statT is what the resolver's lstat fills: on Unix the system's own stat
// (Mode holds the syscall.S_IF* type, Nlink the link count).
type statT = syscall.Stat_t

// lstat is syscall.Lstat retried on EINTR (statPath).
func lstat(p string, st *statT) error {
	return statPath(p, st, false)
}
