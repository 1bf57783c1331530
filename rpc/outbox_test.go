package rpc

import (
	"bytes"
	"context"
	"fmt"
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
