//go:build !linux

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"admit/internal/sysfile"
)

// StampOf stamps the file at path, following symlinks; ok is false when
// it cannot be stat'ed (absent, among others).
func StampOf(path string) (s Stamp, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}, false
	}
	id, err := sysfile.StatOf(path, fi)
	if err != nil {
		return Stamp{}, false
	}
	return Stamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Ctime: id.Ctime.UnixNano(), Dev: id.Dev, Ino: id.Ino}, true
}

// statNow records the current state of path without following a final
// symlink. err is set when the state cannot be known (not for absence).
func statNow(path string) (fileState, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return fileState{absent: true}, nil
		}
		return fileState{}, err
	}
	s := fileState{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime()}
	id, err := sysfile.LstatOf(path, fi)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fileState{absent: true}, nil
		}
		return fileState{}, err
	}
	s.dev, s.ino, s.ctime = id.Dev, id.Ino, id.Ctime
	return s, nil
}
