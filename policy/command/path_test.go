package command

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// countFS is testFS with ResolveIn, counting the questions asked.
type countFS struct {
	*testFS
	mu   sync.Mutex
	asks map[string]int // "resolve P" and "in DIR NAME"
}

func (f *countFS) Resolve(p string) (Resolved, error) {
	f.mu.Lock()
	f.asks["resolve "+p]++
	f.mu.Unlock()
	return f.testFS.Resolve(p)
}

func (f *countFS) ResolveIn(dir, name string) (Resolved, error) {
	f.mu.Lock()
	f.asks["in "+dir+" "+name]++
	f.mu.Unlock()
	return f.testFS.Resolve(dir + "/" + name)
}

// TestPathFoldersOncePerDecision: a folder PATH names twice is resolved
// once and searched once per lookup, the line's second pass (a line that
// writes) resolves none again, and a folder after the one that holds the
// program is not resolved at all; the decision is the one the PATH
// without them gets. A later decision asks again.
func TestPathFoldersOncePerDecision(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, binA, binB, binC := filepath.Join(tmp, "ws"), filepath.Join(tmp, "a"), filepath.Join(tmp, "b"), filepath.Join(tmp, "c")
	for _, d := range []string{ws, binA, binB, binC} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(binB, "cat"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := New(nil)
	const line = "echo x > out.txt && cat a.txt && cat a.txt"
	fs := &countFS{testFS: newTestFS(ws)}
	judge := func(path []string) (Decision, *countFS) {
		fs.asks = map[string]int{} // one FS for every decision: nothing is kept from the one before
		obs := &testObs{files: map[string]ObsState{filepath.Join(ws, "a.txt"): Observed}, dirs: map[string]bool{ws: true}}
		c := &Context{Roots: []string{ws}, Effects: WorkspaceWrite, FS: fs, Obs: obs, Path: path}
		return p.Evaluate(line, ws, c), fs
	}
	want, _ := judge([]string{binA, binB})
	if !want.Allowed {
		t.Fatalf("%s: %s %s", line, want.Rule, want.Reason)
	}
	for round := range 2 {
		got, fs := judge([]string{binA, binA + "/", binB, binA, binC})
		if got.Allowed != want.Allowed || got.Ask != want.Ask || got.Rule != want.Rule || got.Reason != want.Reason {
			t.Fatalf("round %d: with repeated PATH folders: %s %s, without: %s %s", round, got.Rule, got.Reason, want.Rule, want.Reason)
		}
		for _, d := range []string{binA, binB} {
			if n := fs.asks["resolve "+d]; n != 1 {
				t.Errorf("round %d: %s resolved %d times in one decision, want 1 (%v)", round, d, n, fs.asks)
			}
		}
		if n := fs.asks["resolve "+binC]; n != 0 {
			t.Errorf("round %d: %s, after the only folder that holds cat, resolved %d times, want 0", round, binC, n)
		}
		// Two passes, two commands each: cat is looked up 4 times, and
		// binA searched once per lookup however often PATH names it.
		if n := fs.asks["in "+binA+" cat"]; n != 4 {
			t.Errorf("round %d: %s searched %d times for cat, want 4 (%v)", round, binA, n, fs.asks)
		}
	}
}
