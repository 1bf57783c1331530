package sysfile

import (
	"os"
	"syscall"
	"time"
)

// Datasync makes f's data durable. On macOS fsync only hands the data to
// the drive, which may keep it in its cache; File.Sync issues
// F_FULLFSYNC, which asks the drive to write it (and falls back to fsync
// on a file system that does not support it).
func Datasync(f *os.File) error { return f.Sync() }

func ctime(st *syscall.Stat_t) time.Time {
	return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec)
}
