//go:build unix

package sysfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// OpenNoFollow opens name as os.OpenFile does, except that a final
// symlink is refused (an error matching syscall.ELOOP) rather than
// followed.
func OpenNoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag|syscall.O_NOFOLLOW, perm)
}

// OpenFile is os.OpenFile. (On Windows it also lets the file be renamed
// or removed while open, as Unix always does.)
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// Open opens name for reading, as os.Open.
func Open(name string) (*os.File, error) { return os.Open(name) }

// NonBlock is the open flag that keeps an open of a FIFO from waiting for
// a writer (O_NONBLOCK); 0 where the system has no such wait.
const NonBlock = syscall.O_NONBLOCK

// Lock takes an advisory lock on f (flock), shared or exclusive, waiting
// for it. Closing f, or Unlock, gives it back.
func Lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Unlock gives back the lock Lock took.
func Unlock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// SyncDir makes the entries of the folder dir durable (fsync of the
// folder: a new or renamed name survives a crash).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Lstat stats path without following a final symlink.
func Lstat(path string) (Info, error) {
	var st syscall.Stat_t
	if err := StatPath(path, &st, false); err != nil {
		return Info{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return infoOf(&st), nil
}

// Stat stats path, following symlinks.
func Stat(path string) (Info, error) {
	var st syscall.Stat_t
	if err := StatPath(path, &st, true); err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return infoOf(&st), nil
}

// FileStat stats the open file f.
func FileStat(f *os.File) (Info, error) {
	fi, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	return StatOf(f.Name(), fi)
}

// LstatOf is the Info of path, whose os.Lstat (or DirEntry.Info) was fi:
// on Unix fi carries it all; where it does not (Windows), path is
// stat'ed again.
func LstatOf(path string, fi fs.FileInfo) (Info, error) { return StatOf(path, fi) }

// StatOf is the Info of path, whose os.Stat (or File.Stat) was fi.
func StatOf(path string, fi fs.FileInfo) (Info, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Info{}, &fs.PathError{Op: "stat", Path: path, Err: errors.ErrUnsupported}
	}
	info := infoOf(st)
	info.Mode = fi.Mode()
	return info, nil
}

func infoOf(st *syscall.Stat_t) Info {
	return Info{
		Mode:  ModeOf(uint32(st.Mode)),
		Links: uint64(st.Nlink),
		Dev:   uint64(st.Dev),
		Ino:   uint64(st.Ino),
		Ctime: ctime(st),
		Uid:   int(st.Uid),
	}
}
