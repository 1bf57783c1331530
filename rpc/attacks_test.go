package rpc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"admit/rpc/rpctest"
)

// Attacks on the gate through the editor's server (rpctest's fake
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
	if v.Allowed || q.ID != v.ID || !strings.Contains(q.Reason, ".venv/bin/ls") {
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

// gitIn runs git in dir with no configuration but the repository's.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// git is judged against the configuration it will read: a nested
// repository committed as a gitlink, with its own core.fsmonitor, makes
// git status in the outer one ask; a file an include names, written on
// the same line, refuses git; git config reads the repository's own
// configuration only.
func TestCheckGitConfiguration(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws := workspaceDir(t)
	gitIn(t, ws, "init", "-q")
	gitIn(t, ws, "config", "include.path", "../.gitconfig")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Answer: rpctest.Always("deny"),
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	if v := e.Check(map[string]any{"tool": "bash", "command": "git status"}); !v.Allowed {
		t.Fatalf("git status in a clean repository: %+v", v)
	}
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"dirs": []string{"."}}, &n)
	v := e.Check(map[string]any{"tool": "bash", "command": `printf '[core]\n\tfsmonitor=touch M\n' >> .gitconfig; git status`})
	if v.Allowed || v.Rule != "dynamic-word" || !strings.Contains(v.Reason, ".gitconfig") {
		t.Fatalf("an include's file written before git status: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "bash", "command": "git config --list"}); v.Allowed || v.Rule != "forbidden-flag" {
		t.Fatalf("git config --list: %+v", v)
	}
	if v := e.Check(map[string]any{"tool": "bash", "command": "git config --local --list"}); !v.Allowed {
		t.Fatalf("git config --local --list: %+v", v)
	}

	evil := filepath.Join(ws, "vendor", "evil")
	must(t, os.MkdirAll(evil, 0o755))
	gitIn(t, evil, "init", "-q")
	gitIn(t, evil, "commit", "-q", "--allow-empty", "-m", "x")
	gitIn(t, ws, "add", "vendor/evil")
	gitIn(t, evil, "config", "core.fsmonitor", "touch M; false")
	v = e.Check(map[string]any{"tool": "bash", "command": "git status"})
	q := rpctest.Within(t, e.Asked, "the question about the nested repository")
	if v.Allowed || q.ID != v.ID || !strings.Contains(q.Reason, "vendor/evil") {
		t.Fatalf("git status over a gitlink with its own fsmonitor: %+v, asked %+v", v, q)
	}
}

// The terminal keeps its folder between lines: after "cd .git", a write
// the host would judge as <ws>/config lands in .git/config. The gate
// judges the next line of the same terminal in the folder it tracked, so
// the write is judged as .git/config (protected: asked, and the fake
// editor's person refuses); a host that reports another folder for the
// terminal loses it for good.
func TestCheckTerminalFolder(t *testing.T) {
	ws := workspaceDir(t)
	must(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "config"), []byte("app config\n"), 0o644))
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Answer: rpctest.Always("deny"),
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"dirs": []string{".", ".git"}}, &n)
	term := func(line string, cwd string) map[string]any {
		p := map[string]any{"tool": "run_in_terminal", "command": line, "terminal": "term-1"}
		if cwd != "" {
			p["cwd"] = cwd
		}
		return p
	}
	if v := e.Check(term("cd .git", ws)); !v.Allowed {
		t.Fatalf("cd .git: %+v", v)
	}
	v := e.Check(term("echo x > config", ""))
	q := rpctest.Within(t, e.Asked, "the question about .git/config")
	if v.Allowed || q.ID != v.ID || !strings.Contains(v.Reason+q.Reason, ".git") || len(v.Targets) != 1 || v.Targets[0] != filepath.Join(ws, ".git", "config") {
		t.Fatalf("a write after cd .git, in the same terminal: %+v (asked %+v)", v, q)
	}
	// The same line in another terminal runs in the workspace's folder.
	if v := e.Check(map[string]any{"tool": "run_in_terminal", "command": "echo x > config", "terminal": "term-2", "cwd": ws}); !v.Allowed || v.Targets[0] != filepath.Join(ws, "config") {
		t.Fatalf("the write in a fresh terminal: %+v", v)
	}
	// A cd whose effect is not certain is refused in a terminal.
	if v := e.Check(term("cd .. || cd src", "")); v.Allowed || v.Rule != "dynamic-word" {
		t.Fatalf("cd .. || cd src: %+v", v)
	}
	// The host reports the workspace's folder for term-1, which the gate
	// tracked in .git: the terminal's folder is not known any more.
	if v := e.Check(term("ls", ws)); v.Allowed || v.Rule != "dynamic-word" || !strings.Contains(v.Reason, "new terminal") {
		t.Fatalf("a host that lost track of the terminal: %+v", v)
	}
	if v := e.Check(term("ls", "")); v.Allowed || !strings.Contains(v.Reason, "new terminal") {
		t.Fatalf("a lost terminal stays lost: %+v", v)
	}
}
