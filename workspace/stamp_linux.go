package workspace

import (
	"io/fs"
	"syscall"
	"time"

	"admit/internal/sysfile"
)

// StampOf stamps the file at path, following symlinks; ok is false when
// it cannot be stat'ed (absent, among others). The stat fills a value on
// the stack: the gate stamps the policy file at every decision.
func StampOf(path string) (s Stamp, ok bool) {
	var st syscall.Stat_t
	if sysfile.StatPath(path, &st, true) != nil {
		return Stamp{}, false
	}
	return Stamp{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}

// statNow records the current state of path without following a final
// symlink; a path that does not exist is absent. The stat fills a value
// on the stack: every allowed read records one.
func statNow(path string) (fileState, error) {
	var st syscall.Stat_t
	if err := sysfile.StatPath(path, &st, false); err != nil {
		if err == syscall.ENOENT || err == syscall.ENOTDIR {
			return fileState{absent: true}, nil
		}
		return fileState{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return fileState{size: st.Size, mode: sysfile.ModeOf(st.Mode), mtime: time.Unix(st.Mtim.Unix()),
		dev: uint64(st.Dev), ino: uint64(st.Ino), ctime: time.Unix(st.Ctim.Unix())}, nil
}
