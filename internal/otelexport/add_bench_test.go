package otelexport

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"admit/tape"
)

// BenchmarkAdd is the export's own work per decision, on its goroutine:
// a taped record made a log record of the batch (and counted, with
// metrics), nothing sent.
func BenchmarkAdd(b *testing.B) {
	for _, metrics := range []bool{false, true} {
		b.Run(fmt.Sprintf("metrics=%v", metrics), func(b *testing.B) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			e, err := New(Config{Endpoint: "http://" + addr, Metrics: metrics, Linger: time.Hour, MetricInterval: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			rec := tape.Record{Time: time.Now(), ID: "mx6gr9u2c895f168-1", Session: "default", Mode: "enforce", Verdict: "allow", Allowed: true,
				Rule: "allowed", Tool: "Bash", Command: "cat README.md | grep hello", Args: json.RawMessage(`{"command":"cat README.md | grep hello"}`),
				Context: json.RawMessage(`{"agent":"claude-code","turn":3}`), Kind: "read", Targets: []string{"/home/someone/src/project/README.md"},
				Policy: "80d61e6f62cdd671", DecidedBy: "rule", Outcome: "allow"}
			b.ReportAllocs()
			for b.Loop() {
				e.add(&rec)
				if len(e.batch) >= 512 {
					e.batch = e.batch[:0]
				}
			}
			b.StopTimer()
			e.batch = nil
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = e.Close(ctx)
		})
	}
}
