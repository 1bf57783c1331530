package workspace

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"admit/policy/command"
)

// waitDeadline bounds every wait for an event; tests never sleep a fixed time.
const waitDeadline = 5 * time.Second

// lockedBuffer is a log sink safe to read while the watcher writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startWatcher starts a watcher over roots, closes it at cleanup, and
// checks that Close left no goroutine behind.
func startWatcher(t *testing.T, roots *Roots, opts WatchOptions) (*Watcher, *lockedBuffer) {
	t.Helper()
	before := runtime.NumGoroutine()
	logs := &lockedBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opts.Debounce == 0 {
		opts.Debounce = 10 * time.Millisecond
	}
	w, err := NewWatcher(roots, logger, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if !goroutinesBackTo(before) {
			t.Errorf("goroutines: %d before the watcher, %d after Close", before, runtime.NumGoroutine())
		}
	})
	return w, logs
}

// goroutinesBackTo polls, with a deadline, until at most n goroutines run.
func goroutinesBackTo(n int) bool {
	deadline := time.Now().Add(waitDeadline)
	for time.Now().Before(deadline) {
		if runtime.NumGoroutine() <= n {
			return true
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond) // polling a counter, not waiting for an event
	}
	return false
}

// waitEvent reads batches until one holds an event for path with op.
func waitEvent(t *testing.T, ch <-chan []Event, path string, op Op) {
	t.Helper()
	timeout := time.After(waitDeadline)
	for {
		select {
		case batch, ok := <-ch:
			if !ok {
				t.Fatalf("subscription closed while waiting for %v %s", op, path)
			}
			for _, e := range batch {
				if e.Path == path && e.Op&op != 0 {
					return
				}
			}
		case <-timeout:
			t.Fatalf("no %v event for %s within %v", op, path, waitDeadline)
		}
	}
}

func flush(t *testing.T, w *Watcher) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitDeadline)
	defer cancel()
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestWatcherNewFolders(t *testing.T) {
	root := tempRoot(t)
	mkdirAll(t, root+"/existing/sub")
	w, _ := startWatcher(t, mustRoots(t, root), WatchOptions{})
	if got := w.Watched(); !slices.Equal(got, []string{root, root + "/existing", root + "/existing/sub"}) {
		t.Fatalf("Watched = %v", got)
	}
	ch, cancel := w.Subscribe()
	defer cancel()

	// A folder created at run time, then a file inside it.
	mkdirAll(t, root+"/new")
	waitEvent(t, ch, root+"/new", Create)
	writeFile(t, root+"/new/file.txt", "x")
	waitEvent(t, ch, root+"/new/file.txt", Create)

	// mkdir -p and a file, faster than the watch can follow: the walk of
	// the new folder reports what it finds.
	writeFile(t, root+"/p/q/r/deep.txt", "x")
	waitEvent(t, ch, root+"/p/q/r/deep.txt", Create)
	flush(t, w)
	if !slices.Contains(w.Watched(), root+"/p/q/r") {
		t.Errorf("p/q/r not watched: %v", w.Watched())
	}
	writeFile(t, root+"/p/q/r/later.txt", "x")
	waitEvent(t, ch, root+"/p/q/r/later.txt", Create)

	// A removed folder is dropped.
	if err := os.RemoveAll(root + "/existing"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ch, root+"/existing", Remove)
	flush(t, w)
	for _, p := range w.Watched() {
		if within(p, root+"/existing") {
			t.Errorf("removed folder still watched: %s", p)
		}
	}

	// A folder renamed within the root is watched under its new name.
	mkdirAll(t, root+"/from/inner")
	waitEvent(t, ch, root+"/from/inner", Create)
	if err := os.Rename(root+"/from", root+"/to"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ch, root+"/to", Create)
	writeFile(t, root+"/to/inner/f", "x")
	waitEvent(t, ch, root+"/to/inner/f", Create)
	flush(t, w)
	for _, p := range w.Watched() {
		if within(p, root+"/from") {
			t.Errorf("old name still watched: %s", p)
		}
	}
}

