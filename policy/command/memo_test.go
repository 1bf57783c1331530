package command

import "testing"

// TestMemoFolderDot: within one decision D/. is answered from D when D
// is a folder, as Resolve would answer it; "file/." is resolved, and a
// later decision asks again.
func TestMemoFolderDot(t *testing.T) {
	w := newWorkspace(t)
	p := New(nil)
	for _, c := range []struct {
		line  string
		asked map[string]int
	}{
		{"cd src && ls", map[string]int{"resolve " + w.ws + "/src": 1, "resolve " + w.ws + "/src/.": 0}},
		{"cat a.txt/.", map[string]int{"resolve " + w.ws + "/a.txt/.": 1}},
		{"ls src src/.", map[string]int{"resolve " + w.ws + "/src": 1, "resolve " + w.ws + "/src/.": 0}},
	} {
		for range 2 {
			ctx := w.context(false, "")
			fs := &countFS{testFS: w.fs, asks: map[string]int{}}
			ctx.FS = fs
			plain := w.context(false, "")
			want := p.Evaluate(c.line, w.ws, plain)
			got := p.Evaluate(c.line, w.ws, ctx)
			if got.Allowed != want.Allowed || got.Rule != want.Rule || len(got.Listed) != len(want.Listed) {
				t.Errorf("%q: %v %s, without the count %v %s", c.line, got.Allowed, got.Rule, want.Allowed, want.Rule)
			}
			for k, n := range c.asked {
				if fs.asks[k] != n {
					t.Errorf("%q: %s asked %d times, want %d (%v)", c.line, k, fs.asks[k], n, fs.asks)
				}
			}
		}
	}
}
