package workspace

import (
	"os"
	"runtime"
	"testing"
	"time"

	"admit/policy/command"
)

func TestObservationsStaleWithoutWatcher(t *testing.T) {
	root := tempRoot(t)
	p := root + "/f.txt"
	writeFile(t, p, "hello")
	o := NewObservations(0)
	if got := o.File(p); got != command.Unobserved {
		t.Fatalf("before record: %v", got)
	}
	if err := o.RecordFileHash(p, HashBytes([]byte("hello"))); err != nil {
		t.Fatal(err)
	}
	if got := o.File(p); got != command.Observed {
		t.Fatalf("after record: %v", got)
	}
	if h, ok := o.Hash(p); !ok || h != HashBytes([]byte("hello")) {
		t.Errorf("Hash = %q %v", h, ok)
	}

	t.Run("same size, mtime changed", func(t *testing.T) {
		if err := os.WriteFile(p, []byte("HELLO"), 0o644); err != nil {
			t.Fatal(err)
		}
		// Force an mtime distinct from the recorded one even on a
		// coarse-grained clock.
		future := time.Now().Add(3 * time.Second)
		if err := os.Chtimes(p, future, future); err != nil {
			t.Fatal(err)
		}
		if got := o.File(p); got != command.Stale {
			t.Errorf("after same-size write: %v, want Stale", got)
		}
	})
	t.Run("same size, mtime put back, within one clock tick", func(t *testing.T) {
		// Recorded right after the last write: racily clean, so the
		// content hash is kept and compared.
		if err := o.RecordFile(p); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		mt := fi.ModTime()
		if err := os.WriteFile(p, []byte("hallo"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
		// Size and mtime match; the inode change time does not.
		if got := o.File(p); got != command.Stale {
			t.Errorf("after write with mtime restored: %v, want Stale", got)
		}
	})
	t.Run("inode changed by rename over", func(t *testing.T) {
		if err := o.RecordFile(p); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		tmp := root + "/.tmp"
		writeFile(t, tmp, "hallo")
		if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
		if got := o.File(p); got != command.Stale {
			t.Errorf("after rename over: %v, want Stale", got)
		}
	})
	t.Run("removed", func(t *testing.T) {
		if err := o.RecordFile(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if got := o.File(p); got != command.Stale {
			t.Errorf("after remove: %v, want Stale", got)
		}
	})
	t.Run("observed absent, then created", func(t *testing.T) {
		if err := o.RecordFile(p); err != nil { // absent now
			t.Fatal(err)
		}
		if got := o.File(p); got != command.Observed {
			t.Errorf("absent and still absent: %v", got)
		}
		writeFile(t, p, "new")
		if got := o.File(p); got != command.Stale {
			t.Errorf("created since: %v, want Stale", got)
		}
	})
}

func TestObservationsMarkChanged(t *testing.T) {
	root := tempRoot(t)
	p := root + "/f"
	writeFile(t, p, "a")
	o := NewObservations(0)
	if err := o.RecordFile(p); err != nil {
		t.Fatal(err)
	}
	// An event for the state already recorded (the session's own write)
	// changes nothing.
	o.MarkChanged(p, root+"/unrecorded")
	if got := o.File(p); got != command.Observed {
		t.Fatalf("after MarkChanged of an unchanged file: %v", got)
	}
	// A change, then the file put back byte for byte: stays Stale.
	fi, _ := os.Stat(p)
	writeFile(t, p, "b")
	o.MarkChanged(p)
	writeFile(t, p, "a")
	_ = os.Chtimes(p, fi.ModTime(), fi.ModTime())
	if got := o.File(p); got != command.Stale {
		t.Errorf("after change and revert: %v, want Stale", got)
	}
	// Reading again makes it Observed.
	if err := o.RecordFile(p); err != nil {
		t.Fatal(err)
	}
	if got := o.File(p); got != command.Observed {
		t.Errorf("after a new read: %v", got)
	}
	o.Forget(p)
	if got := o.File(p); got != command.Unobserved {
		t.Errorf("after Forget: %v", got)
	}
}

func TestObservationsDirsAndBound(t *testing.T) {
	root := tempRoot(t)
	o := NewObservations(3)
	o.RecordDir(root)
	if !o.Dir(root) || o.Dir(root+"/x") {
		t.Error("Dir after RecordDir")
	}
	// A listing never makes a file Observed.
	writeFile(t, root+"/f", "x")
	if got := o.File(root + "/f"); got != command.Unobserved {
		t.Errorf("file in listed folder: %v", got)
	}
	if got := o.File(root); got != command.Unobserved {
		t.Errorf("File(listed folder) = %v", got)
	}
	for _, n := range []string{"a", "b", "c"} {
		if err := o.RecordFile(root + "/" + n); err != nil {
			t.Fatal(err)
		}
	}
	if o.Len() != 3 || o.Dir(root) {
		t.Errorf("bound: len %d, oldest (the folder) still there: %v", o.Len(), o.Dir(root))
	}
	// Recording again refreshes the age.
	_ = o.RecordFile(root + "/a")
	_ = o.RecordFile(root + "/d")
	if o.File(root+"/a") == command.Unobserved || o.File(root+"/b") != command.Unobserved {
		t.Errorf("oldest-first dropping: a=%v b=%v", o.File(root+"/a"), o.File(root+"/b"))
	}
	for i := 0; i < 1000; i++ {
		_ = o.RecordFile(root + "/a")
	}
	if len(o.order) > 2*o.Len()+64 {
		t.Errorf("order not compacted: %d", len(o.order))
	}
}

func BenchmarkObservationsFile(b *testing.B) {
	root := tempRoot(b)
	o := NewObservations(0)
	p := root + "/src/file.go"
	writeFile(b, p, "package x")
	for i := 0; i < 10_000; i++ {
		o.RecordDir(root + "/d" + string(rune('a'+i%26)))
	}
	if err := o.RecordFile(p); err != nil {
		b.Fatal(err)
	}
	// Just written, the entry is racily clean: File compares the content
	// hash too. An entry recorded later than racyWindow after the last
	// change compares the state only (the common case).
	b.Run("racy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if o.File(p) != command.Observed {
				b.Fatal("not observed")
			}
		}
	})
	o.mu.Lock()
	o.entries[p].racy = false
	o.mu.Unlock()
	b.Run("state", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if o.File(p) != command.Observed {
				b.Fatal("not observed")
			}
		}
	})
}