func TestWatcherSymlinkIndex(t *testing.T) {
	root := tempRoot(t)
	out := tempRoot(t)
	mkdirAll(t, root+"/src")
	symlink(t, "src", root+"/inside-link")
	roots := mustRoots(t, root)
	w, _ := startWatcher(t, roots, WatchOptions{})
	r := NewResolver(roots)
	ch, cancel := w.Subscribe()
	defer cancel()
	if got := r.LinksOutside(root); len(got) != 0 {
		t.Fatalf("LinksOutside at start = %v", got)
	}

	// A symlink escape created after startup.
	symlink(t, out, root+"/src/escape")
	waitEvent(t, ch, root+"/src/escape", Create)
	flush(t, w)
	if links, ok := w.linksUnder(root); !ok || !slices.Contains(links, root+"/src/escape") {
		t.Fatalf("index = %v, %v", links, ok)
	}
	if got := r.LinksOutside(root + "/src"); !slices.Equal(got, []string{root + "/src/escape"}) {
		t.Errorf("LinksOutside = %v", got)
	}
	// A link inside a new folder tree, created before its watch.
	symlink(t, "/etc", root+"/a/b/c/etc")
	waitEvent(t, ch, root+"/a/b/c/etc", Create)
	flush(t, w)
	if got := r.LinksOutside(root + "/a"); !slices.Equal(got, []string{root + "/a/b/c/etc"}) {
		t.Errorf("LinksOutside(a) = %v", got)
	}
	// Removed: gone from the index.
	if err := os.Remove(root + "/src/escape"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ch, root+"/src/escape", Remove)
	flush(t, w)
	if got := r.LinksOutside(root + "/src"); len(got) != 0 {
		t.Errorf("after remove: %v", got)
	}
	// Whether a link leads outside is judged at query time: removing the
	// root that held its target makes it an escape.
	if st := w.Status(); st.Links != 2 {
		t.Errorf("Status.Links = %d, want 2", st.Links)
	}
}

func TestWatcherOverflowRescan(t *testing.T) {
	root := tempRoot(t)
	mkdirAll(t, root+"/d")
	roots := mustRoots(t, root)
	w, logs := startWatcher(t, roots, WatchOptions{})
	ch, cancel := w.Subscribe()
	defer cancel()

	// Simulate lost events: change the disk while the watcher "missed" it
	// by dropping its state, then report an overflow as fsnotify would.
	symlink(t, "/etc", root+"/d/missed-link")
	waitEvent(t, ch, root+"/d/missed-link", Create)
	flush(t, w)
	w.opMu.Lock()
	w.mu.Lock()
	clear(w.links)
	delete(w.watched, root+"/d")
	w.mu.Unlock()
	w.opMu.Unlock()
	_ = w.fsw.Remove(root + "/d")

	if w.noteError(fsnotify.ErrEventOverflow) {
		w.signal()
	}
	waitEvent(t, ch, "", Overflow)
	flush(t, w)
	if !slices.Contains(w.Watched(), root+"/d") {
		t.Errorf("rescan did not re-watch d: %v", w.Watched())
	}
	r := NewResolver(roots)
	if got := r.LinksOutside(root); !slices.Equal(got, []string{root + "/d/missed-link"}) {
		t.Errorf("after rescan LinksOutside = %v", got)
	}
	if st := w.Status(); st.Overflows != 1 {
		t.Errorf("Status = %+v", st)
	}
	if !strings.Contains(logs.String(), "overflowed") {
		t.Errorf("overflow not logged: %s", logs)
	}
	// Events keep flowing after the rescan.
	writeFile(t, root+"/d/after", "x")
	waitEvent(t, ch, root+"/d/after", Create)
}

func TestWatcherLimit(t *testing.T) {
	root := tempRoot(t)
	out := tempRoot(t)
	for _, d := range []string{"a", "b", "c", "d"} {
		mkdirAll(t, root+"/"+d)
	}
	roots := mustRoots(t, root)
	w, logs := startWatcher(t, roots, WatchOptions{MaxWatches: 2})
	if !w.Limited() || !w.Status().Limited {
		t.Fatal("Limited() = false at the watch limit")
	}
	if n := len(w.Watched()); n != 2 {
		t.Errorf("watching %d folders, want 2", n)
	}
	ch, cancel := w.Subscribe()
	defer cancel()
	// More folders past the limit: still limited, logged once.
	mkdirAll(t, root+"/e")
	waitEvent(t, ch, root+"/e", Create)
	flush(t, w)
	if c := strings.Count(logs.String(), "limit on file watches"); c != 1 {
		t.Errorf("limit logged %d times, want once:\n%s", c, logs)
	}
	// Decisions stay correct: a link escape in an unwatched folder is
	// found by walking, and observations check state at decide time.
	r := NewResolver(roots)
	if _, ok := w.linksUnder(root); ok {
		t.Error("index used while limited")
	}
	symlink(t, out, root+"/d/escape")
	if got := r.LinksOutside(root); !slices.Equal(got, []string{root + "/d/escape"}) {
		t.Errorf("LinksOutside while limited = %v", got)
	}
	p := root + "/d/file"
	writeFile(t, p, "one")
	o := NewObservations(0)
	if err := o.RecordFile(p); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, "two!")
	if got := o.File(p); got != command.Stale {
		t.Errorf("File in unwatched folder = %v, want Stale", got)
	}
}

