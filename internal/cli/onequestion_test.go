package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"admit/policy/rule"
	"admit/rpc/rpctest"
	"admit/tape"
)

// TestOneCallOneQuestion: with the editor running, a call the hook puts
// to the person and the person allows is answered with a handle; when the
// host's shell runs admit run --handle, the run is the same call and is
// not asked again. The tape holds one approval, and the run's record
// says whose answer it carried.
func TestOneCallOneQuestion(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 to run the approved script with")
	}
	w := newHookWorkspace(t)
	if err := os.MkdirAll(filepath.Join(w.root, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.root, "scripts", "hello.py"), []byte("print(\"hello from the script\")\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tapePath := filepath.Join(t.TempDir(), "server-tape.jsonl")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
		Answer: rpctest.Always("allow-once"), Init: map[string]any{"mode": "enforce", "tape": tapePath}})
	decision, input, out := rewrittenBash(t, w, e.Socket, map[string]any{"command": "python3 scripts/hello.py"})
	line, _ := input["command"].(string)
	if decision != "allow" || !strings.Contains(line, " run --handle h") {
		t.Fatalf("answer: %s", out)
	}
	q := rpctest.Within(t, e.Asked, "the hook's question")
	if q.Command != "python3 scripts/hello.py" || q.Agent == "" {
		t.Fatalf("question: %+v", q)
	}
	sh := hostShell(w, e.Socket, line)
	var so, se bytes.Buffer
	sh.Stdout, sh.Stderr = &so, &se
	runErr := sh.Run()
	select {
	case q := <-e.Asked:
		t.Fatalf("the run was asked again: %+v", q)
	default:
	}
	recs, err := tape.Query(tapePath, tape.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	approvals, carried := 0, 0
	for _, r := range recs {
		if r.DecidedBy == rule.ByPerson {
			approvals++
		}
		if r.DecidedBy == rule.ByHandle && r.Tool == "admit.run" && r.Allowed && r.Rule == rule.HumanApproved {
			carried++
		}
	}
	if approvals != 1 || carried != 1 {
		t.Fatalf("the tape holds %d approvals and %d runs carrying one, want 1 and 1: %+v", approvals, carried, recs)
	}
	if runErr != nil && !strings.Contains(se.String(), "confine") {
		t.Fatalf("the run: %v, stdout %q, stderr %q, tape %+v", runErr, so.String(), se.String(), recs[len(recs)-1].Detail)
	}
	if runErr == nil && so.String() != "hello from the script\n" {
		t.Fatalf("the run printed %q (stderr %q)", so.String(), se.String())
	}
}
