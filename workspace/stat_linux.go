package workspace

import (
	"syscall"
	"time"
)

// statCtime is the inode change time of st.
func statCtime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
}
