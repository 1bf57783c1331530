package rpc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"admit/rpc/rpctest"
)

// TestSweepingPatternsRefused: through admit/openSession, a set of allow
// patterns that together grant (nearly) every tool is refused as a bare
// "*" is, however it is split; prefix patterns of one family are not. A
// tool the session's pattern grants is judged as a writer: with no path to
// check it is refused, with one inside the workspace it must be observed.
func TestSweepingPatternsRefused(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var raw json.RawMessage
	for _, allow := range [][]string{
		{"[a-z]*", "[A-Z]*", "_*"},
		{"*a*", "*e*", "*o*", "*i*"},
		{"*_*", "read"},
		{"a*", "b*", "c*", "d*", "e*", "f*", "g*", "l*", "r*", "s*", "u*", "w*"},
		{"[a-m]*"},
		{"*e*"},
	} {
		err := e.Try("admit/openSession", map[string]any{"label": "sweep", "allow": allow}, &raw)
		if rpctest.ErrCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "matches every tool name") {
			t.Errorf("allow %q: %v", allow, err)
		}
	}
	var out struct {
		Session string `json:"session"`
	}
	e.Call("admit/openSession", map[string]any{"label": "github", "allow": []string{"mcp__github__*", "read_*", "*_list", "read_file"}, "writeRoots": []string{ws}}, &out)
	check := func(tool string, args map[string]any) string {
		v := e.Check(map[string]any{"session": out.Session, "tool": tool, "args": args})
		if v.Allowed {
			return "allowed"
		}
		return string(v.Rule)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": "notes.txt"}, "allowed"}, // named: judged by its paths as a reader
		{"mcp__github__create_issue", map[string]any{"title": "x"}, "no-target"},
		{"mcp__github__push_files", map[string]any{"path": "README.md"}, "unobserved-target"},
		{"mcp__github__push_files", map[string]any{"path": "notes.txt"}, "allowed"}, // read above: an observed write
		{"read_secrets", map[string]any{"path": "/etc/passwd"}, "outside-write-root"},
	} {
		if got := check(c.tool, c.args); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.tool, c.args, got, c.want)
		}
	}
}
