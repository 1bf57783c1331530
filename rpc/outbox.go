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

// outboxMax bounds the queue: past it, queueing waits for the write, so a
// client that stops reading holds the server back rather than grow it.
const outboxMax = 1 << 20

// outbox is the writing side of a connection. The connection writes whole
// frames through it, one Write each; the gate queues notifications that
// need no answer (admit/didDecide), and they go out in the same write as
// the connection's next frame, which for a check is its reply. A decision
// then costs the client one read, not two, and the server wakes no
// goroutine to tell it. With no frame following, the queue is written
// within outboxDelay. Queueing never waits for a write in progress (up to
// outboxMax), so a slow client does not hold up decisions made for others.
type outbox struct {
	w io.Writer

	wmu sync.Mutex // held across each write, so frames never interleave

	mu     sync.Mutex // guards the fields below; never held across a write
	queued []byte     // whole frames, in the order they were queued
	spare  []byte     // the last written queue, reused
	armed  bool       // the timer will fire; it is left running across writes
	err    error      // the first write error; later writes return it
	timer  *time.Timer
}

func newOutbox(w io.Writer) *outbox {
	o := &outbox{w: w}
	o.timer = time.AfterFunc(time.Hour, func() { o.write(nil, true) })
	o.timer.Stop()
	return o
}

// Write writes frame p after whatever is queued, with one write.
func (o *outbox) Write(p []byte) (int, error) {
	if err := o.write(p, false); err != nil {
		return 0, err
	}
	return len(p), nil
}

// write writes the queue followed by p. fired is true for the timer's
// call, which disarms it.
func (o *outbox) write(p []byte, fired bool) error {
	o.wmu.Lock()
	defer o.wmu.Unlock()
	o.mu.Lock()
	if fired {
		o.armed = false
	}
	if o.err != nil || len(o.queued) == 0 && len(p) == 0 {
		err := o.err
		o.mu.Unlock()
		return err
	}
	// The queue is written from here on while notify fills the spare:
	// the two never share an array.
	q := o.queued
	o.queued, o.spare = o.spare[:0], nil
	o.mu.Unlock()
	var err error
	if len(q) == 0 {
		_, err = o.w.Write(p)
	} else {
		q = append(q, p...)
		_, err = o.w.Write(q)
	}
	o.mu.Lock()
	if err != nil && o.err == nil {
		o.err = err
	}
	if cap(q) <= outboxMax {
		o.spare = q[:0]
	}
	o.mu.Unlock()
	return err
}

// notify queues a JSON-RPC notification; params is its JSON.
func (o *outbox) notify(method string, params []byte) {
	o.mu.Lock()
	if o.err != nil {
		o.mu.Unlock()
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
	full := len(o.queued) > outboxMax
	o.mu.Unlock()
	if full {
		_ = o.write(nil, false)
	}
}

// close stops the timer; what is queued is dropped with the connection.
func (o *outbox) close() {
	o.timer.Stop()
}
