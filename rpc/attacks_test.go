package rpc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/rpc/rpctest"
)

// The attacks of issue 13 through the editor's server (rpctest's fake
// editor, which answers "deny" to every question it is asked): each
// ends in a refusal or a question. Nothing here runs a command.

// A program of the workspace on the PATH the call carries is asked, not
// judged as the read program of its name.
func TestCheckWorkspaceProgramOnPath(t *testing.T) {
	ws := workspaceDir(t)
	bin := filepath.Join(ws, ".venv", "bin")
	must(t, os.MkdirAll(bin, 0o755))
	must(t, os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\ntouch RAN\n"), 0o755))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Answer: rpctest.Always("deny"), Init: map[string]any{"mode": "enforce"}})
	path := bin + ":/usr/bin:/bin"
	v := e.Check(map[string]any{"tool": "bash", "command": "ls", "env": map[string]any{"PATH": path}})
	q := rpctest.Within(t, e.Asked, "the question about .venv/bin/ls")
	if v.Allowed || q.ID != v.ID || !strings.Contains(q.Reason, filepath.Join(bin, "ls")) {
		t.Fatalf("ls with .venv/bin on PATH: %+v, asked %+v", v, q)
	}
	// Without the PATH, ls is the table's.
	if v := e.Check(map[string]any{"tool": "bash", "command": "ls"}); !v.Allowed {
		t.Fatalf("ls without a PATH: %+v", v)
	}
	// A misspelt variable is an error, never no PATH at all.
	err := e.Try("admit/check", map[string]any{"tool": "bash", "command": "ls", "env": map[string]any{"Path": path}}, nil)
	if rpctest.ErrCode(err) != -32602 || !strings.Contains(err.Error(), "env.Path") {
		t.Fatalf("env.Path: %v", err)
	}
}
