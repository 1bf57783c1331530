package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Op is what happened to a path, as a bit set.
type Op uint8

const (
	Create Op = 1 << iota
	Write
	Remove
	Rename // the path was moved away; the new name comes as a Create
	Chmod
	// Overflow means events were lost (the kernel queue overflowed, or a
	// subscriber fell behind): the watcher rescanned, and a subscriber
	// must treat its picture of the changes as incomplete. Its Path is "".
	Overflow
)

func (o Op) String() string {
	names := []string{"create", "write", "remove", "rename", "chmod", "overflow"}
	s := ""
	for i, n := range names {
		if o&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	return s
}

// Event is one change under the roots. Path is absolute and clean. Files
// found in a folder created after the watch began come as synthetic Create
// events, since they may have appeared before the folder was watched.
type Event struct {
	Path string
	Op   Op
}

// WatchOptions tunes a Watcher; the zero value is the default.
type WatchOptions struct {
	// Debounce is the quiet window over which events are coalesced into
	// one batch (default 30 ms: long enough to gather a file save's
	// create, write and chmod, short enough that staleness arrives before
	// a person can ask for the next action).
	Debounce time.Duration
	// MaxDelay bounds how long a batch waits when events never stop
	// (default 250 ms).
	MaxDelay time.Duration
	// MaxPending bounds events held between batches (default 100,000);
	// past it they are dropped and handled as a queue overflow (rescan).
	MaxPending int
	// SubscriberBuffer is how many batches a subscriber's channel holds
	// (default 64); a subscriber that falls behind loses batches and gets
	// an Overflow event in the next one it receives.
	SubscriberBuffer int
	// MaxWatches is a test hook: when > 0, adding a watch past this many
	// fails as if the kernel had said ENOSPC (the real limit,
	// fs.inotify.max_user_watches, is large).
	MaxWatches int
}

func (o WatchOptions) withDefaults() WatchOptions {
	if o.Debounce <= 0 {
		o.Debounce = 30 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 250 * time.Millisecond
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 100_000
	}
	if o.SubscriberBuffer <= 0 {
		o.SubscriberBuffer = 64
	}
	return o
}

// WatchStatus is the watcher's health, for admit/state.
type WatchStatus struct {
	Watching  int  `json:"watching"`  // folders watched
	Links     int  `json:"links"`     // symlinks indexed under the roots
	Limited   bool `json:"limited"`   // the system's watch limit was reached: some folders are not watched
	Overflows int  `json:"overflows"` // event queue overflows, each followed by a rescan
	Closed    bool `json:"closed"`
}

// ErrClosed is returned by Watcher methods after Close.
var ErrClosed = errors.New("workspace: watcher closed")

// Watcher watches every folder under the roots with fsnotify, which is not
// recursive: it adds each folder, adds new ones as they appear (walking
// them, since files may be created before the watch is in place) and drops
// removed ones. Nothing inside the roots is skipped, .git included: a
// repository adds a few hundred folders at most, and a symlink planted
// anywhere must reach the index.
//
// Two goroutines, both owned by the Watcher and stopped by Close: drain
// reads fsnotify's Events and Errors and only appends to a pending list;
// after a quiet window (WatchOptions.Debounce) it wakes work, which
// updates the watch set and the symlink index and hands the batch to
// subscribers and change hooks. A queue overflow triggers a rescan.
//
// When the system's watch limit is reached the Watcher logs it once, sets
// Limited, and keeps going with the folders it has; decisions stay
// correct because Observations checks state at decide time and
// LinksOutside walks when the index is incomplete.
type Watcher struct {
	roots *Roots
	log   *slog.Logger
	opts  WatchOptions
	fsw   *fsnotify.Watcher

	done      chan struct{} // closed by Close: every goroutine returns
	kick      chan struct{} // capacity 1: drain (or Flush) tells work a batch is ready
	wg        sync.WaitGroup
	closeOnce sync.Once

	// opMu serializes changes to the watch set and the index: batches,
	// rescans, AddRoot and RemoveRoot. It is taken before mu, never after.
	opMu sync.Mutex

	// mu guards every field below.
	mu        sync.Mutex
	pending   []fsnotify.Event
	overflow  bool          // events were lost since the last batch: rescan
	received  uint64        // events drain took from fsnotify
	processed uint64        // events work finished (a value received had)
	progress  chan struct{} // closed and replaced each time work finishes a batch
	watched   map[string]struct{}
	links     map[string]struct{} // every symlink under the roots, wherever it points
	limited   bool
	limitLog  bool // the watch limit was logged (once per Watcher)
	overflows int
	subs      map[*subscriber]struct{}
	hooks     map[int]func([]string)
	nextHook  int
	closed    bool
}

type subscriber struct {
	ch   chan []Event
	lost bool // a batch was dropped: the next one starts with Overflow
}

// NewWatcher watches every folder under roots and returns once the first
// scan is done. logger may be nil.
func NewWatcher(roots *Roots, logger *slog.Logger, opts WatchOptions) (*Watcher, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("workspace: start watcher: %w", err)
	}
	w := &Watcher{
		roots:    roots,
		log:      logger,
		opts:     opts.withDefaults(),
		fsw:      fsw,
		done:     make(chan struct{}),
		kick:     make(chan struct{}, 1),
		progress: make(chan struct{}),
		watched:  make(map[string]struct{}),
		links:    make(map[string]struct{}),
		subs:     make(map[*subscriber]struct{}),
		hooks:    make(map[int]func([]string)),
	}
	w.opMu.Lock()
	for _, r := range roots.List() {
		w.addTree(r, nil)
	}
	w.opMu.Unlock()
	w.wg.Add(2)
	go w.drain()
	go w.work()
	return w, nil
}

