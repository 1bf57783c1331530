//go:build unix

package sysfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestStatPath: StatPath answers as syscall.Stat and syscall.Lstat do, for
// a file, a symlink (followed and not), a missing path, a path through a
// file, a path longer than its buffer and one holding a NUL; on Linux
// without an allocation.
func TestStatPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	long := dir + strings.Repeat("/.", 300) + "/f"
	for _, p := range []string{file, link, filepath.Join(dir, "none"), filepath.Join(file, "under"), long, dir + "/f\x00x", ""} {
		for _, follow := range []bool{true, false} {
			var got, want syscall.Stat_t
			gotErr := StatPath(p, &got, follow)
			wantErr := statPathSlow(p, &want, follow)
			if gotErr != wantErr || got != want {
				t.Errorf("StatPath(%.40q, follow %v) = %+v, %v; want %+v, %v", p, follow, got.Ino, gotErr, want.Ino, wantErr)
			}
		}
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		return // elsewhere StatPath is syscall's
	}
	if n := testing.AllocsPerRun(10, func() {
		var st syscall.Stat_t
		_ = StatPath(file, &st, false)
	}); n != 0 {
		t.Errorf("StatPath allocates %v times", n)
	}
}
