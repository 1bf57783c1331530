package rpc

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// xucredVersion is XUCRED_VERSION of <sys/ucred.h>: the only layout of
// struct xucred there is.
const xucredVersion = 0

// peerUser checks the peer's uid with LOCAL_PEERCRED (the credentials
// getpeereid reads).
func peerUser(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil || cerr != nil {
		return fmt.Errorf("LOCAL_PEERCRED: %v", errOr(err, cerr))
	}
	if cred.Version != xucredVersion {
		return fmt.Errorf("LOCAL_PEERCRED: credentials of version %d", cred.Version)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("the peer is uid %d, not this user", cred.Uid)
	}
	return nil
}
