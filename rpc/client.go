package rpc

import (
	"context"
	"fmt"
	"net"
	"os"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Client is a local agent's connection to a running server's socket: the
// same door as the editor's, asked over the same protocol.
type Client struct {
	conn jsonrpc2.Conn
}

// Dial connects to the server listening on path and initializes, joining
// the editor's gate.
func Dial(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("admit server at %s: %w", path, err)
	}
	c := &Client{conn: jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(nc))}
	c.conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	var res map[string]any
	if _, err := c.conn.Call(ctx, "initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}}, &res); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("admit server at %s: initialize: %w", path, err)
	}
	return c, nil
}

// Check asks the door about one call. Cancelling ctx sends
// $/cancelRequest, so a question put to a person is taken back.
func (c *Client) Check(ctx context.Context, p CheckParams) (Verdict, error) {
	var v Verdict
	err := protocol.Call(ctx, c.conn, "admit/check", p, &v)
	return v, err
}

// Observe records files read and folders listed outside the gate's tools.
func (c *Client) Observe(ctx context.Context, p ObserveParams) (int, error) {
	var res struct {
		Observed int `json:"observed"`
	}
	err := protocol.Call(ctx, c.conn, "admit/observe", p, &res)
	return res.Observed, err
}

// OpenSession opens a session with its own capability set.
func (c *Client) OpenSession(ctx context.Context, p OpenSessionParams) (string, error) {
	var res struct {
		Session string `json:"session"`
	}
	_, err := c.conn.Call(ctx, "admit/openSession", p, &res)
	return res.Session, err
}

// CloseSession ends a session.
func (c *Client) CloseSession(ctx context.Context, id string) error {
	_, err := c.conn.Call(ctx, "admit/closeSession", map[string]string{"session": id}, nil)
	return err
}

// Close says goodbye and closes the connection.
func (c *Client) Close() error {
	_ = c.conn.Notify(context.Background(), "exit", nil)
	return c.conn.Close()
}