// Close stops both goroutines, closes fsnotify and every subscriber's
// channel, and waits for all of it. It is safe to call more than once.
func (w *Watcher) Close() error {
	var err error
	w.closeOnce.Do(func() {
		close(w.done)
		err = w.fsw.Close()
		w.wg.Wait()
		w.mu.Lock()
		w.closed = true
		for s := range w.subs {
			close(s.ch)
		}
		clear(w.subs)
		w.mu.Unlock()
	})
	return err
}

// drain is the goroutine that empties fsnotify's channels. It never does
// slow work: it appends, arms the debounce timer, and wakes work when the
// window is quiet (or MaxDelay has passed since the batch began).
func (w *Watcher) drain() {
	defer w.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var first time.Time // when the batch being gathered began
	armed := false
	for {
		select {
		case <-w.done:
			timer.Stop()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.enqueue(ev)
			now := time.Now()
			if !armed {
				first, armed = now, true
			}
			wait := min(w.opts.Debounce, max(w.opts.MaxDelay-now.Sub(first), 0))
			timer.Reset(wait)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if w.noteError(err) {
				armed = false
				timer.Stop()
				w.signal()
			}
		case <-timer.C:
			armed = false
			w.signal()
		}
	}
}

// enqueue records one fsnotify event for the next batch.
func (w *Watcher) enqueue(ev fsnotify.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.received++
	if w.overflow {
		return // a rescan is due anyway
	}
	if len(w.pending) >= w.opts.MaxPending {
		w.pending = nil
		w.overflow = true
		w.overflows++
		return
	}
	w.pending = append(w.pending, ev)
}

// noteError handles an error from fsnotify and reports whether a batch
// should run now. An overflow marks a rescan; others are logged.
func (w *Watcher) noteError(err error) bool {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.mu.Lock()
		w.overflow = true
		w.pending = nil
		w.overflows++
		w.mu.Unlock()
		w.log.Warn("workspace: file event queue overflowed; rescanning the roots")
		return true
	}
	w.log.Warn("workspace: watcher error", "err", err)
	return false
}

// signal wakes work without blocking.
func (w *Watcher) signal() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// work is the goroutine that does the slow part of each batch.
func (w *Watcher) work() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case <-w.kick:
			w.runBatch()
		}
	}
}

