package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// writes records each Write as one element.
type writes struct {
	mu   sync.Mutex
	got  [][]byte
	kick chan struct{}
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.got = append(w.got, bytes.Clone(p))
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *writes) all() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got
}

// A queued notification rides with the next frame: one write, the
// notification first, both frames whole for an LSP reader.
func TestOutboxNotificationRidesWithTheReply(t *testing.T) {
	w := &writes{kick: make(chan struct{}, 1)}
	o := newOutbox(w)
	defer o.close()
	o.notify("admit/didDecide", []byte(`{"id":"a-1","verdict":"allow"}`))
	reply := []byte("Content-Length: 36\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`)
	if _, err := o.Write(reply); err != nil {
		t.Fatal(err)
	}
	got := w.all()
	if len(got) != 1 {
		t.Fatalf("%d writes, want 1: %q", len(got), got)
	}
	s := jsonrpc2.NewHeaderStream(readCloser{bytes.NewReader(got[0])})
	m, _, err := s.Read(context.Background())
	if req, ok := m.(*jsonrpc2.Notification); err != nil || !ok || req.Method() != "admit/didDecide" || string(req.Params()) != `{"id":"a-1","verdict":"allow"}` {
		t.Fatalf("first frame = %#v, %v", m, err)
	}
	m, _, err = s.Read(context.Background())
	if _, ok := m.(*jsonrpc2.Response); err != nil || !ok {
		t.Fatalf("second frame = %#v, %v", m, err)
	}
}

// With no frame to ride with, the queue goes out on its own, soon.
func TestOutboxFlushesAlone(t *testing.T) {
	w := &writes{kick: make(chan struct{}, 1)}
	o := newOutbox(w)
	defer o.close()
	o.notify("admit/didDecide", []byte(`{}`))
	o.notify("admit/didDecide", []byte(`{"n":2}`))
	select {
	case <-w.kick:
	case <-time.After(5 * time.Second):
		t.Fatal("the queued notifications were never written")
	}
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	want := frame(`{"jsonrpc":"2.0","method":"admit/didDecide","params":{}}`) +
		frame(`{"jsonrpc":"2.0","method":"admit/didDecide","params":{"n":2}}`)
	if got := w.all(); len(got) != 1 || string(got[0]) != want {
		t.Fatalf("writes = %q, want one %q", got, want)
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Write(p []byte) (int, error) { return len(p), nil }
func (readCloser) Close() error                { return nil }

// blockedWriter blocks every write until released.
type blockedWriter struct {
	entered chan struct{} // a write has begun
	release chan struct{}
	writes
}

func (b *blockedWriter) Write(p []byte) (int, error) {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-b.release
	return b.writes.Write(p)
}

// A write stuck on a client that does not read holds up nobody who only
// queues a notification, and what was queued goes out after it, whole.
func TestOutboxQueueingDoesNotWaitForAWrite(t *testing.T) {
	w := &blockedWriter{entered: make(chan struct{}, 1), release: make(chan struct{}), writes: writes{kick: make(chan struct{}, 16)}}
	o := newOutbox(w)
	defer o.close()
	reply := []byte("Content-Length: 2\r\n\r\n{}")
	go o.Write(reply)
	<-w.entered
	queued := make(chan struct{})
	go func() {
		o.notify("admit/didDecide", []byte(`{"n":1}`))
		close(queued)
	}()
	select {
	case <-queued:
	case <-time.After(5 * time.Second):
		t.Fatal("notify waited for a blocked write")
	}
	close(w.release)
	deadline := time.After(5 * time.Second)
	for {
		got := w.all()
		if len(got) == 2 {
			if string(got[0]) != string(reply) || !bytes.Contains(got[1], []byte(`"params":{"n":1}}`)) {
				t.Fatalf("writes %q", got)
			}
			return
		}
		select {
		case <-w.kick:
		case <-deadline:
			t.Fatalf("writes %q, want the reply then the notification", got)
		}
	}
}

// Notifications queued, frames written and the timer's flushes, all at
// once, reach a reader as whole frames, every one of them, each in order
// with those from the same goroutine.
func TestOutboxUnderLoad(t *testing.T) {
	cli, srv := net.Pipe()
	defer cli.Close()
	o := newOutbox(srv)
	defer o.close()
	const writers, each = 4, 300
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() { // decisions: a notification, then the reply
			defer wg.Done()
			for i := range each {
				o.notify("admit/didDecide", fmt.Appendf(nil, `{"g":%d,"i":%d}`, g, i))
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, g*each+i)
				if _, err := o.Write(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)); err != nil {
					t.Error(err)
					return
				}
				if i%25 == 0 {
					// Now and then let the timer fire on a queue a
					// reply already took.
					time.Sleep(2 * outboxDelay)
				}
			}
		}()
	}
	s := jsonrpc2.NewHeaderStream(cli)
	next := make([]int, writers)
	responses := 0
	for n := 0; n < 2*writers*each; n++ {
		m, _, err := s.Read(context.Background())
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		switch m := m.(type) {
		case *jsonrpc2.Notification:
			var p struct{ G, I int }
			if err := json.Unmarshal(m.Params(), &p); err != nil || p.I != next[p.G] {
				t.Fatalf("notification %s out of order (want i %d): %v", m.Params(), next[p.G], err)
			}
			next[p.G]++
		case *jsonrpc2.Response:
			responses++
		}
	}
	wg.Wait()
	if responses != writers*each {
		t.Errorf("%d responses, want %d", responses, writers*each)
	}
}
