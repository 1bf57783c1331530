package run

import (
	"os"
	"syscall"

	"admit/internal/sysfile"
)

// setBlocking does nothing: an open on Windows never waits for a peer.
func setBlocking(*os.File) error { return nil }

// openDir opens the folder path; anything else is ENOTDIR.
func openDir(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.IsDir() {
		f.Close()
		return nil, syscall.ENOTDIR
	}
	return f, nil
}

// ownedByUser reports false: a Windows file has no owner uid to compare
// (its owner is a SID in its security descriptor), so admit's own folder
// under the temporary folder is never taken as stable there.
func ownedByUser(sysfile.Info) bool { return false }
