package cli

import (
	"admit/rpc/rpctest"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"admit/hook/connect"
)

// TestConnectCodexTrust: connected, Codex's hooks are inert until the
// person trusts them in Codex (a trust record in config.toml whose hash
// is the entry's); connect says so, --list says "connected, not
// trusted: inert", and an entry changed since it was trusted is inert
// again.
func TestConnectCodexTrust(t *testing.T) {
	w := newConnectWorld(t)
	code, out, stderr := w.admit(t, w.bin, "connect", "--yes", "codex")
	if code != 0 || !strings.Contains(out, "Codex: connected, not trusted: inert") || !strings.Contains(out, "Open /hooks in Codex") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	list := func() string {
		_, out, _ := w.admit(t, w.bin, "connect", "--list")
		return out
	}
	if out := list(); !strings.Contains(out, "connected, not trusted: inert") || !strings.Contains(out, ":pre_tool_use:") {
		t.Fatalf("not reported inert:\n%s", out)
	}
	hooksPath := filepath.Join(w.home, ".codex", "hooks.json")
	data, err := os.ReadFile(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(w.home, ".codex", "config.toml")
	original, _ := os.ReadFile(cfgPath)
	write := func(s string) {
		if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pre := connect.CodexTrustRecord(hooksPath, data, "PreToolUse")
	perm := connect.CodexTrustRecord(hooksPath, data, "PermissionRequest")
	if !strings.Contains(pre, ":pre_tool_use:") || !strings.Contains(pre, `trusted_hash = "sha256:`) || perm == "" {
		t.Fatalf("trust records:\n%s\n%s", pre, perm)
	}
	// One trusted, the other not: still inert, naming the one left.
	write(string(original) + "\n" + pre)
	if out := list(); !strings.Contains(out, "connected, not trusted: inert") || strings.Contains(out, "PreToolUse is not trusted") || !strings.Contains(out, "PermissionRequest is not trusted") {
		t.Fatalf("half trusted:\n%s", out)
	}
	write(string(original) + "\n" + pre + perm)
	if out := list(); strings.Contains(out, "inert") || !regexpLine(out, "codex", "yes", "connected") {
		t.Fatalf("trusted, yet:\n%s", out)
	}
	// Switched off in Codex's screen: inert, and says so.
	write(string(original) + "\n" + pre + "enabled = false\n" + perm)
	if out := list(); !strings.Contains(out, "turned off in Codex's /hooks") {
		t.Fatalf("disabled, yet:\n%s", out)
	}
	// A hash of another entry (the person trusted an older one): inert.
	write(string(original) + "\n" + strings.Replace(pre, "sha256:", "sha256:00", 1) + perm)
	if out := list(); !strings.Contains(out, "changed since it was trusted") {
		t.Fatalf("a stale trust, yet:\n%s", out)
	}
	// The same records as Codex may also write them: inline tables.
	inline := "[hooks.state]\n"
	for _, rec := range []string{pre, perm} {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		key := strings.TrimSuffix(strings.TrimPrefix(lines[0], "[hooks.state."), "]")
		inline += key + " = { " + lines[1] + " }\n"
	}
	write(string(original) + "\n" + inline)
	if out := list(); strings.Contains(out, "inert") {
		t.Fatalf("inline records not read:\n%s\n%s", inline, out)
	}
}

// TestHookLocalHarnessNoCwd: VS Code's Local harness starts the hook in the
// home folder with no cwd in the event and the extension host's
// environment, where the admit extension puts ADMIT_SOCKET. The editor's
// server then decides, from its own workspace: a write and a terminal
// line in the workspace are allowed, one outside refused. Without the
// socket the hook cannot take the home folder for a workspace, and says
// how the editor's server is found.
func TestHookLocalHarnessNoCwd(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}, Answer: rpctest.Always("allow-once")})
	run := func(socket, fixture string, replace ...string) (int, string, string) {
		cmd := admitCmd(t, []string{"HOME=" + w.home, "ADMIT_SOCKET=" + socket, "SHELL=/bin/bash"}, "hook", "copilot", "--tape", w.tape)
		cmd.Dir = w.home // hookExecutor.ts: cwd = hook.cwd ?? homedir()
		ev := w.event(t, filepath.Join("..", "..", "hook", "testdata", "copilot", fixture))
		for i := 0; i+1 < len(replace); i += 2 {
			ev = bytes.ReplaceAll(ev, []byte(replace[i]), []byte(replace[i+1]))
		}
		cmd.Stdin = bytes.NewReader(ev)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		return exitCode(t, cmd.Run()), out.String(), errb.String()
	}
	for _, fx := range []string{"14-vscode-read_file-nocwd.json", "15-vscode-run_in_terminal-nocwd.json"} {
		code, out, stderr := run(e.Socket, fx)
		if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) || strings.Contains(out, "decided alone") {
			t.Errorf("%s with the editor's socket: exit %d\n%s\n%s", fx, code, out, stderr)
		}
		rpctest.Within(t, e.Decided, fx+" decided by the editor's server")
	}
	if err := os.MkdirAll(filepath.Join(w.home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.home, ".ssh", "id_rsa"), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(e.Socket, "14-vscode-read_file-nocwd.json", w.root+"/README.md", filepath.Join(w.home, ".ssh", "id_rsa"))
	if !denied(code, out) || !strings.Contains(out, "REFUSED by admit") {
		t.Errorf("a read of ~/.ssh/id_rsa: exit %d\n%s", code, out)
	}
	rpctest.Within(t, e.Decided, "the read outside decided by the editor's server")
	// No server to reach: refused, saying how the server is found.
	code, out, _ = run(filepath.Join(t.TempDir(), "none.sock"), "14-vscode-read_file-nocwd.json")
	if !denied(code, out) || !strings.Contains(out, "ADMIT_SOCKET") || !strings.Contains(out, "names no folder") {
		t.Errorf("no server: exit %d\n%s", code, out)
	}
}