// runBatch takes the pending events, applies them, and publishes them.
func (w *Watcher) runBatch() {
	w.opMu.Lock()
	w.mu.Lock()
	batch, over, upto := w.pending, w.overflow, w.received
	w.pending, w.overflow = nil, false
	w.mu.Unlock()

	var evs []Event
	if over {
		w.rescan()
		evs = append(evs, Event{Op: Overflow})
	}
	evs = append(evs, w.apply(batch)...)
	w.opMu.Unlock()

	if len(evs) > 0 {
		w.publish(evs)
	}
	w.mu.Lock()
	if upto > w.processed {
		w.processed = upto
	}
	close(w.progress)
	w.progress = make(chan struct{})
	w.mu.Unlock()
}

// apply coalesces a batch by path, keeps the watch set and the index up to
// date, and returns the events to publish. Removals are applied before
// creations, so a folder renamed within the roots loses the watches under
// its old name before its new name is walked. Called with opMu held.
func (w *Watcher) apply(batch []fsnotify.Event) []Event {
	var (
		order []string
		ops   = make(map[string]Op, len(batch))
	)
	for _, e := range batch {
		if e.Name == "" {
			continue
		}
		p := filepath.Clean(e.Name)
		if _, seen := ops[p]; !seen {
			order = append(order, p)
		}
		ops[p] |= convertOp(e.Op)
	}
	for _, p := range order {
		if ops[p]&(Remove|Rename) != 0 {
			w.dropTree(p, func(string) bool { return true })
		}
	}
	var synth []Event
	for _, p := range order {
		if !w.roots.Contains(p) {
			continue // a root removed while its events waited
		}
		fi, err := os.Lstat(p)
		w.mu.Lock()
		switch {
		case err != nil:
			delete(w.links, p)
		case fi.Mode()&fs.ModeSymlink != 0:
			w.links[p] = struct{}{}
		default:
			delete(w.links, p)
		}
		_, isWatched := w.watched[p]
		w.mu.Unlock()
		if err == nil && fi.IsDir() && !isWatched {
			w.addTree(p, &synth)
		}
	}
	evs := make([]Event, 0, len(order)+len(synth))
	for _, p := range order {
		if ops[p] != 0 {
			evs = append(evs, Event{Path: p, Op: ops[p]})
		}
	}
	return append(evs, synth...)
}

func convertOp(op fsnotify.Op) Op {
	var o Op
	if op.Has(fsnotify.Create) {
		o |= Create
	}
	if op.Has(fsnotify.Write) {
		o |= Write
	}
	if op.Has(fsnotify.Remove) {
		o |= Remove
	}
	if op.Has(fsnotify.Rename) {
		o |= Rename
	}
	if op.Has(fsnotify.Chmod) {
		o |= Chmod
	}
	return o
}

// addTree watches dir and every folder under it that is not yet watched,
// and indexes the symlinks it meets. When synth is not nil, every entry
// found under dir becomes a Create event in it. Called with opMu held.
func (w *Watcher) addTree(dir string, synth *[]Event) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		select {
		case <-w.done:
			return fs.SkipAll
		default:
		}
		if err != nil {
			return nil // vanished or unreadable: nothing to watch there
		}
		if synth != nil && p != dir {
			*synth = append(*synth, Event{Path: p, Op: Create})
		}
		if d.Type()&fs.ModeSymlink != 0 {
			w.mu.Lock()
			w.links[p] = struct{}{}
			w.mu.Unlock()
			return nil
		}
		if d.IsDir() {
			w.addWatch(p)
		}
		return nil
	})
}

// addWatch adds one folder's watch. Called with opMu held.
func (w *Watcher) addWatch(p string) {
	w.mu.Lock()
	_, have := w.watched[p]
	n := len(w.watched)
	w.mu.Unlock()
	if have {
		return
	}
	var err error
	if w.opts.MaxWatches > 0 && n >= w.opts.MaxWatches {
		err = syscall.ENOSPC
	} else {
		err = w.fsw.Add(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		w.watched[p] = struct{}{}
	case errors.Is(err, syscall.ENOSPC):
		w.limited = true
		if !w.limitLog {
			w.limitLog = true
			w.log.Warn("workspace: the system's limit on file watches is reached; folders past it are not watched, decisions stay correct but staleness and symlink changes there are found only at decide time (raise fs.inotify.max_user_watches)",
				"watching", len(w.watched), "folder", p)
		}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, fsnotify.ErrClosed):
	default:
		w.log.Debug("workspace: cannot watch folder", "folder", p, "err", err)
	}
}

