package sysfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteAtomic replaces name with data, durably: written to a temporary file
// in name's folder, given perm, flushed to disk, renamed over name, and the
// folder flushed too, so that after a crash name holds either its old
// contents or all of data, never a part. It is the one way admit writes a
// whole file it keeps (the person's rules, trust records, the agents'
// settings, a file the agent writes through admit).
func WriteAtomic(name string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".admit-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("chmod: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("fsync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("fsync folder: %w", err)
	}
	return nil
}
