//go:build unix

package rpc

import "syscall"

// asNobody starts a process as uid and gid 65534.
func asNobody() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}
