//go:build unix

package run

import (
	"os"

	"golang.org/x/sys/unix"

	"admit/internal/sysfile"
)

// setBlocking puts back the blocking mode an open with sysfile.NonBlock
// took away, once the file is known to be a regular file.
func setBlocking(f *os.File) error { return unix.SetNonblock(int(f.Fd()), false) }

// openDir opens the folder path with O_DIRECTORY|O_NONBLOCK: a FIFO
// named like one fails at once instead of blocking.
func openDir(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ownedByUser reports whether the file id describes is this user's.
func ownedByUser(id sysfile.Info) bool { return id.Uid == os.Getuid() }
