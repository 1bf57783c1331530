package sysfile

import "os"

// Stat stats path, following symlinks.
func Stat(path string) (Info, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Info{}, err
	}
	return StatOf(path, fi)
}
