package rpc

import "syscall"

// asNobody is not reached on Windows: the test needs uid 0, and Windows
// has no uid (os.Getuid is -1).
func asNobody() *syscall.SysProcAttr { return nil }