// TestHookCursorAskIsRefused: Cursor does not enforce an ask on
// preToolUse (the call would run with nobody asked), so a call that needs
// a person and could not be asked in the editor is denied at exit 0, with
// a plain-text message that says so in both of Cursor's message fields.
func TestHookCursorAskIsRefused(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	if err := os.WriteFile(filepath.Join(w.root, "package.json"), []byte(`{"scripts":{"test":"echo hi"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fx := hostFixture{path: filepath.Join("..", "..", "hook", "testdata", "cursor", "09-preToolUse-shell-asks.json")}
	code, out, _ := hookProcess(t, w, "cursor", fx, w.socket)
	var o struct{ Permission, User_message, Agent_message string }
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if code != 0 || o.Permission != "deny" || !strings.Contains(o.User_message, "a person") || o.Agent_message != o.User_message || strings.HasPrefix(o.User_message, "{") {
		t.Errorf("exit %d: %+v", code, o)
	}
}

// TestConnectGeminiFolderTrust: Gemini CLI runs no hooks in a folder it
// does not trust, nor in a trusted workspace whose .gemini/settings.json
// switches them off or disables admit's; --list (from the workspace)
// says so, and stays "connected" where the hook does run.
func TestConnectGeminiFolderTrust(t *testing.T) {
	w := newConnectWorld(t)
	if code, out, stderr := w.admit(t, w.bin, "connect", "--yes", "gemini-cli"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	trustFile := filepath.Join(w.home, ".gemini", "trustedFolders.json")
	wsSettings := filepath.Join(w.root, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(wsSettings), 0o755); err != nil {
		t.Fatal(err)
	}
	userSettings := filepath.Join(w.home, ".gemini", "settings.json")
	connected, _ := os.ReadFile(userSettings)
	put := func(path, content string) {
		t.Helper()
		if content == "" {
			os.Remove(path)
			return
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parent := filepath.Dir(w.root)
	for _, c := range []struct {
		name, trust, ws, state, says string
	}{
		{"no trust rule", "", "", "connected, folder not trusted yet: inert", "in no trusted folder"},
		{"trusted", `{"` + w.root + `": "TRUST_FOLDER"}`, "", "connected", ""},
		{"trusted through its parent", `{"` + filepath.Join(w.root, "sub") + `": "TRUST_PARENT"}`, "", "connected", ""},
		{"distrusted", `{"` + parent + `": "TRUST_FOLDER", "` + w.root + `": "DO_NOT_TRUST"}`, "", "connected, untrusted folder: inert", "is not trusted"},
		{"a longer rule trusts it", `{"` + parent + `": "DO_NOT_TRUST", "` + w.root + `": "TRUST_FOLDER"}`, "", "connected", ""},
		{"hooks off in the workspace", `{"` + w.root + `": "TRUST_FOLDER"}`, `{"hooksConfig": {"enabled": false}}`, "connected, hooks off in the workspace: inert", "hooksConfig.enabled to false"},
		{"admit disabled in the workspace", `{"` + w.root + `": "TRUST_FOLDER"}`, "{\n  // hostile\n  \"hooksConfig\": {\"disabled\": [\"admit\"]}\n}", "connected, hooks off in the workspace: inert", `lists "admit"`},
	} {
		put(trustFile, c.trust)
		put(wsSettings, c.ws)
		_, out, _ := w.admit(t, w.bin, "connect", "--list")
		if !strings.Contains(out, "gemini-cli   yes        "+c.state) && !lineHas(out, "gemini-cli", c.state) || c.says != "" && !strings.Contains(out, c.says) || c.says == "" && strings.Contains(out, "Gemini CLI: ") {
			t.Errorf("%s: want %q (%q):\n%s", c.name, c.state, c.says, out)
		}
	}
	// Folder trust switched off in the person's settings: every folder is
	// trusted.
	put(trustFile, `{"`+w.root+`": "DO_NOT_TRUST"}`)
	put(wsSettings, "")
	put(userSettings, strings.Replace(string(connected), "{", `{"security": {"folderTrust": {"enabled": false}},`, 1))
	if _, out, _ := w.admit(t, w.bin, "connect", "--list"); !lineHas(out, "gemini-cli", "connected") || strings.Contains(out, "inert") {
		t.Errorf("folder trust off, yet:\n%s", out)
	}
}

// lineHas says whether the --list line of host shows state (which may
// hold spaces) after its installed column.
func lineHas(out, host, state string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if i := slices.Index(f, host); i >= 0 && i+2 < len(f) {
			rest := strings.Join(f[i+2:], " ")
			if strings.HasPrefix(rest, state+" ") && (state != "connected" || !strings.HasPrefix(rest, "connected,")) {
				return true
			}
		}
	}
	return false
}

// TestHookGeminiNobodyAtPrompt: started by a Gemini CLI in its
// non-interactive mode (gemini -p), where an ask ends the run with no
// result, a call that needs a person is denied with a reason the model
// reads; started by an interactive one, it is asked, with the reason in
// systemMessage, which Gemini CLI shows its user.
func TestHookGeminiNobodyAtPrompt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the host's mode is read from /proc")
	}
	w := newHookWorkspace(t)
	if err := os.WriteFile(filepath.Join(w.root, "package.json"), []byte(`{"scripts":{"test":"echo hi"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A stand-in for the gemini launcher: a script of that name, run
	// with Gemini CLI's flags, that runs the hook through a shell as
	// Gemini CLI does.
	gemini := filepath.Join(t.TempDir(), "gemini")
	script := "#!/bin/sh\nsh -c \"'" + self + "' hook gemini-cli --socket '" + w.socket + "' --tape '" + w.tape + "'\"\n"
	if err := os.WriteFile(gemini, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	event := `{"session_id":"s","cwd":"` + w.root + `","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"npm test"}}`
	run := func(args ...string) map[string]string {
		cmd := exec.Command("/bin/sh", append([]string{gemini}, args...)...)
		cmd.Env = append(os.Environ(), "ADMIT_TEST_AS_ADMIT=1", "HOME="+w.home, "ADMIT_SOCKET=")
		cmd.Dir = w.root
		cmd.Stdin = strings.NewReader(event)
		out, _ := cmd.Output()
		var o map[string]string
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
		return o
	}
	if o := run("-p", "run the tests", "--approval-mode", "yolo"); o["decision"] != "deny" || !strings.Contains(o["reason"], "needs a person") && !strings.Contains(o["reason"], "person") || o["systemMessage"] == "" {
		t.Errorf("gemini -p: %v", o)
	}
	if o := run("-i", "run the tests"); o["decision"] != "ask" || !strings.Contains(o["systemMessage"], "a person must approve") {
		t.Errorf("gemini -i: %v", o)
	}
}

// TestConnectFlagsAfterTheAgent: flags may follow the agents' names, and
// "--" ends them.
func TestConnectFlagsAfterTheAgent(t *testing.T) {
	w := newConnectWorld(t)
	before := snapshotHome(t, w.home)
	code, out, stderr := w.admit(t, w.bin, "connect", "claude-code", "--dry-run")
	if code != 0 || !strings.Contains(out, "hook claude-code") || strings.Contains(stderr, "unknown agent") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !maps.Equal(snapshotHome(t, w.home), before) {
		t.Fatal("--dry-run after the agent wrote")
	}
	if code, _, stderr := w.admit(t, w.bin, "connect", "--", "--dry-run"); code != exitUsage || !strings.Contains(stderr, `unknown agent "--dry-run"`) {
		t.Fatalf("after --: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := w.admit(t, w.bin, "connect", "claude-code", "--effects", "everything"); code != exitUsage || !strings.Contains(stderr, "everything") {
		t.Fatalf("a bad effect mode: exit %d\n%s", code, stderr)
	}
}

// TestConnectEffectsDecidingAlone: the effect mode of a hook deciding
// alone is the person's choice, written by admit connect --effects to
// $XDG_CONFIG_HOME/admit/settings.json; read-only until chosen;
// ADMIT_EFFECTS in a host's configuration still wins; a settings file
// admit cannot read refuses rather than guess.
func TestConnectEffectsDecidingAlone(t *testing.T) {
	w := newConnectWorld(t)
	xdg := t.TempDir()
	w.env = append(w.env, "XDG_CONFIG_HOME="+xdg, "ADMIT_EFFECTS=", "ADMIT_SOCKET="+w.socket)
	if err := os.WriteFile(filepath.Join(w.root, "notes.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hook := func(extraEnv ...string) (int, string) {
		cmd := exec.Command(w.bin, "hook", "claude-code", "--tape", w.tape)
		cmd.Env = append(append(append(os.Environ(), w.env...), "PATH="+os.Getenv("PATH")), extraEnv...)
		cmd.Dir = w.root
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","cwd":"` + w.root + `","tool_name":"Bash","tool_input":{"command":"git commit -m x"}}`)
		out, err := cmd.Output()
		return exitCode(t, err), string(out)
	}
	if code, out := hook(); !denied(code, out) || !strings.Contains(out, "read-only-effects") {
		t.Fatalf("default: exit %d %s", code, out)
	}
	code, out, stderr := w.admit(t, w.bin, "connect", "claude-code", "--yes", "--effects", "workspace-write")
	settings := filepath.Join(xdg, "admit", "settings.json")
	if code != 0 || !strings.Contains(out, "effects workspace-write ("+settings+")") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if code, out := hook(); code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("workspace-write: exit %d %s", code, out)
	}
	if _, out, _ := w.admit(t, w.bin, "connect", "--list"); !strings.Contains(out, "uses mode enforce and effects workspace-write") {
		t.Fatalf("--list:\n%s", out)
	}
	if code, out := hook("ADMIT_EFFECTS=read-only"); !denied(code, out) || !strings.Contains(out, "read-only-effects") {
		t.Fatalf("ADMIT_EFFECTS over the file: exit %d %s", code, out)
	}
	if err := os.WriteFile(settings, []byte(`{"effects": "workspace-write", "trust": "everything"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := hook(); !denied(code, out) || !strings.Contains(out, "trust") || !strings.Contains(out, "settings.json") {
		t.Fatalf("an unknown key: exit %d %s", code, out)
	}
}

// TestConnectStrayGitInTemp: a .git that anyone made in the temporary
// folder is no repository: connecting from a folder below it, with the
// home folder below it too, is not refused.
func TestConnectStrayGitInTemp(t *testing.T) {
	w := newConnectWorld(t)
	tmp := filepath.Join(t.TempDir(), "tmp")
	for _, d := range []string{filepath.Join(tmp, ".git"), filepath.Join(tmp, "proj"), filepath.Join(tmp, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(w.bin, "connect", "--yes", "claude-code")
	cmd.Env = append(append(os.Environ(), w.env...), "TMPDIR="+tmp, "HOME="+filepath.Join(tmp, "home"))
	cmd.Dir = filepath.Join(tmp, "proj")
	out, err := cmd.CombinedOutput()
	if code := exitCode(t, err); code != 0 || !strings.Contains(string(out), "Claude Code: connected") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
