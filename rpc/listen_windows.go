package rpc

import (
	"errors"
	"fmt"
	"net"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the socket is an AF_UNIX socket (Windows 10 1803 and later)
// in a folder whose access list lets this user alone in: a protected
// DACL with one entry, full access for the user's SID, inherited by the
// socket file. A peer that got in anyway is asked for its process
// (SIO_AF_UNIX_GETPEERPID) and that process's token for its user, which
// must be this user's SID. A Windows that cannot say (an older one
// without the ioctl) refuses every peer, and says why.

// socketFolder makes dir, gives it the access list above and checks it:
// a folder (not a junction), owned by this user (or by the owner its
// token gives new files, Administrators for an elevated one), whose every
// entry allows this user and nobody else.
func socketFolder(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket folder: %w", err)
	}
	if !fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("socket folder %s must be a folder (found %v)", dir, fi.Mode())
	}
	me, owner, err := tokenUsers(windows.GetCurrentProcessToken())
	if err != nil {
		return fmt.Errorf("socket folder: this process's user: %w", err)
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;" + me.String() + ")")
	if err != nil {
		return fmt.Errorf("socket folder: access list: %w", err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("socket folder: access list: %w", err)
	}
	if err := windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		return fmt.Errorf("socket folder %s: set its access list: %w", dir, err)
	}
	return checkOnlyUser(dir, me, owner)
}

// checkOnlyUser reads dir's owner and access list back.
func checkOnlyUser(dir string, me, owner *windows.SID) error {
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("socket folder %s: read its access list: %w", dir, err)
	}
	o, _, err := sd.Owner()
	if err != nil || o == nil || !(o.Equals(me) || o.Equals(owner)) {
		return fmt.Errorf("socket folder %s must be owned by this user (owner %v)", dir, o)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return fmt.Errorf("socket folder %s has no access list: everyone may enter", dir)
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return fmt.Errorf("socket folder %s: access entry %d: %w", dir, i, err)
		}
		if ace.Header.AceType == windows.ACCESS_DENIED_ACE_TYPE {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || !sid.Equals(me) {
			return fmt.Errorf("socket folder %s lets %v in: only this user may enter it", dir, sid)
		}
	}
	return nil
}

// socketFile does nothing: the socket inherits the folder's access list.
func socketFile(string) error { return nil }

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID (_WSAIOR(IOC_VENDOR,
// 256), afunix.h): the process id of an AF_UNIX socket's peer.
const sioAFUnixGetPeerPID = 0x58000100

// peerUser checks that the peer's process runs as this user.
func peerUser(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var pid, n uint32
	var ierr error
	if err := raw.Control(func(fd uintptr) {
		ierr = windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0,
			(*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0)
	}); err != nil || ierr != nil {
		return fmt.Errorf("this Windows does not say who the peer is (SIO_AF_UNIX_GETPEERPID: %v)", errOr(err, ierr))
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return fmt.Errorf("the peer's process %d cannot be opened: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return fmt.Errorf("the peer's process %d: its token: %w", pid, err)
	}
	defer tok.Close()
	peer, _, err := tokenUsers(tok)
	if err != nil {
		return fmt.Errorf("the peer's process %d: its user: %w", pid, err)
	}
	me, _, err := tokenUsers(windows.GetCurrentProcessToken())
	if err != nil {
		return fmt.Errorf("this process's user: %w", err)
	}
	if !peer.Equals(me) {
		return fmt.Errorf("the peer (process %d) runs as %v, not this user", pid, peer)
	}
	return nil
}

// tokenUsers are a token's user and the owner it gives new objects,
// copied out of the token's buffers.
func tokenUsers(t windows.Token) (user, owner *windows.SID, err error) {
	tu, err := t.GetTokenUser()
	if err != nil {
		return nil, nil, err
	}
	if user, err = tu.User.Sid.Copy(); err != nil {
		return nil, nil, err
	}
	var n uint32
	_ = windows.GetTokenInformation(t, windows.TokenOwner, nil, 0, &n)
	if n == 0 {
		return nil, nil, errors.New("no token owner")
	}
	buf := make([]byte, n)
	if err := windows.GetTokenInformation(t, windows.TokenOwner, &buf[0], n, &n); err != nil {
		return nil, nil, err
	}
	o := (*struct{ Owner *windows.SID })(unsafe.Pointer(&buf[0])).Owner
	if owner, err = o.Copy(); err != nil {
		return nil, nil, err
	}
	return user, owner, nil
}
