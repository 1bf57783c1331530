package rpc_test

import (
	"testing"

	"admit/gate"
	"admit/rpc/rpctest"
)

// TestPortableShellSetting: the extension's admit.shell setting offers
// portable, sent as initializationOptions.shell; the server takes it and
// judges every line as each of bash -c, interactive bash, zsh and fish
// must read it: what any of them reads otherwise is refused, a plain line
// passes, and admit/setMode can choose it too.
func TestPortableShellSetting(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "shell": "portable"}})
	var st gate.State
	e.Call("admit/state", map[string]any{}, &st)
	if st.Shell != "portable" {
		t.Fatalf("state shell %q, want portable", st.Shell)
	}
	for _, line := range []string{`echo "$HOME[1]"`, "cat ***/x.txt", "echo hi !!", `printf 'a\n'; echo \x41`} {
		if v := e.Check(map[string]any{"tool": "bash", "command": line}); v.Allowed || v.Rule != "shell-syntax" {
			t.Errorf("%s under portable: %s %s (%s)", line, v.Verdict, v.Rule, v.Reason)
		}
	}
	if v := e.Check(map[string]any{"tool": "bash", "command": "ls -la && git status"}); !v.Allowed {
		t.Errorf("a plain line under portable: %s %s (%s)", v.Verdict, v.Rule, v.Reason)
	}
	e.Call("admit/setMode", map[string]any{"shell": "analyze"}, &st)
	if v := e.Check(map[string]any{"tool": "bash", "command": `echo "$HOME[1]"`}); !v.Allowed {
		t.Errorf("echo \"$HOME[1]\" under analyze: %s (%s)", v.Rule, v.Reason)
	}
	e.Call("admit/setMode", map[string]any{"shell": "portable"}, &st)
	if st.Shell != "portable" {
		t.Errorf("setMode portable: %q", st.Shell)
	}
}
