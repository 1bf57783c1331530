package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"admit/rpc/rpctest"
)

// Attacks on the gate through the door they come in by: an agent
// host's hook. Each ends in a refusal or an ask; where the host would
// have run the line, the test runs what the answer lets run, as the host
// would, and a harmless marker shows that nothing ran.

// claudeBash is a Claude Code PreToolUse event for its Bash tool.
func claudeBash(t *testing.T, cwd string, input map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"session_id": "attack", "transcript_path": "/dev/null", "cwd": cwd, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_attack",
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hookAnswer runs admit hook claude-code on ev, deciding alone, and
// returns the permission decision and its reason.
func hookAnswer(t *testing.T, w hookWorkspace, ev []byte) (decision, reason string) {
	t.Helper()
	return hookAnswerAt(t, w, w.socket, ev)
}

// hookAnswerAt is hookAnswer through the editor's server at socket.
func hookAnswerAt(t *testing.T, w hookWorkspace, socket string, ev []byte) (decision, reason string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	hookCmd([]string{"claude-code", "--socket", socket, "--tape", w.tape, "--timeout", "10s"}, Stdio{In: bytes.NewReader(ev), Out: &stdout, Err: &stderr})
	var v struct {
		HookSpecificOutput struct {
			PermissionDecision       string          `json:"permissionDecision"`
			PermissionDecisionReason string          `json:"permissionDecisionReason"`
			UpdatedInput             json.RawMessage `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("the answer is not JSON: %q (%s)", stdout.String(), stderr.String())
	}
	return v.HookSpecificOutput.PermissionDecision, v.HookSpecificOutput.PermissionDecisionReason
}

// hostRuns runs line as Claude Code's Bash tool would, in dir with the
// environment env, when the hook's decision lets it run.
func hostRuns(t *testing.T, decision, line, dir string, env []string) {
	t.Helper()
	if decision != "allow" {
		return
	}
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	_ = cmd.Run()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// The agent writes .venv/bin/ls into the workspace, makes it executable,
// and the host's PATH holds .venv/bin first (an activated virtualenv):
// ls then runs the agent's script, so admit asks, as for code that runs.
func TestHookWorkspaceProgramOnPath(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	marker := filepath.Join(t.TempDir(), "RAN")
	bin := filepath.Join(w.root, ".venv", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := bin + ":" + os.Getenv("PATH")
	t.Setenv("PATH", path) // the host's, which the hook inherits
	env := []string{"PATH=" + path, "HOME=" + w.home}

	for _, line := range []string{"ls", "ls -la src"} {
		decision, reason := hookAnswer(t, w, claudeBash(t, w.root, map[string]any{"command": line}))
		if decision == "allow" || !bytes.Contains([]byte(reason), []byte("runs-code")) {
			t.Errorf("%s with .venv/bin first on PATH: %s (%s)", line, decision, reason)
		}
		hostRuns(t, decision, line, w.root, env)
		if exists(marker) {
			t.Fatalf("%s: the agent's .venv/bin/ls ran", line)
		}
	}
	// The same line from a PATH without the workspace is the table's ls.
	t.Setenv("PATH", os.Getenv("PATH")[len(bin)+1:])
	if decision, reason := hookAnswer(t, w, claudeBash(t, w.root, map[string]any{"command": "ls src"})); decision != "allow" {
		t.Errorf("ls src from the system's PATH: %s (%s)", decision, reason)
	}
	// The premise: the host's shell runs the agent's script for ls.
	hostRuns(t, "allow", "ls", w.root, env)
	if !exists(marker) {
		t.Fatal("the premise failed: bash did not run .venv/bin/ls for ls")
	}
}

// The line writes the file the repository's configuration includes, then
// runs git status, which would run the core.fsmonitor just written: the
// hook refuses it, and the host runs nothing.
func TestHookGitIncludeWrittenOnTheLine(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	t.Setenv("ADMIT_EFFECTS", "workspace-write")
	if err := os.RemoveAll(filepath.Join(w.root, ".git")); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + w.home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	for _, args := range [][]string{{"init", "-q"}, {"config", "include.path", "../.gitconfig"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = w.root, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	marker := filepath.Join(t.TempDir(), "RAN")
	line := `printf '[core]\n\tfsmonitor = touch ` + marker + `\n' >> .gitconfig; git status`
	// Through the editor's server, where the agent listed the folder
	// first: the write itself is one the policy would admit, and only
	// git's reading of it refuses the line.
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Listen: rpctest.Socket(t), Home: w.home,
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"dirs": []string{w.root}}, &n)
	decision, reason := hookAnswerAt(t, w, e.Socket, claudeBash(t, w.root, map[string]any{"command": line}))
	if decision == "allow" || !strings.Contains(reason, "dynamic-word") || !strings.Contains(reason, ".gitconfig") {
		t.Errorf("an include's file written before git status: %s (%s)", decision, reason)
	}
	hostRuns(t, decision, line, w.root, env)
	if exists(marker) {
		t.Fatal("the fsmonitor written on the line ran")
	}
	// The premise: the host's shell would have run it.
	hostRuns(t, "allow", line, w.root, env)
	if !exists(marker) {
		t.Fatal("the premise failed: git status did not run the included core.fsmonitor")
	}
}

// Two calls racing: a background mv -f evil docs/notes.txt (evil a link
// to a secret outside), then cat docs/notes.txt while it may still run.
// Through the editor's server, the second is refused; the host runs only
// what the answers let run, and the secret is never read. Once the host's
// shell has run the rewritten background call (admit run --handle), the
// hold is over and the file is judged as it is: a link leading out.
func TestHookBackgroundRace(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("TOKEN-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(w.root, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(w.root, "evil")); err != nil {
		t.Fatal(err)
	}
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Listen: rpctest.Socket(t), Home: w.home,
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	var n struct {
		Observed int `json:"observed"`
	}
	e.Call("admit/observe", map[string]any{"dirs": []string{w.root, docs}}, &n)

	bgLine := "mv -f evil docs/notes.txt"
	ev := claudeBash(t, w.root, map[string]any{"command": bgLine, "run_in_background": true})
	var stdout, stderr bytes.Buffer
	hookCmd([]string{"claude-code", "--socket", e.Socket, "--timeout", "10s"}, Stdio{In: bytes.NewReader(ev), Out: &stdout, Err: &stderr})
	var answer struct {
		HookSpecificOutput struct {
			PermissionDecision string         `json:"permissionDecision"`
			UpdatedInput       map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil || answer.HookSpecificOutput.PermissionDecision != "allow" {
		t.Fatalf("the background mv: %s %s", stdout.String(), stderr.String())
	}
	rewritten, _ := answer.HookSpecificOutput.UpdatedInput["command"].(string)

	// The host has started the background command, which has not got to
	// the mv yet; the agent's next call reads the file.
	out := filepath.Join(t.TempDir(), "cat-output")
	readLine := "cat docs/notes.txt > " + out
	decision, reason := hookAnswerAt(t, w, e.Socket, claudeBash(t, w.root, map[string]any{"command": "cat docs/notes.txt"}))
	if decision == "allow" || !strings.Contains(reason, "path-in-flux") {
		t.Fatalf("cat docs/notes.txt during the background mv: %s (%s)", decision, reason)
	}
	env := append(os.Environ(), "ADMIT_TEST_AS_ADMIT=1", "HOME="+w.home, "ADMIT_SOCKET="+e.Socket)
	hostRuns(t, decision, readLine, w.root, env)
	// The background command now runs (the host's shell runs its
	// rewritten line: admit run redeems the handle and runs the mv).
	if rewritten == "" {
		t.Fatal("the background call was not rewritten")
	}
	hostRuns(t, "allow", rewritten, w.root, env)
	if fi, err := os.Lstat(filepath.Join(docs, "notes.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the background mv did not run: %v", err)
	}
	if data, _ := os.ReadFile(out); strings.Contains(string(data), "TOKEN") {
		t.Fatal("the secret was read")
	}
	// Its run is over, so the hold is: the file is judged as it is now.
	decision, reason = hookAnswerAt(t, w, e.Socket, claudeBash(t, w.root, map[string]any{"command": "cat docs/notes.txt"}))
	if decision == "allow" || !strings.Contains(reason, "outside-workspace") {
		t.Fatalf("cat docs/notes.txt after the mv: %s (%s)", decision, reason)
	}
	// The premise: had the read been let through, it would have read the
	// secret once the mv ran.
	hostRuns(t, "allow", readLine, w.root, env)
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "TOKEN") {
		t.Fatal("the premise failed: the read did not reach the secret")
	}
}

// A committed symlink leads out of the workspace (up -> a folder
// outside): cat up/secret was always refused, and cat u*/secret, which
// bash expands through the link, is refused too; so is a Glob through it.
func TestHookPatternThroughLinkOut(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("TOKEN-456\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.root, "up")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cat-output")
	for _, line := range []string{"cat up/secret", "cat u*/secret", "cat ?p/secret", "head -n 1 [u]p/*"} {
		decision, reason := hookAnswer(t, w, claudeBash(t, w.root, map[string]any{"command": line}))
		if decision == "allow" || !strings.Contains(reason, "outside-workspace") {
			t.Errorf("%s: %s (%s)", line, decision, reason)
		}
		hostRuns(t, decision, line+" > "+out, w.root, []string{"PATH=" + os.Getenv("PATH")})
		if data, _ := os.ReadFile(out); strings.Contains(string(data), "TOKEN") {
			t.Fatalf("%s: the secret was read", line)
		}
	}
	glob, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": w.root, "hook_event_name": "PreToolUse",
		"tool_name": "Glob", "tool_input": map[string]any{"pattern": "u*/*"}})
	if decision, reason := hookAnswer(t, w, glob); decision == "allow" || !strings.Contains(reason, "outside-workspace") {
		t.Errorf("Glob u*/*: %s (%s)", decision, reason)
	}
	// The premise: bash expands u*/secret through the link.
	hostRuns(t, "allow", "cat u*/secret > "+out, w.root, []string{"PATH=" + os.Getenv("PATH")})
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "TOKEN") {
		t.Fatal("the premise failed: bash did not expand u*/secret through the link")
	}
}

// vscodeTerminal is VS Code's run_in_terminal event in its Local
// harness: the event's cwd is the workspace, wherever the chat's terminal
// is by now.
func vscodeTerminal(t *testing.T, cwd, line string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse", "session_id": "chat-1", "transcript_path": "/dev/null", "cwd": cwd,
		"tool_name": "run_in_terminal", "tool_input": map[string]any{"command": line, "explanation": "", "isBackground": false}, "tool_use_id": "call_1",
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// VS Code types a chat's lines into one terminal, which keeps its
// folder: "cd .git", then "echo ... > config" writes .git/config (git
// runs its fsmonitor on the next status). Through the editor's server,
// the second line is judged in .git, where the terminal is, and the
// shell that really runs the lines, in one terminal, never writes it.
func TestHookTerminalKeepsItsFolder(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Listen: rpctest.Socket(t), Home: w.home,
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write", "shell": "bash-interactive"}})
	answer := func(line string) string {
		decision, reason := terminalLine(t, w, e.Socket, line)
		t.Logf("%s: %s (%s)", line, decision, reason)
		return decision
	}
	// The agent has listed both folders, so a new file in either is one
	// it may write, by what it observed.
	lines := []string{"ls", "ls .git", "cd .git", "echo '[core] fsmonitor = touch pwned' > config"}
	var ran []string
	for _, line := range lines {
		if answer(line) == "allow" {
			ran = append(ran, line)
		}
	}
	if len(ran) == len(lines) {
		t.Errorf("every line allowed")
	}
	// The terminal: one shell that reads the lines admitted, in turn.
	cmd := exec.Command("bash", "--norc", "--noprofile")
	cmd.Dir, cmd.Stdin = w.root, strings.NewReader(strings.Join(ran, "\n")+"\n")
	_ = cmd.Run()
	if exists(filepath.Join(w.root, ".git", "config")) {
		t.Fatal(".git/config was written through the terminal")
	}
	// Lines that stay where they are go on being allowed.
	if answer("ls") != "allow" {
		t.Error("ls in the terminal's folder was not allowed")
	}
}

// terminalLine answers line, typed by VS Code's run_in_terminal into the
// chat's terminal, through admit hook copilot with the server at socket
// (or none there): the decision and its reason.
func terminalLine(t *testing.T, w hookWorkspace, socket, line string) (decision, reason string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	hookCmd([]string{"copilot", "--socket", socket, "--tape", w.tape, "--timeout", "10s"}, Stdio{In: bytes.NewReader(vscodeTerminal(t, w.root, line)), Out: &stdout, Err: &stderr})
	var v struct {
		PermissionDecision string `json:"permissionDecision"`
		Reason             string `json:"permissionDecisionReason"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("%s: the answer is not JSON: %q (%s)", line, stdout.String(), stderr.String())
	}
	return v.PermissionDecision, v.Reason
}

// TestHookAloneTerminalStays: deciding alone, admit hook lives for one
// line and cannot follow the terminal to the next: a line that may leave
// it in another folder is refused, whatever it does meanwhile; lines that
// stay where they are, and ones that go elsewhere only in a subshell, are
// judged as ever.
func TestHookAloneTerminalStays(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	t.Setenv("SHELL", "/bin/bash")
	for line, want := range map[string]string{
		"ls":                 "allow",
		"(cd src && ls)":     "allow",
		"cd .git":            "deny",
		"cd src && ls":       "deny",
		"ls && cd src":       "deny",
		"cd src && cd ..":    "allow",
		"cd \"$ROOT\" && ls": "allow",
	} {
		line = strings.ReplaceAll(line, "$ROOT", w.root)
		decision, reason := terminalLine(t, w, w.socket, line)
		if decision != want {
			t.Errorf("%s: %s (%s), want %s", line, decision, reason, want)
		}
		if strings.HasPrefix(line, "cd ") && want == "deny" && !strings.Contains(reason, "decides alone here") {
			t.Errorf("%s: the reason does not say why: %s", line, reason)
		}
	}
}
