//go:build !linux

package sysfile

import (
	"io/fs"
	"os"
)

// ReadDir is os.ReadDir (Linux reads getdents64 itself: readdir_linux.go).
func ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
