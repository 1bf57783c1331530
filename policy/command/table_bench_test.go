package command

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkBuiltinTables is what every one-shot admit process (a hook
// deciding alone, admit run) pays for the built-in tables: "build" is
// building them, "first-line" building them and judging one line with a
// policy over them (so the options its programs index on first lookup
// are counted too). The line is judged over the tests' file system
// (testFS), without a PATH: the figure is the tables', not the paths'.
func BenchmarkBuiltinTables(b *testing.B) {
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if t := buildTables(); len(t.progs) == 0 {
				b.Fatal("no programs")
			}
		}
	})
	b.Run("first-line", func(b *testing.B) {
		ws, err := filepath.EvalSymlinks(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
			b.Fatal(err)
		}
		c := &Context{Roots: []string{ws}, FS: newTestFS(ws)}
		b.ReportAllocs()
		for b.Loop() {
			t := buildTables()
			p := &Policy{progs: t.progs, git: t.git, gitw: t.gitw, find: t.find, tools: t.tools}
			if d := p.Evaluate("ls -la && git status --short && grep -rn --include=*.go x . | head -5", ws, c); !d.Allowed {
				b.Fatalf("refused: %s %s", d.Rule, d.Reason)
			}
		}
	})
}
