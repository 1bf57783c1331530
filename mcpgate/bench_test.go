package mcpgate

import (
	"strconv"
	"testing"
)

// BenchmarkGatewayToolCall measures one tools/call through the gateway:
// the client's line read strictly, decided by a local gate (no tape),
// relayed, and the fake server's answer relayed back.
func BenchmarkGatewayToolCall(b *testing.B) {
	ws := workspaceDir(b)
	c, _, _ := startGateway(b, localDoor(b, ws), ws)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	c.answer(1)
	c.send(callLine(2, "read_note", `{"path":"notes.txt"}`))
	c.answer(2)
	b.ResetTimer()
	for i := range b.N {
		id := 10 + i
		c.send(callLine(id, "read_note", `{"path":"notes.txt"}`))
		c.answer(float64(id))
	}
	b.StopTimer()
	c.close()
}

// BenchmarkGatewayPassThrough is a round trip for ping, which the
// gateway relays without a decision: the floor of the relay itself.
func BenchmarkGatewayPassThrough(b *testing.B) {
	ws := workspaceDir(b)
	c, _, _ := startGateway(b, localDoor(b, ws), ws)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	c.answer(1)
	b.ResetTimer()
	for i := range b.N {
		id := 10 + i
		c.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"ping"}`)
		c.answer(float64(id))
	}
	b.StopTimer()
	c.close()
}