// TestRecordResolvedAsStatted: a read recorded with the state its
// resolution saw is the same observation as one stat'ed again: Observed
// while the file stands, Stale once it changes, and a resolution that saw
// nothing falls back to a stat.
func TestRecordResolvedAsStatted(t *testing.T) {
	root := tempRoot(t)
	p := root + "/f.txt"
	writeFile(t, p, "hello")
	past := time.Now().Add(-time.Hour) // out of the racy window: no hash
	if err := os.Chtimes(p, past, past); err != nil {
		t.Fatal(err)
	}
	roots, err := NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(roots).Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && !r.Seen.Known() {
		t.Fatalf("Resolve(%s) saw no stamp: %+v", p, r)
	}
	seen, statted := NewObservations(0), NewObservations(0)
	if err := seen.RecordResolved(r); err != nil {
		t.Fatal(err)
	}
	if err := statted.RecordFile(p); err != nil {
		t.Fatal(err)
	}
	if a, b := seen.entries[p].state, statted.entries[p].state; a != b {
		t.Fatalf("recorded from the resolution %+v, stat'ed %+v", a, b)
	}
	if got := seen.File(p); got != command.Observed {
		t.Fatalf("after record: %v", got)
	}
	writeFile(t, p, "hello, changed")
	if got := seen.File(p); got != command.Stale {
		t.Errorf("after a write: %v, want Stale", got)
	}
	unseen := NewObservations(0)
	r.Seen = command.Stamp{}
	if err := unseen.RecordResolved(r); err != nil {
		t.Fatal(err)
	}
	if got := unseen.File(p); got != command.Observed {
		t.Errorf("recorded without a stamp (stat'ed): %v, want Observed", got)
	}
}

// TestObservationsRereadInPlace holds a file read again while it is the
// newest read to what a fresh record would be: its new state is the one
// judged, order is not grown by it, and the bound still drops the oldest.
func TestObservationsRereadInPlace(t *testing.T) {
	root := tempRoot(t)
	a, b, c := root+"/a.txt", root+"/b.txt", root+"/c.txt"
	for _, p := range []string{a, b, c} {
		writeFile(t, p, "one")
	}
	o := NewObservations(2)
	for range 10 {
		if err := o.RecordFileHash(a, HashBytes([]byte("one"))); err != nil {
			t.Fatal(err)
		}
	}
	if len(o.order) != 1 {
		t.Errorf("ten reads of one file left %d order items, want 1", len(o.order))
	}
	writeFile(t, a, "two!")
	if got := o.File(a); got != command.Stale {
		t.Fatalf("after a change: %v", got)
	}
	if err := o.RecordFileHash(a, HashBytes([]byte("two!"))); err != nil {
		t.Fatal(err)
	}
	if got := o.File(a); got != command.Observed {
		t.Errorf("read again after the change: %v, want observed", got)
	}
	o.MarkChanged(a) // the state recorded in place is the one compared
	if got := o.File(a); got != command.Observed {
		t.Errorf("MarkChanged of the state just recorded: %v, want observed", got)
	}
	if err := o.RecordFile(b); err != nil {
		t.Fatal(err)
	}
	if err := o.RecordFile(c); err != nil {
		t.Fatal(err)
	}
	if got := o.File(a); got != command.Unobserved {
		t.Errorf("the oldest read past the bound of 2: %v, want unobserved", got)
	}
	if o.File(b) != command.Observed || o.File(c) != command.Observed {
		t.Errorf("the two newest reads were dropped")
	}
}
