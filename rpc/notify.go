package rpc

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"admit/gate"
)

// stateInterval is the least time between two admit/didChangeState
// notifications: a burst of decisions makes one status-bar update, not
// thousands, and a person still sees counts move within a glance.
const stateInterval = 200 * time.Millisecond

// stateNotifier coalesces state changes into admit/didChangeState.
type stateNotifier struct {
	conn jsonrpc2.Conn
	log  *slog.Logger
	// source is the state to send; false while there is none yet.
	source func() (gate.State, bool)
	kick   chan struct{}
	stop   chan struct{}
	wg     sync.WaitGroup
}

func newStateNotifier(conn jsonrpc2.Conn, log *slog.Logger, source func() (gate.State, bool)) *stateNotifier {
	n := &stateNotifier{conn: conn, log: log, source: source, kick: make(chan struct{}, 1), stop: make(chan struct{})}
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
		if st, ok := n.source(); ok {
			if err := n.conn.Notify(context.Background(), "admit/didChangeState", st); err != nil {
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

// notifier implements gate.Notifier over the connection. admit/didDecide
// is queued in the outbox and goes out with the decision's reply, in the
// same bytes.
type notifier struct {
	out   *outbox
	state *stateNotifier
}

func (n *notifier) DidDecide(v *gate.Verdict) []byte {
	wire := appendVerdict(make([]byte, 0, 512), v)
	n.out.notify("admit/didDecide", wire)
	return wire
}

func (n *notifier) StateChanged() { n.state.changed() }
