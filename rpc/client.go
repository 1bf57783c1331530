package rpc

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"admit/gate"
)

// Client is a connection to a server: a local agent's through the
// server's socket (Dial), or any stream's (NewClient). It asks the same
// door as the editor, over the same protocol.
type Client struct {
	conn jsonrpc2.Conn
}

// NewClient speaks the protocol over rwc; the caller sends initialize.
// Requests from the server are answered "method not found".
func NewClient(rwc io.ReadWriteCloser) *Client {
	c := &Client{conn: jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc))}
	c.conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	return c
}

// Dial connects to the server listening on path and initializes, joining
// the editor's gate.
func Dial(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("admit server at %s: %w", path, err)
	}
	c := NewClient(nc)
	if err := c.Call(ctx, "initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}}, nil); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("admit server at %s: initialize: %w", path, err)
	}
	return c, nil
}

// Call sends one request and decodes its result into result (nil: the
// result is dropped). Cancelling ctx sends $/cancelRequest, so a question
// put to a person is taken back.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return protocol.Call(ctx, c.conn, method, params, result)
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// Check asks the door about one call.
func (c *Client) Check(ctx context.Context, p gate.CheckParams) (gate.Verdict, error) {
	var v gate.Verdict
	err := c.Call(ctx, "admit/check", p, &v)
	return v, err
}

// Observe records files read and folders listed outside the gate's tools.
func (c *Client) Observe(ctx context.Context, p gate.ObserveParams) (int, error) {
	var res struct {
		Observed int `json:"observed"`
	}
	err := c.Call(ctx, "admit/observe", p, &res)
	return res.Observed, err
}

// OpenSession opens a session with its own capability set.
func (c *Client) OpenSession(ctx context.Context, p gate.OpenSessionParams) (string, error) {
	var res struct {
		Session string `json:"session"`
	}
	err := c.Call(ctx, "admit/openSession", p, &res)
	return res.Session, err
}

// CloseSession ends a session.
func (c *Client) CloseSession(ctx context.Context, id string) error {
	return c.Call(ctx, "admit/closeSession", map[string]string{"session": id}, nil)
}

// Read reads a file through the server's door (admit/read).
func (c *Client) Read(ctx context.Context, p gate.ReadParams) (gate.FileResult, error) {
	var r gate.FileResult
	err := c.Call(ctx, "admit/read", p, &r)
	return r, err
}

// Edit changes a file through the server's door (admit/edit).
func (c *Client) Edit(ctx context.Context, p gate.EditParams) (gate.FileResult, error) {
	var r gate.FileResult
	err := c.Call(ctx, "admit/edit", p, &r)
	return r, err
}

// Write writes a file through the server's door (admit/write).
func (c *Client) Write(ctx context.Context, p gate.WriteParams) (gate.FileResult, error) {
	var r gate.FileResult
	err := c.Call(ctx, "admit/write", p, &r)
	return r, err
}

// Run runs a command through the server's door (admit/run). The server
// runs it in its own environment, so o is not sent; the signature is the
// gate's, so either can be an agent's door.
func (c *Client) Run(ctx context.Context, p gate.RunParams, _ gate.RunOptions) (gate.RunResult, error) {
	var r gate.RunResult
	err := c.Call(ctx, "admit/run", p, &r)
	return r, err
}

// Close says goodbye and closes the connection.
func (c *Client) Close() error {
	_ = c.conn.Notify(context.Background(), "exit", nil)
	return c.conn.Close()
}
