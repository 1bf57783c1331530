//go:build windows

package managed

import "os"

// readAdminFile reads path. On Windows the folder under %ProgramData% is
// writable by administrators alone by default; its ACL is not checked
// yet (docs/teams.md says so).
func readAdminFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, path)
}