// dropTree forgets p and everything under it that drop accepts: watches
// and index entries. Called with opMu held.
func (w *Watcher) dropTree(p string, drop func(string) bool) {
	w.mu.Lock()
	var gone []string
	_, wasDir := w.watched[p]
	if wasDir {
		for q := range w.watched {
			if within(q, p) && drop(q) {
				gone = append(gone, q)
				delete(w.watched, q)
			}
		}
		for q := range w.links {
			if within(q, p) && drop(q) {
				delete(w.links, q)
			}
		}
	} else if drop(p) {
		delete(w.links, p)
	}
	w.mu.Unlock()
	for _, q := range gone {
		// The kernel drops the watch of a removed folder itself; an
		// error here only says so.
		_ = w.fsw.Remove(q)
	}
}

// rescan brings the watch set and the index back in line with the disk
// after events were lost: it drops folders that are gone, watches every
// folder under the roots, and rebuilds the symlink index. Limited is
// cleared when every folder could be watched. Called with opMu held.
func (w *Watcher) rescan() {
	w.mu.Lock()
	var gone []string
	for q := range w.watched {
		if fi, err := os.Lstat(q); err != nil || !fi.IsDir() || !w.roots.Contains(q) {
			gone = append(gone, q)
			delete(w.watched, q)
		}
	}
	clear(w.links)
	w.limited = false
	w.mu.Unlock()
	for _, q := range gone {
		_ = w.fsw.Remove(q)
	}
	for _, r := range w.roots.List() {
		w.addTree(r, nil)
	}
}

// AddRoot adds dir to the roots and watches it. It returns the root as
// stored (symlink-resolved).
func (w *Watcher) AddRoot(dir string) (string, error) {
	c, err := w.roots.Add(dir)
	if err != nil {
		return "", err
	}
	w.opMu.Lock()
	defer w.opMu.Unlock()
	if w.isClosed() {
		return c, ErrClosed
	}
	w.addTree(c, nil)
	return c, nil
}

// RemoveRoot removes dir from the roots and drops the watches and index
// entries no other root still covers. It returns the stored form of the
// root removed, or "".
func (w *Watcher) RemoveRoot(dir string) string {
	c := w.roots.Remove(dir)
	if c == "" {
		return ""
	}
	w.opMu.Lock()
	defer w.opMu.Unlock()
	w.mu.Lock()
	var gone []string
	for q := range w.watched {
		if within(q, c) && !w.roots.Contains(q) {
			gone = append(gone, q)
			delete(w.watched, q)
		}
	}
	for q := range w.links {
		if within(q, c) && !w.roots.Contains(q) {
			delete(w.links, q)
		}
	}
	w.mu.Unlock()
	for _, q := range gone {
		_ = w.fsw.Remove(q)
	}
	return c
}

func (w *Watcher) isClosed() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// publish hands a batch to every subscriber without blocking, then to the
// change hooks (in the work goroutine: hooks must be quick).
func (w *Watcher) publish(evs []Event) {
	w.mu.Lock()
	for s := range w.subs {
		batch := evs
		if s.lost {
			batch = append([]Event{{Op: Overflow}}, evs...)
		}
		select {
		case s.ch <- batch:
			s.lost = false
		default:
			s.lost = true
		}
	}
	hooks := make([]func([]string), 0, len(w.hooks))
	for _, h := range w.hooks {
		hooks = append(hooks, h)
	}
	w.mu.Unlock()
	if len(hooks) == 0 {
		return
	}
	paths := make([]string, 0, len(evs))
	for _, e := range evs {
		if e.Path != "" {
			paths = append(paths, e.Path)
		}
	}
	if len(paths) == 0 {
		return
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	for _, h := range hooks {
		h(paths)
	}
}

// Subscribe returns a channel that receives every batch of events from
// now on, and a function that ends the subscription and closes the
// channel. A subscriber that falls behind loses batches (the watcher never
// blocks on it) and then receives an Overflow event first. Close closes
// every subscriber's channel.
func (w *Watcher) Subscribe() (<-chan []Event, func()) {
	s := &subscriber{ch: make(chan []Event, w.opts.SubscriberBuffer)}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		close(s.ch)
		return s.ch, func() {}
	}
	w.subs[s] = struct{}{}
	return s.ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if _, ok := w.subs[s]; ok {
			delete(w.subs, s)
			close(s.ch)
		}
	}
}

