package command_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"admit/policy/command"
	"admit/workspace"
)

// patternTree is a workspace of 8,000 folders (20 by 20 by 20), the size
// of the tree in which a 3.7 KB line of patterns once took 36 s of gate
// time.
func patternTree(b *testing.B) (*command.Context, string) {
	b.Helper()
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		for j := range 20 {
			for k := range 20 {
				if err := os.MkdirAll(filepath.Join(ws, fmt.Sprintf("a%02d/b%02d/c%02d", i, j, k)), 0o755); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "a00", "x.go"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		b.Fatal(err)
	}
	return &command.Context{Roots: roots.List(), FS: workspace.NewResolver(roots)}, ws
}

// BenchmarkPatternWalkWide is the line that blocked the server: 200
// patterns that each walk all 8,000 folders and match nothing, 3.7 KB in
// all. The walk's bound refuses it after the first pattern spends the
// line's reads; without the bound each pattern read every folder.
func BenchmarkPatternWalkWide(b *testing.B) {
	ctx, ws := patternTree(b)
	line := "ls" + strings.Repeat(" */*/*/no-such-name", 200)
	b.Logf("line of %d bytes over 8,420 folders", len(line))
	p := command.New(nil)
	var d command.Decision
	start := time.Now()
	for b.Loop() {
		d = p.Evaluate(line, ws, ctx)
	}
	if d.Allowed {
		b.Logf("allowed after %v: the walk is not bounded", time.Since(start)/time.Duration(b.N))
	} else {
		b.Logf("%s: %s", d.Rule, d.Reason)
	}
}

// BenchmarkPatternWalkNarrow is an everyday pattern in the same tree.
func BenchmarkPatternWalkNarrow(b *testing.B) {
	ctx, ws := patternTree(b)
	p := command.New(nil)
	for b.Loop() {
		if d := p.Evaluate("ls a00/*.go a01/b0*", ws, ctx); !d.Allowed {
			b.Fatal(d.Reason)
		}
	}
}
