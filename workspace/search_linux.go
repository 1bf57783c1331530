package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"admit/internal/sysfile"
	"admit/policy/command"
)

// SearchPath answers a PATH lookup of name in the clean absolute folder
// dir in one openat2 when no component of dir is a symlink: canon is
// Resolve(dir).Path and r is ResolveIn(canon, name), the answers the
// component walk gives, at one system call for a name the folder lacks
// and three (open, fstat, close) for one it holds, where the walk costs
// an lstat per component of dir and one for the name. ok is false when
// it cannot tell that way (a symlink in dir, any error, no openat2), and
// the caller resolves dir and name as without it.
func (r *Resolver) SearchPath(dir, name string) (canon string, res command.Resolved, ok bool) {
	return r.searchWith(openNoLinks, dir, name)
}

// openNoLinks opens p as an O_PATH handle, refusing every symlink on the
// way but a final one, which it opens itself (O_NOFOLLOW with O_PATH).
func openNoLinks(p string) (int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// searchWith is SearchPath with the open it uses given (tests give one
// that fails as a kernel without openat2 does).
func (r *Resolver) searchWith(open func(string) (int, error), dir, name string) (string, command.Resolved, bool) {
	p := strings.TrimSuffix(dir, "/") + "/" + name
	// A path Clean would change ("..", ".", "//", a "/" in name) is left
	// to the walk, whose answer for it is not the lexical path.
	if !filepath.IsAbs(dir) || name == "" || filepath.Clean(p) != p || r.noOpenat2.Load() {
		return "", command.Resolved{}, false
	}
	fd, err := open(p)
	switch {
	case err == nil:
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR):
		// The open stopped at a missing component (or one under a file)
		// before meeting any symlink, which would have been ELOOP: the
		// walk finds the same and applies the rest lexically, so dir is
		// its own resolution and nothing is there.
		return dir, command.Resolved{Path: p}, true
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		// No openat2 here (before Linux 5.6, or filtered): every later
		// search would fail alike.
		r.noOpenat2.Store(true)
		return "", command.Resolved{}, false
	default:
		// ELOOP (a symlink in dir) and any other error: the walk says
		// where the link leads, or which error the policy refuses on.
		return "", command.Resolved{}, false
	}
	var st statT
	err = fstatRetry(fd, &st)
	_ = unix.Close(fd)
	if err != nil {
		return "", command.Resolved{}, false
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		// The name is a link (python -> python3.12): dir holds none,
		// so the walk of the name starts there.
		res, err := r.ResolveIn(dir, name)
		return dir, res, err == nil
	}
	return dir, command.Resolved{Path: p, Exists: true, Dir: st.Mode&syscall.S_IFMT == syscall.S_IFDIR,
		Mode: sysfile.ModeOf(uint32(st.Mode)), Links: uint64(st.Nlink), Foreign: foreign(&st), Seen: stampOf(&st)}, true
}

// fstatRetry is fstat retried on EINTR.
func fstatRetry(fd int, st *statT) error {
	for {
		if err := syscall.Fstat(fd, st); err != syscall.EINTR {
			return err
		}
	}
}