// OnChange registers fn to be called with the sorted paths of each batch
// (the server marks observations stale with it). fn runs on the watcher's
// work goroutine and must return quickly (and must not call Flush, which
// waits for that goroutine). It returns a function that unregisters fn.
func (w *Watcher) OnChange(fn func(paths []string)) func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := w.nextHook
	w.nextHook++
	w.hooks[id] = fn
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.hooks, id)
	}
}

// Flush runs the events received so far through a batch now, without
// waiting for the quiet window, and returns when they are processed.
// Events still in the kernel's queue are not covered.
func (w *Watcher) Flush(ctx context.Context) error {
	if w.isClosed() {
		return ErrClosed
	}
	w.mu.Lock()
	target := w.received
	w.mu.Unlock()
	for {
		w.mu.Lock()
		done, ch := w.processed >= target && !w.overflow, w.progress
		w.mu.Unlock()
		if done {
			return nil
		}
		w.signal()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-w.done:
			return ErrClosed
		}
	}
}

// Limited reports whether the system's watch limit was reached, so some
// folders under the roots are not watched.
func (w *Watcher) Limited() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limited
}

// Status returns the watcher's health.
func (w *Watcher) Status() WatchStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	return WatchStatus{
		Watching:  len(w.watched),
		Links:     len(w.links),
		Limited:   w.limited,
		Overflows: w.overflows,
		Closed:    w.closed || w.isClosed(),
	}
}

// Token is where the watcher's event stream stands: equal tokens, with
// Vouch sure at both, mean no event for the vouched paths in between.
type Token struct{ received, processed, overflows uint64 }

// Vouch returns the stream's token and whether the watcher is sure to see
// any change to the files at paths from now on: inotify (which reports
// every write in a watched folder), nothing lost or waiting for a batch,
// every folder watched, the folder above each path's folder watched (so
// the folder's creation is seen), and neither the file nor its folder a
// symlink (whose target the watcher does not follow). An event the
// kernel holds but drain has not yet read is not seen: a caller that
// skips a stat on the token trusts that window.
func (w *Watcher) Vouch(paths []string) (Token, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	tok := Token{w.received, w.processed, uint64(w.overflows)}
	if runtime.GOOS != "linux" || w.closed || w.limited || w.overflow || w.received != w.processed {
		return tok, false
	}
	for _, p := range paths {
		dir := filepath.Dir(p)
		_, aboveWatched := w.watched[filepath.Dir(dir)]
		_, fileLink := w.links[p]
		_, dirLink := w.links[dir]
		if !aboveWatched || fileLink || dirLink {
			return tok, false
		}
	}
	return tok, true
}

// Watched returns the folders watched, sorted.
func (w *Watcher) Watched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.watched))
	for p := range w.watched {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// linksUnder returns the indexed symlinks under dir when the index can be
// trusted for it: the watcher runs, is not limited, has no event waiting
// to be applied, and dir lies in a root. w may be nil.
//
// The resolver does not use it: an event still in the kernel's queue, not
// yet read, would leave a link made a moment ago out of the index, and a
// decision must not depend on the watcher. The index feeds the state's
// link count.
func (w *Watcher) linksUnder(dir string) ([]string, bool) {
	if w == nil || !w.roots.Contains(dir) {
		return nil, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.isClosed() || w.limited || w.overflow || len(w.pending) > 0 || w.processed != w.received {
		return nil, false
	}
	var out []string
	for l := range w.links {
		if within(l, dir) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out, true
}
