package rpc

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// peerUser checks the peer's uid with SO_PEERCRED.
func peerUser(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return fmt.Errorf("SO_PEERCRED: %v", errOr(err, cerr))
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("the peer is uid %d (pid %d), not this user", cred.Uid, cred.Pid)
	}
	return nil
}
