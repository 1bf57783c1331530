package gate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"admit/gate"
	"admit/internal/bench"
	"admit/policy"
	"admit/policy/rule"
	"admit/policy/rules"
	"admit/tape"
	"admit/workspace"
)

// BenchmarkGateCheck is the door without a transport: mode, policy, tape
// (sync none) and the reply, for a typical read.
func BenchmarkGateCheck(b *testing.B) {
	g := benchGate(b)
	checkLoop(b, g)
}

// BenchmarkGateCheckWatched is BenchmarkGateCheck with the server's
// watcher vouching for the workspace's policy file, as in the editor.
func BenchmarkGateCheckWatched(b *testing.B) {
	g := benchGate(b)
	w, err := workspace.NewWatcher(g.Roots(), nil, workspace.WatchOptions{})
	if err != nil {
		b.Skip("no watcher here:", err)
	}
	defer w.Close()
	g.CaptureWith(w)
	checkLoop(b, g)
}

// benchGate is admit bench's gate on a workspace of one file, its tape
// beside the workspace.
func benchGate(b *testing.B) *gate.Gate {
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
	b.Cleanup(func() { _ = g.Close() })
	return g
}

// checkLoop decides admit bench's typical read until the loop ends.
func checkLoop(b *testing.B, g *gate.Gate) {
	_, p := bench.LoadCall()
	b.ReportAllocs()
	for b.Loop() {
		if v, err := g.Check(context.Background(), p); err != nil || !v.Allowed {
			b.Fatal(v, err)
		}
	}
}

// BenchmarkGateCheckRules is a command line through the door with the
// person's rules: none, and 200 (within 1.2x of none, the bound held), the user's
// file and the workspace's both read, merged with the repository's, as
// every decision does.
func BenchmarkGateCheckRules(b *testing.B) {
	for _, n := range []int{0, 200} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			root := filepath.Join(dir, "ws")
			if err := os.MkdirAll(root, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			store := gate.NewRuleStore(filepath.Join(dir, "rules"), root)
			for i := 0; i < n; i++ {
				scope := gate.ScopeUser
				if i%2 == 1 {
					scope = gate.ScopeWorkspace
				}
				r, err := rules.Parse(fmt.Sprintf("tool%d sub *", i), rule.OutcomeAllow)
				if err != nil {
					b.Fatal(err)
				}
				if err := store.Add(scope, r); err != nil {
					b.Fatal(err)
				}
			}
			g, err := gate.Open(gate.Options{Dirs: []string{root}, Settings: gate.Settings{Mode: "enforce", Effects: "read-only"}, Headless: true,
				TapePath: filepath.Join(dir, "tape.jsonl"), Tape: tape.Options{Sync: tape.SyncNone}, TapeRequired: true,
				Bounds: policy.DefaultBounds(), Rules: store, Trust: gate.NewTrustStore(filepath.Join(dir, "trust"))})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			p := gate.CheckParams{Tool: "bash", Command: "cat README.md | grep hello"}
			b.ReportAllocs()
			for b.Loop() {
				if v, err := g.Check(context.Background(), p); err != nil || !v.Allowed {
					b.Fatal(v, err)
				}
			}
		})
	}
}
