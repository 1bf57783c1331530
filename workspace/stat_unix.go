//go:build unix

package workspace

import (
	"os"
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

// selfUID is the process's own user, fixed for its life.
var selfUID = os.Getuid()

// foreign reports whether st belongs to another user than the process's
// (root, who can do anything anyway, excepted).
func foreign(st *statT) bool { return st.Uid != 0 && int(st.Uid) != selfUID }
