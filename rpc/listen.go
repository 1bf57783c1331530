package rpc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// DefaultSocket is the per-workspace socket of the server whose first root
// is root: $XDG_RUNTIME_DIR/admit/<hash>.sock, else under the state
// directory. The hash keeps the path under the 108 bytes a socket name may
// have, whatever the root's length.
func DefaultSocket(root string) string {
	sum := sha256.Sum256([]byte(root))
	name := hex.EncodeToString(sum[:8]) + ".sock"
	if dir := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "admit", name)
	}
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "admit", "sockets", name)
}

// listener accepts other local agents on a unix socket and serves each
// connection against the editor's host.
type listener struct {
	l    net.Listener
	path string
	log  *slog.Logger
	wg   sync.WaitGroup
	stop context.CancelFunc
}

// listen opens path with mode 0600 in a folder only this user can enter.
func listen(path string, log *slog.Logger, cfg ServerConfig, hb *hub) (*listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("socket folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("socket folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("socket folder %s must be a folder owned by this user with mode 0700 (found %v)", dir, fi.Mode())
	}
	// A socket left by a server that died is removed; a live one is not.
	if c, err := net.Dial("unix", path); err == nil {
		_ = c.Close()
		return nil, fmt.Errorf("socket %s: another server is listening", path)
	}
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("socket: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	ln := &listener{l: l, path: path, log: log, stop: stop}
	ln.wg.Add(1)
	go ln.accept(ctx, cfg, hb)
	log.Info("listening for local agents", "socket", path)
	return ln, nil
}

func (ln *listener) accept(ctx context.Context, cfg ServerConfig, hb *hub) {
	defer ln.wg.Done()
	for {
		c, err := ln.l.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				ln.log.Warn("socket accept failed", "err", err)
			}
			return
		}
		uc, ok := c.(*net.UnixConn)
		if !ok || !sameUser(uc) {
			ln.log.Warn("socket peer refused: another user")
			_ = c.Close()
			continue
		}
		peer := &Server{cfg: cfg, log: ln.log, exited: make(chan struct{}), hub: hb}
		ln.wg.Add(1)
		go func() {
			defer ln.wg.Done()
			peer.serve(ctx, c)
		}()
	}
}

// sameUser checks the peer's uid with SO_PEERCRED: the socket's mode is
// the first wall, the kernel's word about who connected the second.
func sameUser(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}

// close stops accepting, ends every socket connection and removes the socket.
func (ln *listener) close() {
	_ = ln.l.Close()
	ln.stop()
	ln.wg.Wait()
	_ = os.Remove(ln.path)
}
