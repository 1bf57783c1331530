//go:build !linux

package sysfile

import (
	"io/fs"
	"os"
)

// ReadDir is os.ReadDir (Linux reads getdents64 itself: readdir_linux.go).
func ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }

// Listings lists every time where ReadDir is os.ReadDir (a folder's
// change time is Linux's witness that its entries are unchanged:
// listings_linux.go).
type Listings struct{}

// ReadDir is ReadDir of dir.
func (*Listings) ReadDir(dir string) ([]fs.DirEntry, error) { return ReadDir(dir) }
