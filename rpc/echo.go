package rpc

import (
	"context"
	"encoding/json"
	"io"

	"go.lsp.dev/jsonrpc2"
)

// Echo serves a bare jsonrpc2 connection that answers every call with its
// params, on the read loop: the floor a gate's round trip is measured
// against (admit bench).
func Echo(ctx context.Context, rwc io.ReadWriteCloser) {
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc))
	conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			return nil, nil
		}
		return json.RawMessage(req.Params()), nil // written before the next read
	})
	<-conn.Done()
}
