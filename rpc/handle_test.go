package rpc_test

import (
	"strings"
	"testing"

	"admit/gate"
	"admit/rpc/rpctest"
)

// TestHandleStaysWithItsSession: a handle given to one session, redeemed
// through the socket's admit/run by another, is refused and not used up:
// the session it was given to still runs it, once.
func TestHandleStaysWithItsSession(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	open := func(label string) string {
		var out struct {
			Session string `json:"session"`
		}
		e.Call("admit/openSession", map[string]any{"label": label, "allow": []string{"bash"}}, &out)
		return out.Session
	}
	owner, thief := open("owner"), open("thief")
	v := e.Check(map[string]any{"session": owner, "tool": "bash", "command": "cat notes.txt", "handle": true})
	if !v.Allowed || v.Handle == "" {
		t.Fatalf("no handle: %+v", v)
	}
	var r gate.RunResult
	err := e.Try("admit/run", map[string]any{"session": thief, "handle": v.Handle}, &r)
	if err == nil || !strings.Contains(err.Error(), "given to session") || r.Ran {
		t.Fatalf("another session's redeem: %v %+v", err, r)
	}
	r = gate.RunResult{}
	e.Call("admit/run", map[string]any{"session": owner, "handle": v.Handle}, &r)
	if !r.Ran || r.Stdout != "hello notes.txt\n" {
		t.Fatalf("the owner's redeem after the thief's: %+v", r)
	}
	if err := e.Try("admit/run", map[string]any{"session": owner, "handle": v.Handle}, &r); err == nil || !strings.Contains(err.Error(), "no such handle") {
		t.Fatalf("the handle ran twice: %v", err)
	}
}
