package rpc

import (
	"context"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"admit/gate"
)

// A call is handled on the connection's read loop until it has to wait:
// for a person, for the disk, for a program. Then it releases the loop
// (jsonrpc2.Async), so the calls behind it are read and run meanwhile, and
// from then on a $/cancelRequest for it cancels its context. A call that
// never waits, such as most checks, costs the server no goroutine and no
// fresh stack.

// releaser releases one call from the read loop, once.
type releaser struct {
	calls *calls
	id    jsonrpc2.ID
	ctx   context.Context // the request's context, as the handler got it

	released context.Context // nil until release
	cancel   context.CancelFunc
}

// release releases the call from the read loop, once, and returns the
// context it goes on in; the caller is about to wait. The gate calls it
// (gate.WithWait) only when a decision has to wait.
func (r *releaser) release() context.Context {
	if r.released == nil {
		jsonrpc2.Async(r.ctx)
		// After Async the request is never recycled, so a context
		// derived from it may outlive this frame.
		r.released, r.cancel = context.WithCancel(r.ctx)
		r.calls.add(r.id, r.cancel)
	}
	return r.released
}

// done forgets the call once its handler returned.
func (r *releaser) done() {
	if r.released != nil {
		r.calls.remove(r.id)
		r.cancel()
	}
}

// calls are the released calls of one connection, by id, for
// $/cancelRequest.
type calls struct {
	mu     sync.Mutex
	cancel map[jsonrpc2.ID]context.CancelFunc
}

func (c *calls) add(id jsonrpc2.ID, cancel context.CancelFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel == nil {
		c.cancel = make(map[jsonrpc2.ID]context.CancelFunc)
	}
	c.cancel[id] = cancel
}

func (c *calls) remove(id jsonrpc2.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.cancel, id)
}

// cancelRequest handles $/cancelRequest. A call still on the read loop
// cannot be named by it: the loop reads the notification only after that
// call has been answered.
func (c *calls) cancelRequest(raw []byte) error {
	var p protocol.CancelParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		return &gate.ParamError{Field: "id", Msg: err.Error()}
	}
	var id jsonrpc2.ID
	switch v := p.ID.(type) {
	case protocol.Integer:
		id = jsonrpc2.NewNumberID(int64(v))
	case protocol.String:
		id = jsonrpc2.NewStringID(string(v))
	default:
		return &gate.ParamError{Field: "id", Msg: "must be a number or a string"}
	}
	c.mu.Lock()
	cancel := c.cancel[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}
