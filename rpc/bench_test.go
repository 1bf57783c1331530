package rpc_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"admit/internal/bench"
	"admit/policy"
	"admit/rpc"
	"admit/rpc/rpctest"
)

// benchConn connects a client to serve over os pipes.
func benchConn(b *testing.B, serve func(io.ReadWriteCloser)) jsonrpc2.Conn {
	cli, srv := rpctest.OSPipes(b)
	go serve(srv)
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(cli))
	conn.Go(context.Background(), func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	return conn
}

// benchWorkspace makes a workspace with a README.md in dir, beside (not
// around) the tape, as the default tape path is: a tape inside the
// workspace would wake the watcher on every decision.
func benchWorkspace(b *testing.B, dir string) string {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		b.Fatal(err)
	}
	root = filepath.Join(root, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

func benchRoundTrip(b *testing.B, conn jsonrpc2.Conn) {
	_, params := bench.LoadCall()
	raw, _ := json.Marshal(params)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := conn.Call(context.Background(), "admit/check", json.RawMessage(raw), nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkEchoRoundTrip is the floor: a bare jsonrpc2 echo over pipes.
func BenchmarkEchoRoundTrip(b *testing.B) {
	conn := benchConn(b, func(rwc io.ReadWriteCloser) { rpc.Echo(context.Background(), rwc) })
	benchRoundTrip(b, conn)
}

// BenchmarkCheckRoundTrip is admit/check for a typical read over pipes,
// with the tape not syncing (sync none) and with group commit (batch).
func BenchmarkCheckRoundTrip(b *testing.B) {
	for _, sync := range []string{"none", "batch"} {
		b.Run(sync, func(b *testing.B) {
			dir := b.TempDir()
			root := benchWorkspace(b, dir)
			conn := benchConn(b, func(rwc io.ReadWriteCloser) {
				rpc.Serve(context.Background(), rwc, rpc.ServerConfig{Logger: slog.New(slog.DiscardHandler), Bounds: policy.DefaultBounds(), Listen: "none"})
			})
			if _, err := conn.Call(context.Background(), "initialize", bench.LoadInit(root, dir, sync), nil); err != nil {
				b.Fatal(err)
			}
			benchRoundTrip(b, conn)
		})
	}
}

// BenchmarkCheckOneCaller is one caller's latency, call after call.
func BenchmarkCheckOneCaller(b *testing.B) {
	dir := b.TempDir()
	root := benchWorkspace(b, dir)
	conn := benchConn(b, func(rwc io.ReadWriteCloser) {
		rpc.Serve(context.Background(), rwc, rpc.ServerConfig{Logger: slog.New(slog.DiscardHandler), Bounds: policy.DefaultBounds(), Listen: "none"})
	})
	if _, err := conn.Call(context.Background(), "initialize", bench.LoadInit(root, dir, "none"), nil); err != nil {
		b.Fatal(err)
	}
	_, params := bench.LoadCall()
	raw, _ := json.Marshal(params)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := conn.Call(context.Background(), "admit/check", json.RawMessage(raw), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEchoOneCaller is the floor for one caller.
func BenchmarkEchoOneCaller(b *testing.B) {
	conn := benchConn(b, func(rwc io.ReadWriteCloser) { rpc.Echo(context.Background(), rwc) })
	_, params := bench.LoadCall()
	raw, _ := json.Marshal(params)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := conn.Call(context.Background(), "admit/check", json.RawMessage(raw), nil); err != nil {
			b.Fatal(err)
		}
	}
}
