package workspace

import (
	"io/fs"
	"syscall"

	"admit/internal/sysfile"
)

// statT is the part of a Unix stat the resolver reads, filled from
// Windows' own calls: Mode holds the syscall.S_IF* type (package
// syscall's values for Windows) and the permission bits, Nlink the link
// count.
type statT struct {
	Mode  uint32
	Nlink uint64
}

// lstat stats p without following a final symlink or junction. A missing
// file is ERROR_FILE_NOT_FOUND or ERROR_PATH_NOT_FOUND, which are
// syscall.ENOENT and syscall.ENOTDIR on Windows.
func lstat(p string, st *statT) error {
	info, err := sysfile.Lstat(p)
	if err != nil {
		return err
	}
	m := uint32(info.Mode.Perm())
	switch t := info.Mode.Type(); {
	case t&fs.ModeSymlink != 0:
		m |= syscall.S_IFLNK
	case t&fs.ModeDir != 0:
		m |= syscall.S_IFDIR
	case t&fs.ModeNamedPipe != 0:
		m |= syscall.S_IFIFO
	case t&fs.ModeSocket != 0:
		m |= syscall.S_IFSOCK
	case t&fs.ModeCharDevice != 0:
		m |= syscall.S_IFCHR
	case t&fs.ModeDevice != 0:
		m |= syscall.S_IFBLK
	case t == 0:
		m |= syscall.S_IFREG
	}
	st.Mode, st.Nlink = m, info.Links
	return nil
}

// foreign is false on Windows: ownership there is an ACL, not a uid.
func foreign(*statT) bool { return false }
