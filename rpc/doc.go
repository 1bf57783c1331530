// Package rpc is admit's server: the one door. Gate (gate.go) runs mode,
// policy, approvals and the tape in order for every call, and knows no
// transport; Server (server.go) speaks JSON-RPC 2.0 with LSP framing over a
// stream and has one handler per method (handle_*.go). The command line's
// `admit check` and `admit run` use the same Gate without a connection.
//
// This is the only package that imports go.lsp.dev/jsonrpc2 and
// go.lsp.dev/protocol. The custom methods are documented in docs/protocol.md.
package rpc
