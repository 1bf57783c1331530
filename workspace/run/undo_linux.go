package run

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// undoParent is a path that names the folder p is in, reached from its
// root without following any link (openat2 RESOLVE_NO_SYMLINKS): another
// run of code, going on in the same workspace, could put a link in place
// of a folder above p (sub -> ~/other) so that taking p out would take
// what the link names instead. The path is the descriptor's
// (/proc/self/fd/N: the kernel's own link to the folder opened), valid
// until done is called.
func undoParent(root, p string) (parent string, done func(), err error) {
	rel, err := filepath.Rel(root, filepath.Dir(p))
	if err != nil {
		return "", nil, err
	}
	rfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	defer unix.Close(rfd)
	fd, err := unix.Openat2(rfd, rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return "", nil, fmt.Errorf("open %s without links: %w", filepath.Dir(p), err)
	}
	return fmt.Sprintf("/proc/self/fd/%d", fd), func() { unix.Close(fd) }, nil
}
