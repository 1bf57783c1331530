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

// decideQueue bounds the admit/didDecide notifications waiting to be
// written; a decision waits for room rather than drop one.
const decideQueue = 4096

// notifier implements Notifier over the connection. admit/didDecide goes
// out from its own goroutine, so a decision's reply never waits for the
// notification's write.
type notifier struct {
	conn    jsonrpc2.Conn
	state   *stateNotifier
	log     *slog.Logger
	decided chan json.RawMessage
	stop    chan struct{}
	wg      sync.WaitGroup
}

func newNotifier(conn jsonrpc2.Conn, state *stateNotifier, log *slog.Logger) *notifier {
	n := &notifier{conn: conn, state: state, log: log, decided: make(chan json.RawMessage, decideQueue), stop: make(chan struct{})}
	n.wg.Add(1)
	go n.loop()
	return n
}

func (n *notifier) loop() {
	defer n.wg.Done()
	for {
		select {
		case v := <-n.decided:
			if err := n.conn.Notify(context.Background(), "admit/didDecide", jsonrpc2.RawMessage(v)); err != nil {
				n.log.Debug("didDecide not sent", "err", err)
			}
		case <-n.stop:
			return
		}
	}
}

func (n *notifier) DidDecide(v json.RawMessage) {
	select {
	case n.decided <- v:
	case <-n.stop:
	}
}

func (n *notifier) StateChanged() { n.state.changed() }

// close stops the sender; notifications not yet written are dropped with
// the connection they were for.
func (n *notifier) close() {
	close(n.stop)
	n.wg.Wait()
}
