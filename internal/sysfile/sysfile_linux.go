package sysfile

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Datasync makes f's data, and the size needed to read it, durable
// (fdatasync: the times are left to the next sync).
func Datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func ctime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
}
