package rpc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/gate"
	"admit/policy/rule"
	"admit/rpc/rpctest"
)

// TestReplayMethod: admit/replay shows what the workspace's policy file
// and a suggested rule would change in the calls already taped, before
// the person trusts or takes them; nothing changes in the gate.
func TestReplayMethod(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "warn"}})
	for _, line := range []string{"git log", "cat README.md", "npm test"} {
		e.Check(map[string]any{"tool": "Bash", "command": line})
	}
	for len(e.States) > 0 {
		<-e.States // the states before the file
	}
	must(t, os.MkdirAll(filepath.Join(ws, ".admit"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".admit", "policy.json"), []byte(`{"allow": ["Bash"], "rules": {"deny": ["git log *"]}}`), 0o644))
	e.AwaitState(func(s gate.State) bool { return strings.HasSuffix(s.Policy, "policy.json") })

	var rep gate.ReplayReport
	e.Call("admit/replay", map[string]any{"policy": "workspace"}, &rep)
	if rep.Calls != 3 || rep.Changed != 1 || rep.Changes[0].From != rule.OutcomeAllow || rep.Changes[0].ToRule != rule.RuleDenies ||
		rep.Changes[0].Examples[0].Command != "git log" {
		t.Fatalf("workspace policy: %+v", rep)
	}
	rep = gate.ReplayReport{}
	e.Call("admit/replay", map[string]any{"policy": "built-in", "addRule": map[string]any{"match": "npm test *", "decision": "allow"}}, &rep)
	if rep.Changed != 1 || rep.Changes[0].From != rule.OutcomeAsk || rep.Changes[0].To != rule.OutcomeAllow || rep.Changes[0].Examples[0].Command != "npm test" {
		t.Fatalf("suggested rule: %+v", rep)
	}
	if err := e.Try("admit/replay", map[string]any{"policy": "mine"}, nil); rpctest.ErrCode(err) != -32602 {
		t.Errorf("an unknown policy name: %v, want -32602", err)
	}
}
