//go:build windows

package managed

import (
	"fmt"
	"io"
	"os"
)

const maxFile = 1 << 20

// readAdminFile reads path. On Windows the folder under %ProgramData% is
// writable by administrators alone by default; its ACL is not checked
// yet (docs/teams.md says so).
func readAdminFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxFile)
	}
	return data, nil
}
