//go:build unix

package sysfile

import "syscall"

// statPathSlow is syscall.Stat (follow) or syscall.Lstat, retried on
// EINTR.
func statPathSlow(path string, st *syscall.Stat_t, follow bool) error {
	for {
		var err error
		if follow {
			err = syscall.Stat(path, st)
		} else {
			err = syscall.Lstat(path, st)
		}
		if err != syscall.EINTR {
			return err
		}
	}
}
