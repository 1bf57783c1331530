package sysfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpenNoFollow(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_RDWR | os.O_CREATE, os.O_WRONLY | os.O_TRUNC} {
		if f, err := OpenNoFollow(link, flag, 0o600); !errors.Is(err, syscall.ELOOP) {
			if f != nil {
				f.Close()
			}
			t.Errorf("flag %#x: a final symlink was opened (%v)", flag, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "data" {
		t.Fatalf("the link's target changed: %q", b)
	}
	f, err := OpenNoFollow(target, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A symlink before the last component is followed, as the kernel does.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	os.WriteFile(filepath.Join(sub, "f"), nil, 0o600)
	os.Symlink(sub, filepath.Join(dir, "sublink"))
	if f, err := OpenNoFollow(filepath.Join(dir, "sublink", "f"), os.O_RDONLY, 0); err != nil {
		t.Errorf("a link in the folder part: %v", err)
	} else {
		f.Close()
	}
}

func TestStatInfo(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	if err := os.WriteFile(a, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	ia, err := Lstat(a)
	if err != nil || ia.Links != 1 || !ia.Mode.IsRegular() || ia.Mode.Perm() != 0o640 || ia.Uid != os.Getuid() || ia.Ctime.IsZero() {
		t.Fatalf("lstat %+v %v", ia, err)
	}
	b := filepath.Join(dir, "b")
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	ib, err := Lstat(b)
	if err != nil || ib.Links != 2 || !ib.Same(ia) {
		t.Fatalf("a hard link: %+v %v", ib, err)
	}
	l := filepath.Join(dir, "l")
	os.Symlink(a, l)
	il, err := Lstat(l)
	if err != nil || il.Mode&os.ModeSymlink == 0 || il.Same(ia) {
		t.Fatalf("lstat of a link: %+v %v", il, err)
	}
	is, err := Stat(l)
	if err != nil || !is.Same(ia) || is.Links != 2 {
		t.Fatalf("stat through a link: %+v %v", is, err)
	}
	f, _ := os.Open(a)
	defer f.Close()
	if fi, err := FileStat(f); err != nil || !fi.Same(ia) {
		t.Fatalf("fstat %+v %v", fi, err)
	}
	fi, _ := os.Lstat(b)
	if got, err := LstatOf(b, fi); err != nil || !got.Same(ia) || got.Links != 2 {
		t.Fatalf("from a FileInfo: %+v %v", got, err)
	}
	// A change of metadata moves the change time.
	time.Sleep(10 * time.Millisecond)
	os.Chmod(a, 0o600)
	if now, _ := Lstat(a); !now.Ctime.After(ia.Ctime) {
		t.Errorf("ctime %v after a chmod, was %v", now.Ctime, ia.Ctime)
	}
	if _, err := Lstat(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// TestLock: an exclusive lock keeps out another holder, shared or
// exclusive, of another open file, until it is given back.
func TestLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, err := OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := Lock(a, true); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- Lock(b, false) }()
	select {
	case err := <-got:
		t.Fatalf("a shared lock was taken beside an exclusive one (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the shared lock was not taken after the exclusive one was given back")
	}
	if err := Datasync(a); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(filepath.Dir(p)); err != nil {
		t.Fatal(err)
	}
}

// TestRenameWhileOpen: a file opened with OpenFile may be renamed while
// open, as the tape's rotation does (Windows refuses that to os.OpenFile).
func TestRenameWhileOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tape")
	f, err := OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatalf("rename while open: %v", err)
	}
	if _, err := f.WriteString("after\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p + ".1"); string(b) != "after\n" {
		t.Fatalf("the renamed file holds %q", b)
	}
}
