package gate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"admit/gate"
	"admit/workspace"
)

// TestPolicyFileThroughWatcher: with the server's watcher vouching, a
// decision skips the policy file's stat while no event came; each change
// (created, rewritten, made a symlink to a file outside, the target
// changed with no event in the workspace, removed) is still seen by the
// first decision after its event.
func TestPolicyFileThroughWatcher(t *testing.T) {
	h := newHostile(t, "")
	g := h.open(t, "read-only")
	w, err := workspace.NewWatcher(g.Roots(), nil, workspace.WatchOptions{})
	if err != nil {
		t.Skip("no watcher here:", err)
	}
	t.Cleanup(func() { _ = w.Close() })
	g.CaptureWith(w)
	events, stop := w.Subscribe()
	t.Cleanup(stop)
	file := filepath.Join(h.root, ".admit", "policy.json")
	outside := filepath.Join(h.home, "policy.json")
	// seen waits for the watcher's batch naming p.
	seen := func(p string) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case batch := <-events:
				for _, e := range batch {
					if e.Path == p || e.Op == workspace.Overflow {
						return
					}
				}
			case <-timeout:
				t.Fatalf("no event for %s", p)
			}
		}
	}
	n := 0
	want := func(step string, allowed bool) {
		t.Helper()
		for range 3 { // the first decision stats, the next ones may not
			n++ // a new line each time: a refused one retried is refused for that
			bash := gate.CheckParams{Tool: "Bash", Command: fmt.Sprintf("head -n %d README.md", n)}
			if v := check(t, g, bash); v.Allowed != allowed {
				t.Fatalf("%s: allowed %v (%s: %s), want %v", step, v.Allowed, v.Rule, v.Reason, allowed)
			}
		}
	}
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want("no policy file", true)
	write(file, `{"allow":["Read"]}`)
	seen(file)
	want("a file that takes Bash away", false)
	write(file, `{"allow":["Bash","Read"]}`)
	seen(file)
	want("the file rewritten to give it back", true)
	write(outside, `{"allow":["Read"]}`)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, file); err != nil {
		t.Fatal(err)
	}
	seen(file)
	want("a symlink to a file outside", false)
	write(outside, `{"allow":["Bash","Read"]}`) // no event in the workspace
	want("the link's target changed", true)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	seen(file)
	write(outside, `{"allow":["Read"]}`)
	want("the file removed", true)
}