func TestWatcherRootsAtRunTime(t *testing.T) {
	a := tempRoot(t)
	b := tempRoot(t)
	mkdirAll(t, b+"/sub")
	roots := mustRoots(t, a)
	w, _ := startWatcher(t, roots, WatchOptions{})
	ch, cancel := w.Subscribe()
	defer cancel()
	got, err := w.AddRoot(b)
	if err != nil || got != b {
		t.Fatalf("AddRoot = %q %v", got, err)
	}
	writeFile(t, b+"/sub/f", "x")
	waitEvent(t, ch, b+"/sub/f", Create)
	if _, err := w.AddRoot("relative"); err == nil {
		t.Error("AddRoot(relative) succeeded")
	}
	if got := w.RemoveRoot(b); got != b {
		t.Errorf("RemoveRoot = %q", got)
	}
	for _, p := range w.Watched() {
		if within(p, b) {
			t.Errorf("removed root still watched: %s", p)
		}
	}
	if roots.Contains(b) {
		t.Error("roots still hold b")
	}
}

func TestWatcherOnChangeMarksStale(t *testing.T) {
	root := tempRoot(t)
	p := root + "/f.txt"
	writeFile(t, p, "v1")
	w, _ := startWatcher(t, mustRoots(t, root), WatchOptions{})
	o := NewObservations(0)
	if err := o.RecordFile(p); err != nil {
		t.Fatal(err)
	}
	changed := make(chan []string, 16)
	unhook := w.OnChange(func(paths []string) {
		o.MarkChanged(paths...)
		changed <- paths
	})
	defer unhook()
	writeFile(t, p, "v2")
	timeout := time.After(waitDeadline)
	for seen := false; !seen; {
		select {
		case paths := <-changed:
			seen = slices.Contains(paths, p)
		case <-timeout:
			t.Fatal("no change hook call")
		}
	}
	// Stale sticks even after the content is put back.
	writeFile(t, p, "v1")
	if got := o.File(p); got != command.Stale {
		t.Errorf("File = %v, want Stale", got)
	}
}

func TestWatcherCloseAndSubscribers(t *testing.T) {
	root := tempRoot(t)
	before := runtime.NumGoroutine()
	w, err := NewWatcher(mustRoots(t, root), nil, WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := w.Subscribe()
	ch2, cancel2 := w.Subscribe()
	cancel2()
	if _, ok := <-ch2; ok {
		t.Error("cancelled subscription not closed")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, ok := <-ch; ok {
		t.Error("subscription not closed by Close")
	}
	if ch3, _ := w.Subscribe(); ch3 != nil {
		if _, ok := <-ch3; ok {
			t.Error("Subscribe after Close returned an open channel")
		}
	}
	if !goroutinesBackTo(before) {
		t.Errorf("goroutines: %d before, %d after Close", before, runtime.NumGoroutine())
	}
	if !w.Status().Closed {
		t.Error("Status.Closed = false")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := w.Flush(ctx); err == nil {
		t.Error("Flush after Close succeeded")
	}
}

func TestWatcherSlowSubscriberGetsOverflow(t *testing.T) {
	root := tempRoot(t)
	w, _ := startWatcher(t, mustRoots(t, root), WatchOptions{SubscriberBuffer: 1})
	ch, cancel := w.Subscribe()
	defer cancel()
	// Three batches, none read: the second and third are dropped.
	for _, n := range []string{"a", "b", "c"} {
		w.publish([]Event{{Path: root + "/" + n, Op: Create}})
	}
	if batch := <-ch; batch[0].Path != root+"/a" {
		t.Errorf("first batch = %v", batch)
	}
	w.publish([]Event{{Path: root + "/d", Op: Create}})
	batch := <-ch
	if len(batch) == 0 || batch[0].Op != Overflow {
		t.Errorf("batch after loss = %v, want Overflow first", batch)
	}
}
