package workspace

import (
	"syscall"
	"time"
)

// statCtime is the inode change time of st.
func statCtime(st *syscall.Stat_t) time.Time {
	return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec)
}
