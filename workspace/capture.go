package workspace

import (
	"context"
	"errors"
	"os"
	"slices"
	"time"
)

// captureQuiet is how long no new event must arrive after a run before its
// changes are read: the kernel queues a file's events as the program makes
// them, and the watcher's reader takes them within microseconds, so a
// quiet window of a few debounce periods means the run's last events are
// in. Bounded by captureSettle on a workspace that never goes quiet.
const (
	captureQuiet  = 50 * time.Millisecond
	captureSettle = time.Second
)

// maxCaptured bounds the paths one capture keeps: past it the capture is
// incomplete (a lower bound), as after lost events.
const maxCaptured = 200_000

// Changes are what a capture saw change: paths added (created and still
// there), removed, and changed otherwise. Complete is false when events
// were lost or the watcher watches only part of the roots.
type Changes struct {
	Added, Removed, Changed []string
	Complete                bool
}

// Capture gathers what changed under the roots while it ran, from the
// watcher's events rather than a fingerprint of every file: on a large
// workspace a program that runs code (go test, npm install) may touch any
// of thousands of files, and walking them all twice costs more than the
// run. Start one with Watcher.Capture; Stop returns the changes.
type Capture struct {
	w      *Watcher
	cancel func()
	done   chan struct{}

	// Written by the gathering goroutine until done is closed.
	order    []string
	created  map[string]bool
	seen     map[string]bool
	complete bool
}

// Capture starts gathering changes, once the events already queued are
// in (so that a change made just before is not the run's); a goroutine
// drains the watcher's batches as they come, so that none is dropped
// while a long run goes on.
func (w *Watcher) Capture(ctx context.Context) *Capture {
	_ = w.settle(ctx)
	ch, cancel := w.Subscribe()
	c := &Capture{w: w, cancel: cancel, done: make(chan struct{}), created: map[string]bool{}, seen: map[string]bool{}, complete: true}
	go func() {
		defer close(c.done)
		for batch := range ch {
			for _, ev := range batch {
				switch {
				case ev.Op&Overflow != 0 || len(c.order) >= maxCaptured:
					c.complete = false
					continue
				case !c.seen[ev.Path]:
					c.seen[ev.Path] = true
					c.order = append(c.order, ev.Path)
				}
				if ev.Op&Create != 0 {
					c.created[ev.Path] = true
				}
			}
		}
	}()
	return c
}

// Stop waits until the watcher has processed every event the kernel gave
// it so far, stops gathering, and returns the changes: a path created and
// still there is added, one that is gone removed, any other changed.
// Complete is false when events were lost or the watcher watches only part
// of the roots: then the changes are a lower bound.
func (c *Capture) Stop(ctx context.Context) Changes {
	err := c.w.settle(ctx)
	c.cancel()
	<-c.done
	d := Changes{Complete: c.complete && err == nil && !c.w.Limited()}
	for _, p := range c.order {
		_, err := os.Lstat(p)
		gone := errors.Is(err, os.ErrNotExist)
		switch {
		case gone && c.created[p]:
			// Made and removed during the run: a temporary file.
		case gone:
			d.Removed = append(d.Removed, p)
		case c.created[p]:
			d.Added = append(d.Added, p)
		default:
			d.Changed = append(d.Changed, p)
		}
	}
	slices.Sort(d.Added)
	slices.Sort(d.Removed)
	slices.Sort(d.Changed)
	return d
}

// settle waits until no event has been received for captureQuiet (at most
// captureSettle), then runs what was received through a batch.
func (w *Watcher) settle(ctx context.Context) error {
	deadline := time.Now().Add(captureSettle)
	for {
		w.mu.Lock()
		before := w.received
		w.mu.Unlock()
		t := time.NewTimer(captureQuiet)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		w.mu.Lock()
		quiet := w.received == before
		w.mu.Unlock()
		if quiet || time.Now().After(deadline) {
			return w.Flush(ctx)
		}
	}
}
