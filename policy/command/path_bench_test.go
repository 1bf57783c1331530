package command_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/policy/command"
	"admit/workspace"
)

// BenchmarkEvaluatePath is a three-command line judged without a PATH
// and with the test process's own, each name looked up folder by folder.
func BenchmarkEvaluatePath(b *testing.B) {
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		b.Fatal(err)
	}
	p := command.New(nil)
	path := strings.Split(os.Getenv("PATH"), ":")
	for _, c := range []struct {
		name string
		path []string
	}{{"no-PATH", nil}, {"PATH-of-" + itoa(len(path)), path}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := &command.Context{Roots: roots.List(), FS: workspace.NewResolver(roots), Path: c.path}
			b.ReportAllocs()
			for b.Loop() {
				if d := p.Evaluate("cat a.txt | grep x | wc -l", ws, ctx); !d.Allowed {
					b.Fatal(d.Reason)
				}
			}
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
