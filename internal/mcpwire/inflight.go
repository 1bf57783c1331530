package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
)

// Inflight are the requests being answered, each on a goroutine of its
// own, by key: a sender's notifications/cancelled ends one, and the end
// of a session waits for them all. The zero value is ready.
type Inflight struct {
	mu     sync.Mutex
	cancel map[string]context.CancelFunc
	wg     sync.WaitGroup
}

// Go answers the request under key on a goroutine of its own, with a
// context Cancel(key) ends.
func (f *Inflight) Go(ctx context.Context, key string, answer func(context.Context)) {
	ctx, cancel := context.WithCancel(ctx)
	f.mu.Lock()
	if f.cancel == nil {
		f.cancel = map[string]context.CancelFunc{}
	}
	f.cancel[key] = cancel
	f.mu.Unlock()
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer func() {
			f.mu.Lock()
			delete(f.cancel, key)
			f.mu.Unlock()
			cancel()
		}()
		answer(ctx)
	}()
}

// Cancel ends the context of the request under key, if it is still
// being answered.
func (f *Inflight) Cancel(key string) {
	f.mu.Lock()
	stop := f.cancel[key]
	f.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Wait returns when every request being answered has been.
func (f *Inflight) Wait() { f.wg.Wait() }

// CancelledID is the requestId a notifications/cancelled names, or false.
func CancelledID(params json.RawMessage) (json.RawMessage, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return nil, false
	}
	return p.RequestID, true
}

// IDKey is a JSON-RPC id as a key: compacted, so that the id of a request
// and the one a cancellation names are the same key however spaced.
func IDKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}
