//go:build unix

package command

import (
	"os"
	"syscall"
)

// linkCount is a file's number of hard links.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
