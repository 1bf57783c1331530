package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"admit/internal/bench"
)

// BenchmarkGateCheck is the door without a transport: mode, policy, tape
// (sync none) and the reply, for a typical read.
func BenchmarkGateCheck(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	g, err := bench.LoadGate(root, filepath.Join(dir, "tape.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	_, p := bench.LoadCall()
	b.ReportAllocs()
	for b.Loop() {
		if v, err := g.Check(context.Background(), p); err != nil || !v.Allowed {
			b.Fatal(v, err)
		}
	}
}
