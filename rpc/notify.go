package rpc

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// stateInterval is the least time between two admit/didChangeState
// notifications: a burst of decisions makes one status-bar update, not
// thousands, and a person still sees counts move within a glance.
const stateInterval = 200 * time.Millisecond

// stateNotifier coalesces state changes into admit/didChangeState.
type stateNotifier struct {
	conn   jsonrpc2.Conn
	log    *slog.Logger
	source func() State
	kick   chan struct{}
	stop   chan struct{}
	wg     sync.WaitGroup
}

func newStateNotifier(conn jsonrpc2.Conn, log *slog.Logger) *stateNotifier {
	n := &stateNotifier{conn: conn, log: log, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	n.wg.Add(1)
	go n.loop()
	return n
}

// changed marks the state dirty; it never blocks.
func (n *stateNotifier) changed() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

func (n *stateNotifier) loop() {
	defer n.wg.Done()
	for {
		select {
		case <-n.stop:
			return
		case <-n.kick:
		}
		if n.source != nil {
			if err := n.conn.Notify(context.Background(), "admit/didChangeState", n.source()); err != nil {
				n.log.Debug("didChangeState not sent", "err", err)
			}
		}
		select {
		case <-n.stop:
			return
		case <-time.After(stateInterval):
		}
	}
}

func (n *stateNotifier) close() {
	close(n.stop)
	n.wg.Wait()
}

// notifier implements Notifier over the connection. admit/didDecide is
// queued in the outbox and goes out with the decision's reply.
type notifier struct {
	out   *outbox
	state *stateNotifier
}

func (n *notifier) DidDecide(v json.RawMessage) { n.out.notify("admit/didDecide", v) }

func (n *notifier) StateChanged() { n.state.changed() }
