package sysfile

import (
	"io/fs"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// nameSurrogate marks a reparse tag that names another file (a symlink,
// a junction, a mount point): following one is following a link.
const nameSurrogate = 0x20000000

// OpenNoFollow opens name as os.OpenFile does, except that a final
// symlink or junction is refused (an error matching syscall.ELOOP)
// rather than followed: the file is opened as itself
// (FILE_FLAG_OPEN_REPARSE_POINT) and its reparse tag looked at. A reparse
// point that names no other file (a cloud placeholder, a deduplicated
// file) is opened again, followed, and kept only if it is the same file.
// O_TRUNC is applied after the checks, so a link is never truncated.
func OpenNoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	trunc := flag&os.O_TRUNC != 0
	flag &^= os.O_TRUNC
	f, err := os.OpenFile(name, flag|windows.O_FILE_FLAG_OPEN_REPARSE_POINT, perm)
	if err != nil {
		return nil, err
	}
	var tag struct{ FileAttributes, ReparseTag uint32 }
	if err := windows.GetFileInformationByHandleEx(windows.Handle(f.Fd()), windows.FileAttributeTagInfo,
		(*byte)(unsafe.Pointer(&tag)), uint32(unsafe.Sizeof(tag))); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if tag.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		if tag.ReparseTag&nameSurrogate != 0 {
			f.Close()
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ELOOP}
		}
		link, err := FileStat(f)
		f.Close()
		if err != nil {
			return nil, err
		}
		if f, err = os.OpenFile(name, flag&^(os.O_CREATE|os.O_EXCL), perm); err != nil {
			return nil, err
		}
		if now, err := FileStat(f); err != nil || !now.Same(link) {
			f.Close()
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ELOOP}
		}
	}
	if trunc {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// OpenFile is os.OpenFile, except that on Windows the file may be renamed
// or removed while it is open (FILE_SHARE_DELETE), as on Unix: a tape is
// rotated (renamed) while its writer and its readers hold it. The flags
// are O_RDONLY, O_WRONLY or O_RDWR with O_CREATE, O_EXCL and O_TRUNC.
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	trunc := flag&os.O_TRUNC != 0
	f, err := openShared(name, flag&^os.O_TRUNC, perm, 0)
	if err == nil && trunc {
		if err = f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, err
}

// Open opens name for reading, as OpenFile(name, os.O_RDONLY, 0).
func Open(name string) (*os.File, error) { return OpenFile(name, os.O_RDONLY, 0) }

// openShared opens name with every share mode, with the CreateFile
// attributes attrs added.
func openShared(name string, flag int, perm os.FileMode, attrs uint32) (*os.File, error) {
	fail := func(err error) (*os.File, error) { return nil, &fs.PathError{Op: "open", Path: name, Err: err} }
	if flag&^(os.O_RDONLY|os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_EXCL) != 0 {
		return fail(syscall.EINVAL)
	}
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return fail(err)
	}
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
		attrs |= windows.FILE_FLAG_BACKUP_SEMANTICS // a folder opens for reading too
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	default:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	create := uint32(windows.OPEN_EXISTING)
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		create = windows.CREATE_NEW
		attrs |= windows.FILE_FLAG_OPEN_REPARSE_POINT // never made through a link
	case flag&os.O_CREATE != 0:
		create = windows.OPEN_ALWAYS
	}
	if perm&0o200 == 0 && flag&os.O_CREATE != 0 {
		attrs |= windows.FILE_ATTRIBUTE_READONLY
	}
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, create, attrs|windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return fail(err)
	}
	return os.NewFile(uintptr(h), name), nil
}

// NonBlock is 0: opening a named pipe on Windows does not wait for a
// writer.
const NonBlock = 0

// allBytes locks the whole file, whatever its length.
const allBytes = ^uint32(0)

// Lock takes a lock on f (LockFileEx), shared or exclusive, waiting for
// it. Closing f, or Unlock, gives it back.
func Lock(f *os.File, exclusive bool) error {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, allBytes, allBytes, new(windows.Overlapped))
}

// Unlock gives back the lock Lock took.
func Unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, allBytes, allBytes, new(windows.Overlapped))
}

// Datasync makes f's data durable (FlushFileBuffers).
func Datasync(f *os.File) error { return f.Sync() }

// SyncDir does nothing on Windows: NTFS journals a folder's entries, and a
// folder handle cannot be flushed (FlushFileBuffers wants write access).
func SyncDir(string) error { return nil }

// Lstat stats path without following a final symlink or junction.
func Lstat(path string) (Info, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Info{}, err
	}
	return LstatOf(path, fi)
}

// FileStat stats the open file f.
func FileStat(f *os.File) (Info, error) {
	fi, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	info, err := handleInfo(windows.Handle(f.Fd()))
	if err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: f.Name(), Err: err}
	}
	info.Mode = fi.Mode()
	return info, nil
}

// LstatOf is the Info of path, whose os.Lstat (or DirEntry.Info) was fi.
// A Windows FileInfo holds no link count or identity: path is opened (as
// itself, not what it links to) and asked.
func LstatOf(path string, fi fs.FileInfo) (Info, error) { return pathInfo(path, fi, false) }

// StatOf is the Info of path, whose os.Stat (or File.Stat) was fi.
func StatOf(path string, fi fs.FileInfo) (Info, error) { return pathInfo(path, fi, true) }

func pathInfo(path string, fi fs.FileInfo, follow bool) (Info, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	attrs := uint32(windows.FILE_FLAG_BACKUP_SEMANTICS) // folders too
	if !follow {
		attrs |= windows.FILE_FLAG_OPEN_REPARSE_POINT
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, attrs, 0)
	if err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	info, err := handleInfo(h)
	if err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	info.Mode = fi.Mode()
	return info, nil
}

// fileBasicInfo is FILE_BASIC_INFO: times in 100 ns since 1601.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

// epochDelta is 1970-01-01 in 100 ns intervals since 1601-01-01.
const epochDelta = 116444736000000000

func handleInfo(h windows.Handle) (Info, error) {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return Info{}, err
	}
	var b fileBasicInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&b)), uint32(unsafe.Sizeof(b))); err != nil {
		return Info{}, err
	}
	return Info{
		Links: uint64(d.NumberOfLinks),
		Dev:   uint64(d.VolumeSerialNumber),
		Ino:   uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow),
		Ctime: time.Unix(0, (b.ChangeTime-epochDelta)*100),
		Uid:   -1,
	}, nil
}
