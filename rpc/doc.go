// Package rpc is admit's server: JSON-RPC 2.0 with LSP framing over a
// stream (stdio for the editor, a unix socket for the agents outside it),
// in front of the gate (package gate). It holds the LSP lifecycle, one
// method table with one handler per method (handle_*.go: decode the params,
// call the gate, encode the answer), the read-loop release (release.go),
// the outbox that carries notifications with replies (outbox.go) and the
// approval prompts it asks the editor (approve.go).
//
// This is the only package (with its test editor, rpc/rpctest) that
// imports go.lsp.dev/jsonrpc2 and go.lsp.dev/protocol. The custom methods
// are documented in docs/protocol.md.
package rpc
