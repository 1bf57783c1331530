//go:build unix

package workspace

import (
	"errors"
	"syscall"
	"testing"
)

func TestReadFileFIFO(t *testing.T) {
	root := tempRoot(t)
	if err := syscall.Mkfifo(root+"/fifo", 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(root+"/fifo", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("fifo: %v", err)
	}
}
