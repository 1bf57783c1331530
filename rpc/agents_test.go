package rpc_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"admit/hook/connect"
	"admit/rpc"
	"admit/rpc/rpctest"
)

// agentsHome is a home folder holding a Claude Code configuration of the
// person's, and an admit binary outside it; the environment names no
// other folders and finds no agent on PATH.
func agentsHome(t *testing.T) (home, bin, settings, original string) {
	t.Helper()
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"} {
		t.Setenv(v, "")
	}
	t.Setenv("PATH", t.TempDir())
	home, _ = filepath.EvalSymlinks(t.TempDir())
	settings = filepath.Join(home, ".claude", "settings.json")
	original = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]\n  }\n}\n"
	must(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	must(t, os.WriteFile(settings, []byte(original), 0o600))
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	bin = filepath.Join(dir, "admit")
	must(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	return home, bin, settings, original
}

func agentStatus(t *testing.T, r rpc.AgentsResult, host string) connect.Status {
	t.Helper()
	for _, st := range r.Agents {
		if st.Host == host {
			return st
		}
	}
	t.Fatalf("no %s in %+v", host, r)
	return connect.Status{}
}

// TestAgentMethods: admit/agents shows the change, admit/connectAgent
// writes it with a backup, admit/disconnectAgent undoes it to the
// original bytes.
func TestAgentMethods(t *testing.T) {
	home, bin, settings, original := agentsHome(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{workspaceDir(t)}, Home: home, Approve: true})
	var r rpc.AgentsResult
	e.Call("admit/agents", map[string]any{"binary": bin}, &r)
	if r.Binary != bin || r.BinaryProblem != "" || len(r.Agents) != len(connect.Hosts()) {
		t.Fatalf("%+v", r)
	}
	st := agentStatus(t, r, "claude-code")
	if !st.Installed || st.State != connect.StateNotConnected || st.Config != settings || st.Change == nil || !st.MissingBinaryBlocks {
		t.Fatalf("%+v", st)
	}
	fc := st.Change.Files[0]
	if fc.Path != settings || fc.Before != original || !strings.Contains(fc.After, `"say done"`) || !strings.Contains(st.Change.Diff, "+            \"command\": \"'"+bin+"' hook claude-code --host-timeout 600s || exit 2\",") {
		t.Fatalf("change:\n%s", st.Change.Diff)
	}
	if cursor := agentStatus(t, r, "cursor"); cursor.Installed || cursor.Change == nil {
		t.Fatalf("cursor: %+v", cursor)
	}

	var res connect.Result
	e.Call("admit/connectAgent", map[string]any{"host": "claude-code", "binary": bin, "sum": st.Change.Sum}, &res)
	if !res.Status.Connected || res.Status.Binary != bin || len(res.Backups) != 1 || res.Status.Undo == nil {
		t.Fatalf("%+v", res)
	}
	if data, _ := os.ReadFile(settings); string(data) != fc.After {
		t.Fatalf("written:\n%s", data)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if b, _ := os.ReadFile(settings + ".admit-backup"); string(b) != original {
		t.Fatalf("backup %q", b)
	}
	e.Call("admit/agents", map[string]any{"binary": bin}, &r)
	if st := agentStatus(t, r, "claude-code"); !st.Connected || st.Change != nil {
		t.Fatalf("%+v", st)
	}

	e.Call("admit/disconnectAgent", map[string]any{"host": "claude-code", "sum": res.Status.Undo.Sum}, &res)
	if res.Status.State != connect.StateNotConnected {
		t.Fatalf("%+v", res.Status)
	}
	if data, _ := os.ReadFile(settings); string(data) != original {
		t.Fatalf("not undone:\n%s", data)
	}
}

// TestAgentMethodErrors: each refusal names its field, and writes nothing.
func TestAgentMethodErrors(t *testing.T) {
	home, bin, settings, original := agentsHome(t)
	ws := workspaceDir(t)
	inWS := filepath.Join(ws, "admit")
	must(t, os.WriteFile(inWS, []byte("#!/bin/sh\n"), 0o755))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Home: home, Approve: true})
	for _, c := range []struct {
		method string
		params map[string]any
		code   jsonrpc2.Code
		want   string
	}{
		{"admit/connectAgent", map[string]any{"host": "claude", "binary": bin}, jsonrpc2.InvalidParams, `host: unknown agent "claude"`},
		{"admit/connectAgent", map[string]any{"host": "claude-code", "binary": "admit"}, jsonrpc2.InvalidParams, "binary: the path is relative"},
		{"admit/connectAgent", map[string]any{"host": "claude-code", "binary": inWS}, jsonrpc2.InvalidParams, "binary: it is inside the workspace " + ws},
		{"admit/connectAgent", map[string]any{"host": "claude-code", "binary": bin, "sum": "sha256:00"}, jsonrpc2.InvalidParams, "sum: the configuration changed"},
		{"admit/connectAgent", map[string]any{"host": "claude-code", "binary": bin, "force": true}, jsonrpc2.InvalidParams, "force: unknown field"},
		{"admit/agents", map[string]any{"host": "x"}, jsonrpc2.InvalidParams, "host: unknown field"},
	} {
		err := e.Try(c.method, c.params, nil)
		if rpctest.ErrCode(err) != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %d %q", c.method, c.params, err, c.code, c.want)
		}
	}
	if data, _ := os.ReadFile(settings); string(data) != original {
		t.Fatal("written")
	}
	// A configuration that does not parse: the file and the line.
	broken := "{\n  \"model\": \"opus\",,\n}\n"
	must(t, os.WriteFile(settings, []byte(broken), 0o600))
	var r rpc.AgentsResult
	e.Call("admit/agents", map[string]any{"binary": bin}, &r)
	if st := agentStatus(t, r, "claude-code"); st.State != connect.StateUnreadable || !strings.Contains(st.Problem, settings+": line 2, column 19") || st.Change != nil {
		t.Fatalf("%+v", st)
	}
	err := e.Try("admit/connectAgent", map[string]any{"host": "claude-code", "binary": bin}, nil)
	if rpctest.ErrCode(err) != jsonrpc2.InvalidRequest || !strings.Contains(err.Error(), settings) {
		t.Fatalf("%v", err)
	}
	if data, _ := os.ReadFile(settings); string(data) != broken {
		t.Fatal("written")
	}
	// A binary that cannot be named is said once, beside the statuses.
	e.Call("admit/agents", map[string]any{"binary": inWS}, &r)
	if !strings.Contains(r.BinaryProblem, "inside the workspace") || agentStatus(t, r, "cursor").Change != nil {
		t.Fatalf("%+v", r)
	}
}

// TestAgentMethodsEditorOnly: a program on the socket cannot point the
// person's agents at a binary of its choosing, nor read their
// configurations.
func TestAgentMethodsEditorOnly(t *testing.T) {
	home, bin, settings, original := agentsHome(t)
	sock := rpctest.Socket(t)
	rpctest.Start(t, rpctest.Options{Roots: []string{workspaceDir(t)}, Home: home, Approve: true, Listen: sock})
	ctx := context.Background()
	c, err := rpc.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, m := range []string{"admit/agents", "admit/connectAgent", "admit/disconnectAgent"} {
		err := c.Call(ctx, m, map[string]any{"host": "claude-code", "binary": bin}, nil)
		if rpctest.ErrCode(err) != jsonrpc2.InvalidRequest {
			t.Errorf("%s from the socket: %v", m, err)
		}
	}
	if data, _ := os.ReadFile(settings); string(data) != original {
		t.Fatal("written")
	}
}
