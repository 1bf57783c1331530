package tape

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"admit/policy/rule"
)

// mountTmpfs mounts a tmpfs of the given size ("256k") on a new temporary
// directory, or skips the test when it cannot (not root, no mount
// permission in this container).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("skipped: cannot mount a tmpfs on %s: %v", dir, err)
	}
	// Registered after TempDir, so it runs before TempDir removes dir.
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file in dir until the file system is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{64 << 10, 1} {
		chunk := make([]byte, size)
		for {
			if _, err := f.Write(chunk); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("fill: %v", err)
				}
				break
			}
		}
	}
	return name
}

// checkWhole fails unless the file ends in a complete line and the chain
// holds want records.
func checkWhole(t *testing.T, path string, want int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("the tape ends in a partial line: %q", b[max(0, len(b)-80):])
	}
	mustVerify(t, path, want)
}

func TestFullFileSystem(t *testing.T) {
	dir := mountTmpfs(t, "256k")
	path := filepath.Join(dir, "admit", "tape.jsonl")
	var logs syncBuffer
	tp := openT(t, path, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	appendN(t, tp, 10, rec)
	ok := 10
	filler := fill(t, dir)

	big := &Record{Reason: strings.Repeat("r", 1500)}
	var failed error
	for i := 0; i < 100 && failed == nil; i++ {
		r := *big
		r.ID = fmt.Sprint("big", i)
		if failed = tp.Append(context.Background(), &r); failed == nil {
			ok++ // the tape's last page had room
		}
	}
	if !errors.Is(failed, ErrUnwritable) || !errors.Is(failed, syscall.ENOSPC) {
		t.Fatalf("Append on a full file system = %v, want ErrUnwritable and ENOSPC", failed)
	}
	t.Logf("full: %v", failed)
	checkWhole(t, path, ok)

	// Concurrent appends on the full file system: batches fail whole, and
	// nothing partial stays behind.
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := range 16 {
		wg.Go(func() {
			for i := range 5 {
				r := *big
				r.ID = fmt.Sprintf("c%d-%d", w, i)
				err := tp.Append(context.Background(), &r)
				mu.Lock()
				if err == nil {
					ok++
				} else if !errors.Is(err, ErrUnwritable) {
					t.Errorf("Append: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	checkWhole(t, path, ok)
	t.Logf("%d partial writes were cut back", strings.Count(logs.String(), "cutting back a partial write"))

	// Space comes back: the next appends work and the chain goes on.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	appendN(t, tp, 20, func(i int) *Record { return rec(1000 + i) })
	ok += 20
	if err := tp.Close(); err != nil {
		t.Fatal(err)
	}
	checkWhole(t, path, ok)
}

func TestReadOnlyFileSystem(t *testing.T) {
	dir := mountTmpfs(t, "1m")
	path := filepath.Join(dir, "admit", "tape.jsonl")
	tp := openT(t, path, Options{})
	appendN(t, tp, 3, rec)
	if err := tp.Close(); err != nil {
		t.Fatal(err)
	}
	remount := func(flags uintptr) {
		t.Helper()
		if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|flags, ""); err != nil {
			t.Fatalf("remount: %v", err)
		}
	}
	remount(syscall.MS_RDONLY)

	_, err := Open(path, Options{})
	if !errors.Is(err, ErrUnwritable) || !errors.Is(err, syscall.EROFS) {
		t.Errorf("Open on a read-only file system = %v, want ErrUnwritable and EROFS", err)
	}
	_, err = Open(filepath.Join(dir, "new", "tape.jsonl"), Options{})
	if !errors.Is(err, ErrUnwritable) {
		t.Errorf("Open of a new tape on a read-only file system = %v", err)
	}
	// Readers still read.
	mustVerify(t, path, 3)
	if got, err := Query(path, Filter{}); err != nil || len(got) != 3 {
		t.Errorf("Query on a read-only file system: %d, %v", len(got), err)
	}

	remount(0)
	tp = openT(t, path, Options{})
	appendN(t, tp, 1, rec)
	tp.Close()
	mustVerify(t, path, 4)
}

// A tape whose directory turns read-only while it is open: a read-only
// tmpfs mounted over the directory makes the path lead to a file system
// where the tape cannot be created. Appends fail cleanly, then go on once
// it is gone.
func TestReadOnlyWhileOpen(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: mounting a tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "admit")
	path := filepath.Join(dir, "tape.jsonl")
	tp := openT(t, path, Options{})
	appendN(t, tp, 3, rec)
	tp.giveBack() // within a lease the writer trusts the file it holds
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_RDONLY, "size=64k"); err != nil {
		t.Skipf("skipped: cannot mount a tmpfs on %s: %v", dir, err)
	}
	mounted := true
	t.Cleanup(func() {
		if mounted {
			syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	err := tp.Append(context.Background(), rec(3))
	if !errors.Is(err, ErrUnwritable) || !errors.Is(err, syscall.EROFS) {
		t.Fatalf("Append with the directory read-only = %v, want ErrUnwritable and EROFS", err)
	}
	if err := syscall.Unmount(dir, 0); err != nil {
		t.Fatal(err)
	}
	mounted = false
	appendN(t, tp, 2, func(i int) *Record { return rec(10 + i) })
	tp.Close()
	checkWhole(t, path, 5)
	if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(`"id":"r3"`)) {
		t.Error("the failed record is on the tape")
	}
}

// syncBuffer collects log output from whichever caller writes a batch.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A torn line found while the disk is full: Open cuts it and keeps the
// repair record pending; it goes on the tape, before anything else, once
// there is room.
func TestRepairOnFullFileSystem(t *testing.T) {
	dir := mountTmpfs(t, "256k")
	path := filepath.Join(dir, "tape.jsonl")
	fixed := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	o := Options{Now: func() time.Time { return fixed }}
	tp := openT(t, path, o)
	appendN(t, tp, 5, rec)
	// Pad one record so that the good lines end 200 bytes short of a page
	// boundary: the torn fragment then fits in that page, and the repair
	// record does not.
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	s0 := size()
	appendN(t, tp, 1, func(int) *Record { return &Record{ID: "pad", Reason: "a"} })
	l1 := size() - s0
	target := (size()/4096+2)*4096 - 200
	pad := target - size() - (l1 - 1)
	appendN(t, tp, 1, func(int) *Record { return &Record{ID: "pad", Reason: strings.Repeat("a", int(pad))} })
	if size()%4096 != 4096-200 {
		t.Fatalf("padding missed: size %d", size())
	}
	tp.Close()
	good := size()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"time":"2026-11-30T06:00:00Z","id":"torn","reason":"` + strings.Repeat("x", 90))
	f.Close()
	filler := fill(t, dir)

	var logs syncBuffer
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	tp = openT(t, path, o)
	if size() != good {
		t.Fatalf("Open left %d bytes, want the %d good ones", size(), good)
	}
	if !strings.Contains(logs.String(), "cannot record a repair yet") {
		t.Errorf("log does not say the repair is pending:\n%s", logs.String())
	}
	if err := tp.Append(context.Background(), rec(100)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Append on the full disk = %v", err)
	}
	checkWhole(t, path, 7)

	os.Remove(filler)
	appendN(t, tp, 1, func(int) *Record { return rec(101) })
	tp.Close()
	checkWhole(t, path, 9)
	got, err := Query(path, Filter{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Rule != rule.TapeRepaired || !strings.Contains(got[0].Reason, "cut 143 bytes") || got[1].ID != "r101" {
		t.Errorf("tail of the tape: %+v", got)
	}
}
