// Package sysfile is the few file operations admit needs that each
// operating system spells its own way: opening a file without following a
// final symlink, an advisory lock, a sync of a file's data and of a
// folder, and what a stat says beyond os.FileInfo (link count, identity,
// change time, owner). Each function has one name and a file per system
// (sysfile_linux.go, sysfile_darwin.go, sysfile_unix.go,
// sysfile_windows.go); callers never branch on runtime.GOOS.
//
// Linux and macOS give all of it through the POSIX calls. On Windows:
// a final symlink or junction (a name-surrogate reparse point) is opened
// as itself and refused rather than followed (FILE_FLAG_OPEN_REPARSE_POINT),
// locks are LockFileEx, syncs are FlushFileBuffers (a folder needs none:
// NTFS journals its entries), and the identity and link count come from
// GetFileInformationByHandle, the change time from FILE_BASIC_INFO. Windows
// has no owner uid: Info.Uid is -1.
package sysfile

import (
	"io/fs"
	"time"
)

// Info is what admit needs of a stat beyond os.FileInfo.
type Info struct {
	Mode  fs.FileMode // type and permission bits, as os.FileInfo.Mode
	Links uint64      // hard links to the file
	// Dev and Ino identify the file: two paths with the same pair name
	// the same file (on Windows, the volume serial and the file index).
	Dev, Ino uint64
	Ctime    time.Time // the last change of contents or metadata (inode change time)
	Uid      int       // the owner's uid; -1 where the system has none (Windows)
}

// Same reports whether a and b are the same file.
func (a Info) Same(b Info) bool { return a.Dev == b.Dev && a.Ino == b.Ino }
