package gate_test

import (
	"strings"
	"testing"

	"admit/gate"
	"admit/policy/rule"
)

// TestShellOnly: a line judged in full whose constructs admit's runner
// does not run (a loop, a background job, sh -c, Claude Code's commit
// form, kill of a probe's pids, export, the folder stack) is refused by admit run with a reason that
// says so, and a rewritten hook call gets no handle for it: the host's
// shell runs it as judged. A plain line still gets its handle.
func TestShellOnly(t *testing.T) {
	g, _ := hostWorld(t, "/bin/bash")
	for _, c := range []struct {
		line  string
		shell bool // only a shell runs it
	}{
		{`for f in a.go; do wc -l "$f"; done`, true},
		{"if test -f a.go; then wc -l a.go; fi", true},
		{"time wc -l a.go", true},
		{"sh -c 'wc -l a.go'", true},
		{"git log -1 --format=\"$(cat <<'EOF'\n%s\nEOF\n)\"", true},
		{"export CI=true && wc -l a.go", true},
		{"pushd . && wc -l a.go; popd", true}, // the runner's popd would not go back as bash's does
		{"dirs", true},
		{"CI=true wc -l a.go", false},
		{"wc -l a.go", false},
	} {
		v := check(t, g, gate.CheckParams{Tool: "admit.run", Command: c.line})
		if c.shell {
			if v.Allowed || v.Rule != rule.ShellSyntax || !strings.Contains(v.Reason, "admit run does not run") {
				t.Errorf("admit run %q: allowed %v (%s: %s), want refused shell-syntax saying admit run does not run it", c.line, v.Allowed, v.Rule, v.Reason)
			}
		} else if !v.Allowed {
			t.Errorf("admit run %q refused: %s %s", c.line, v.Rule, v.Reason)
		}
		h := check(t, g, gate.CheckParams{Tool: "bash", Command: c.line, Handle: true})
		if !h.Allowed {
			t.Errorf("hook %q refused: %s %s", c.line, h.Rule, h.Reason)
			continue
		}
		if c.shell != (h.Handle == "") {
			t.Errorf("hook %q: handle %q, want one only for a line admit's runner runs", c.line, h.Handle)
		}
	}
}
