//go:build linux && (amd64 || arm64)

package sysfile

import (
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// StatPath is fstatat(AT_FDCWD, path) retried on EINTR, following a final
// symlink when follow. The path is made a C string in a buffer on the
// stack, not in an allocation as syscall.Stat makes it: the gate stats
// paths at every decision (the policy file, each path operand, each read
// it observes). The runtime does not move a goroutine's stack while it is
// in a system call. A path too long for the buffer, or holding a NUL,
// goes through syscall.Stat and syscall.Lstat.
func StatPath(path string, st *syscall.Stat_t, follow bool) error {
	var buf [512]byte
	if len(path) >= len(buf) || strings.IndexByte(path, 0) >= 0 {
		return statPathSlow(path, st, follow)
	}
	copy(buf[:], path)
	buf[len(path)] = 0
	flags := uintptr(unix.AT_SYMLINK_NOFOLLOW)
	if follow {
		flags = 0
	}
	dir := unix.AT_FDCWD
	for {
		_, _, e := syscall.Syscall6(fstatatTrap, uintptr(dir), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(st)), flags, 0, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return e
	}
}
