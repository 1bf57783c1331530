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

// listen opens path in a folder only this user can enter (socketFolder:
// listen_unix.go, listen_windows.go), the socket itself this user's only.
func listen(path string, log *slog.Logger, cfg ServerConfig, hb *hub) (*listener, error) {
	if err := socketFolder(filepath.Dir(path)); err != nil {
		return nil, err
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
	if err := socketFile(path); err != nil {
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
		err = errors.New("not a unix socket")
		if uc, ok := c.(*net.UnixConn); ok {
			err = peerUser(uc)
		}
		if err != nil {
			ln.log.Warn("socket peer refused", "err", err)
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

// sameUser reports whether the system says the peer is this user: the
// socket's folder is the first wall, the kernel's word about who
// connected the second (peerUser: SO_PEERCRED on Linux, LOCAL_PEERCRED
// on macOS, the peer process's token on Windows). Where that word cannot
// be had, the peer is refused.
func sameUser(c *net.UnixConn) bool { return peerUser(c) == nil }

// close stops accepting, ends every socket connection and removes the socket.
func (ln *listener) close() {
	_ = ln.l.Close()
	ln.stop()
	ln.wg.Wait()
	_ = os.Remove(ln.path)
}

// errOr is a if it is set, else b.
func errOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
