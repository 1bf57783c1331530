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

// ownedByOther reports a file of another user than the test's (root
// excepted), as workspace.Resolver does.
func ownedByOther(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid != 0 && int(st.Uid) != os.Getuid()
}
