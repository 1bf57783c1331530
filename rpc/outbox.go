package rpc

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// outboxDelay bounds how long a queued notification waits for a frame to
// ride along with.
const outboxDelay = time.Millisecond

// outbox is the writing side of a connection. The connection writes whole
// frames through it, one Write each; the gate queues notifications that
// need no answer (admit/didDecide), and they go out in the same write as
// the connection's next frame, which for a check is its reply. A decision
// then costs the client one read, not two, and the server wakes no
// goroutine to tell it. With no frame following, the queue is written
// within outboxDelay.
type outbox struct {
	w io.Writer

	mu     sync.Mutex // held across the write, so frames never interleave
	queued []byte     // whole frames, in the order they were queued
	timer  *time.Timer
	armed  bool  // the timer will fire; it is left running across writes
	err    error // the first write error; later writes return it
}

func newOutbox(w io.Writer) *outbox {
	o := &outbox{w: w}
	o.timer = time.AfterFunc(time.Hour, o.flush)
	o.timer.Stop()
	return o
}

// Write writes frame p after whatever is queued, with one write.
func (o *outbox) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	if len(o.queued) == 0 {
		n, err := o.w.Write(p)
		o.err = err
		return n, err
	}
	o.queued = append(o.queued, p...)
	err := o.writeQueued()
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// notify queues a JSON-RPC notification; params is its JSON.
func (o *outbox) notify(method string, params []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return // the connection is gone, and the notification with it
	}
	if !o.armed {
		o.armed = true
		o.timer.Reset(outboxDelay)
	}
	body := len(`{"jsonrpc":"2.0","method":"","params":}`) + len(method) + len(params)
	o.queued = append(o.queued, "Content-Length: "...)
	o.queued = strconv.AppendInt(o.queued, int64(body), 10)
	o.queued = append(o.queued, "\r\n\r\n"+`{"jsonrpc":"2.0","method":"`...)
	o.queued = append(o.queued, method...) // method names are plain ASCII
	o.queued = append(o.queued, `","params":`...)
	o.queued = append(o.queued, params...)
	o.queued = append(o.queued, '}')
}

// flush writes the queue when no frame came to carry it.
func (o *outbox) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.armed = false
	if o.err == nil && len(o.queued) > 0 {
		_ = o.writeQueued()
	}
}

// writeQueued writes the queue and empties it. o.mu is held.
func (o *outbox) writeQueued() error {
	_, err := o.w.Write(o.queued)
	o.err = err
	if cap(o.queued) > 1<<20 {
		o.queued = nil // do not keep a burst's buffer
	} else {
		o.queued = o.queued[:0]
	}
	return err
}

// close stops the timer; what is queued is dropped with the connection.
func (o *outbox) close() {
	o.timer.Stop()
}
