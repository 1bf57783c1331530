//go:build unix

package cases

import "syscall"

// mkfifo makes the FIFO a section of workspace.txtar names.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
