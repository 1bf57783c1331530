// Package gate is admit's one door: every call an agent wants to make goes
// through Gate.Decide, which runs the mode, the policy (package policy),
// the person's answer (package approvals) and the tape (tape) in
// that order, and says allow or deny with the rule that decided. The
// acting tools (Run, Read, Edit, Write) decide through the same door and
// then act, confined and verified. Sessions keep what one agent task may
// do and has observed.
//
// Start at Open (open.go), which every command of admit builds its gate
// with, and Decide (gate.go). The gate knows no transport: package rpc
// serves it over JSON-RPC, internal/cli on the command line, mcpgate in
// front of MCP servers. It imports neither jsonrpc2 nor protocol.
package gate
