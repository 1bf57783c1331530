package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"admit/hook/connect"
	"admit/rpc"
	"admit/rpc/rpctest"
)

// connectWorld is a person's machine: a home folder holding realistic
// configurations of Claude Code, Gemini CLI, Copilot, Cursor and Codex
// (each with hooks and settings of the person's own), a repository to
// work in, and this test binary installed as admit outside both.
type connectWorld struct {
	hookWorkspace
	bin string   // the installed admit: a link to (or copy of) this test binary
	env []string // the environment the commands and the hooks run with
}

// fixtureHome is the configurations' folder, shared with hook/connect's
// tests.
const fixtureHome = "../../hook/connect/testdata/home"

func newConnectWorld(t *testing.T) connectWorld {
	t.Helper()
	w := connectWorld{hookWorkspace: newHookWorkspace(t)}
	err := filepath.WalkDir(fixtureHome, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixtureHome, p)
		dst := filepath.Join(w.home, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	w.bin = installAdmit(t, filepath.Join(w.home, ".local", "bin", "admit"))
	// The binary sits under the system's temporary folder like everything
	// a test makes; the commands run with a temporary folder of their own,
	// so that admit connect takes it for the installed binary it stands
	// for (TestConnectRefusesTemporaryBinary shows the refusal).
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	w.env = []string{"HOME=" + w.home, "TMPDIR=" + tmp, "PATH=" + t.TempDir(), "CLAUDE_CONFIG_DIR=", "CODEX_HOME=", "COPILOT_HOME=",
		"ADMIT_SOCKET=" + w.socket, "ADMIT_TEST_AS_ADMIT=1", "ADMIT_EFFECTS=workspace-write",
		// opencode's folder is under it: each world's own.
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config")}
	return w
}

// installAdmit puts this test binary at path (a hard link, else a copy).
func installAdmit(t *testing.T, path string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(self, path) != nil {
		data, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// admit runs the installed admit with args from the repository, stdin
// empty (no terminal), and returns its exit status and output.
func (w connectWorld) admit(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), w.env...)
	cmd.Dir = w.root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return exitCode(t, cmd.Run()), out.String(), errb.String()
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// configured reads back, from the host's configuration as the host reads
// it, the command admit's entry for event runs: a shell line, run by
// /bin/sh -c as the hosts run them, or Cline's executable file.
func (w connectWorld) configured(t *testing.T, host, event string) []string {
	t.Helper()
	h, _ := connect.Lookup(host)
	paths := h.Paths(w.home, func(string) string { return "" })
	if host == "cline" {
		return []string{paths[0]}
	}
	path := paths[0]
	if host == "copilot" && event == "permissionRequest" {
		path = paths[1]
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(stripComments(data), &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	type entry struct {
		Command, Bash, Trigger string
		Action                 struct{ Command string }
		Hooks                  []struct{ Command string }
	}
	var entries []entry
	if host == "kiro" {
		_ = json.Unmarshal(cfg.Hooks, &entries)
	} else {
		var byEvent map[string][]entry
		_ = json.Unmarshal(cfg.Hooks, &byEvent)
		entries = byEvent[event]
	}
	for _, e := range entries {
		lines := []string{e.Command, e.Bash, e.Action.Command}
		for _, h := range e.Hooks {
			lines = append(lines, h.Command)
		}
		for _, l := range lines {
			if strings.Contains(l, " hook "+host) && (host != "kiro" || e.Trigger == event) {
				return []string{"/bin/sh", "-c", l}
			}
		}
	}
	t.Fatalf("%s has no entry of admit's for %s:\n%s", path, event, data)
	return nil
}

// stripComments drops the // and /* */ comments Gemini CLI's settings may
// hold (outside strings), for encoding/json.
func stripComments(data []byte) []byte {
	var out []byte
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			i += 2 + end + 1
		default:
			out = append(out, c)
		}
	}
	return out
}

// runHost runs a configured hook command as the host would: the event on
// stdin, from the repository.
func (w connectWorld) runHost(t *testing.T, argv []string, fixture string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), w.env...)
	cmd.Dir = w.root
	cmd.Stdin = bytes.NewReader(w.event(t, filepath.Join("..", "..", "hook", "testdata", fixture)))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return exitCode(t, cmd.Run()), out.String(), errb.String()
}

// hostEvents are, per host, the events admit's entries answer, each with
// a recorded event the gate allows and, for the pre-tool event, one it
// refuses.
var hostEvents = map[string][]struct{ event, allowed, refused string }{
	"claude-code": {{"PreToolUse", "claude-code/01-read.json", "claude-code/16-read-outside.json"}, {"PermissionRequest", "claude-code/17-permission-request.json", ""}},
	"gemini-cli":  {{"BeforeTool", "gemini-cli/01-read_file.json", "gemini-cli/13-read_file-outside.json"}},
	"copilot":     {{"preToolUse", "copilot/02-vscode-read_file.json", "copilot/13-vscode-read_file-outside.json"}, {"permissionRequest", "copilot/28-cli-bash.permissionRequest.json", ""}},
	"codex":       {{"PreToolUse", "codex/01-bash.json", "codex/02-bash-outside.json"}, {"PermissionRequest", "codex/05-permission-request-bash.json", ""}},
	"cursor":      {{"beforeReadFile", "cursor/03-beforeReadFile.json", "cursor/04-beforeReadFile-outside.json"}, {"preToolUse", "cursor/05-preToolUse-shell.json", ""}},
	"windsurf":    {{"pre_read_code", "windsurf/04-pre_read_code.json", "windsurf/05-pre_read_code-outside.json"}},
	"kiro":        {{"PreToolUse", "kiro/02-fs_read.json", "kiro/05-execute_bash-outside.json"}},
	"cline":       {{"PreToolUse", "cline/02-read_file.json", "cline/12-execute_command-outside.json"}},
}

// checkHooksRunAdmit runs every configured entry of host with recorded
// events through the installed binary: admit answers (the editor's server
// decides each one), allowing the call in the workspace and refusing the
// one outside it.
func (w connectWorld) checkHooksRunAdmit(t *testing.T, e *rpctest.Editor, host string) {
	t.Helper()
	for _, ev := range hostEvents[host] {
		argv := w.configured(t, host, ev.event)
		code, stdout, stderr := w.runHost(t, argv, ev.allowed)
		if code != 0 || denied(code, stdout) {
			t.Errorf("%s %s %s: exit %d\nstdout %s\nstderr %s", host, ev.event, ev.allowed, code, stdout, stderr)
		}
		rpctest.Within(t, e.Decided, host+" "+ev.allowed+" decided by the editor's server")
		if ev.refused == "" {
			continue
		}
		code, stdout, stderr = w.runHost(t, argv, ev.refused)
		if !denied(code, stdout) || !strings.Contains(stdout+stderr, "REFUSED by admit") && host != "cursor" {
			t.Errorf("%s %s %s: exit %d, not refused\nstdout %s\nstderr %s", host, ev.event, ev.refused, code, stdout, stderr)
		}
		rpctest.Within(t, e.Decided, host+" "+ev.refused+" decided by the editor's server")
	}
}

// denied says whether a hook's answer refuses the call in its host's form:
// the blocking exit status, or a deny (a cancel, for Cline) in the JSON the
// host reads.
func denied(code int, stdout string) bool {
	if code == exitHookBlock {
		return true
	}
	for _, form := range []string{`"permissionDecision":"deny"`, `"decision":"deny"`, `"permission":"deny"`, `"behavior":"deny"`, `"cancel":true`} {
		if strings.Contains(stdout, form) {
			return true
		}
	}
	return false
}

// checkMissingBinary runs every configured entry with the binary gone and
// checks what reaches the host: exit 2 with the shell's complaint on
// stderr (which each host blocks on), or for Cline the cancel its script
// prints, where connect.Host says the host blocks.
func (w connectWorld) checkMissingBinary(t *testing.T, host string) {
	t.Helper()
	h, _ := connect.Lookup(host)
	for _, ev := range hostEvents[host] {
		code, stdout, stderr := w.runHost(t, w.configured(t, host, ev.event), ev.allowed)
		blocks := code == exitHookBlock && strings.TrimSpace(stderr) != "" && !strings.Contains(stdout, `"allow"`)
		if host == "cline" {
			// Cline reads the printed answer whatever the exit status.
			blocks = strings.Contains(stdout, `"cancel":true`) && strings.Contains(stdout, "admit could not run") && strings.TrimSpace(stderr) != ""
		}
		t.Logf("%-12s %-18s binary missing: exit %d, stderr %q -> %s", host, ev.event, code, strings.TrimSpace(stderr), h.MissingBinary)
		if blocks != h.MissingBinaryBlocks {
			t.Errorf("%s %s with the binary missing: exit %d, stderr %q; the host is said to block: %v", host, ev.event, code, stderr, h.MissingBinaryBlocks)
		}
		if !h.MissingBinaryBlocks && code != 127 {
			t.Errorf("%s: exit %d, want the shell's 127", host, code)
		}
	}
}

// snapshotHome reads every file under home but admit's backups and the
// installed binary.
func snapshotHome(t *testing.T, home string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".admit-backup") || strings.Contains(p, "/.local/bin/") {
			return err
		}
		data, err := os.ReadFile(p)
		files[strings.TrimPrefix(p, home)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestConnectCLI: admit connect shows each installed agent's change and,
// with no terminal, writes nothing; with --yes it writes it; every hook
// then runs admit; admit disconnect gives back the original bytes.
func TestConnectCLI(t *testing.T) {
	w := newConnectWorld(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}, Answer: rpctest.Always("allow-once")})
	w.env = append(w.env, "ADMIT_SOCKET="+e.Socket)
	original := snapshotHome(t, w.home)
	installed := []string{"claude-code", "gemini-cli", "copilot", "codex", "cursor"}

	code, out, stderr := w.admit(t, w.bin, "connect", "--list")
	if code != 0 || !strings.Contains(out, "admit connect points the configurations at "+w.bin) {
		t.Fatalf("list: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, host := range connect.Hosts() {
		want := "no"
		if slices.Contains(installed, host.Name) {
			want = "yes"
		}
		if !regexpLine(out, host.Name, want, "not-connected") {
			t.Errorf("list: %s should be installed=%s, not-connected:\n%s", host.Name, want, out)
		}
	}

	code, out, stderr = w.admit(t, w.bin, "connect")
	if code != 0 || !strings.Contains(out, "Nothing was written: there is no terminal to ask on") {
		t.Fatalf("connect without a terminal: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, host := range installed {
		if !strings.Contains(out, "' hook "+host) {
			t.Errorf("no diff for %s:\n%s", host, out)
		}
	}
	if strings.Contains(out, "hook windsurf") {
		t.Errorf("a change for an agent that is not installed:\n%s", out)
	}
	if got := snapshotHome(t, w.home); !maps.Equal(got, original) {
		t.Fatal("written without a yes")
	}

	code, out, stderr = w.admit(t, w.bin, "connect", "--yes")
	if code != 0 {
		t.Fatalf("connect --yes: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, host := range installed {
		w.checkHooksRunAdmit(t, e, host)
	}
	if !strings.Contains(out, "kept the previous file as "+filepath.Join(w.home, ".claude", "settings.json.admit-backup")) {
		t.Errorf("no backup reported:\n%s", out)
	}

	code, out, _ = w.admit(t, w.bin, "connect", "--list")
	for _, host := range installed {
		if want := map[string]string{
			// Codex runs no hook of the person's before it is trusted in
			// its /hooks screen: TestConnectCodexTrust. Gemini CLI none in
			// a folder it does not trust: TestConnectGeminiFolderTrust.
			"codex": "connected, not trusted: inert", "gemini-cli": "connected, folder not trusted yet: inert",
		}[host]; want != "" {
			if !lineHas(out, host, want) {
				t.Errorf("%s not reported %q:\n%s", host, want, out)
			}
			continue
		}
		if !regexpLine(out, host, "yes", "connected") {
			t.Errorf("%s not connected:\n%s", host, out)
		}
	}

	code, out, stderr = w.admit(t, w.bin, append([]string{"disconnect", "--yes"}, installed...)...)
	if code != 0 {
		t.Fatalf("disconnect: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := snapshotHome(t, w.home); !maps.Equal(got, original) {
		for k := range got {
			if got[k] != original[k] {
				t.Errorf("%s:\n%s\nwant\n%s", k, got[k], original[k])
			}
		}
		t.Fatal("disconnect did not give back the original files")
	}
}

// regexpLine says whether the --list table has a line for host with the
// given installed and state columns.
func regexpLine(out, host, installed, state string) bool {
	for _, l := range strings.Split(out, "\n") {
		// The host's name may be its agent's too (opencode opencode).
		f := strings.Fields(l)
		for i := range f {
			if f[i] == host && i+2 < len(f) && f[i+1] == installed && f[i+2] == state {
				return true
			}
		}
	}
	return false
}

// TestConnectEveryHost connects the hosts that are not installed too
// (named on the command line), runs their hooks through admit, and checks
// what each configuration does once the binary is gone.
func TestConnectEveryHost(t *testing.T) {
	w := newConnectWorld(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}, Answer: rpctest.Always("allow-once")})
	w.env = append(w.env, "ADMIT_SOCKET="+e.Socket)
	names := hostNames(connect.Hosts())
	if code, out, stderr := w.admit(t, w.bin, append([]string{"connect", "--yes"}, names...)...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, host := range names {
		w.checkHooksRunAdmit(t, e, host)
	}
	// The cursor entries fail closed besides.
	if data, _ := os.ReadFile(filepath.Join(w.home, ".cursor", "hooks.json")); strings.Count(string(data), `"failClosed": true`) != 4 {
		t.Errorf("cursor entries without failClosed:\n%s", data)
	}
	// Another copy of admit reports the first one gone.
	other := installAdmit(t, filepath.Join(w.home, "opt", "admit", "admit"))
	if err := os.Remove(w.bin); err != nil {
		t.Fatal(err)
	}
	code, out, _ := w.admit(t, other, "connect", "--list")
	for _, host := range names {
		// Connected, each host's folder is there: all are installed now.
		if code != 0 || !regexpLine(out, host, "yes", "stale") || !strings.Contains(out, w.bin) {
			t.Errorf("%s is not reported stale, pointing at %s:\n%s", host, w.bin, out)
		}
	}
	for _, host := range names {
		w.checkMissingBinary(t, host)
	}
	// Connecting again from the other copy mends them.
	if code, out, stderr := w.admit(t, other, append([]string{"connect", "--yes"}, names...)...); code != 0 || strings.Count(out, ": connected") != len(names) {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestConnectMalformedRefused: a configuration that does not parse is
// named with its line and column, and left as it is.
func TestConnectMalformedRefused(t *testing.T) {
	w := newConnectWorld(t)
	path := filepath.Join(w.home, ".cursor", "hooks.json")
	broken := "{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"afterFileEdit\": [{\"command\": \"./hooks/format.sh\"},]\n\t}\n}\n"
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := w.admit(t, w.bin, "connect", "--yes", "cursor", "claude-code")
	if code != exitConfig || !strings.Contains(stderr, path+": line 4, column 54: unexpected ']'") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Fatal("the broken file was written")
	}
	if _, err := os.Stat(path + ".admit-backup"); err == nil {
		t.Fatal("a backup of a file admit did not change")
	}
	// The other agent named is connected all the same.
	if !strings.Contains(out, "Claude Code: connected") {
		t.Fatalf("claude-code was not connected:\n%s", out)
	}
}

// TestConnectRefusesTemporaryBinary: a binary in the temporary folder (go
// run, a test build) or inside a repository is not written into any
// configuration.
func TestConnectRefusesTemporaryBinary(t *testing.T) {
	w := newConnectWorld(t)
	original := snapshotHome(t, w.home)
	env := slices.DeleteFunc(slices.Clone(w.env), func(s string) bool { return strings.HasPrefix(s, "TMPDIR=") })
	tmpWorld := w
	tmpWorld.env = append(env, "TMPDIR="+os.TempDir())
	code, _, stderr := tmpWorld.admit(t, w.bin, "connect", "--yes", "claude-code")
	if code != exitConfig || !strings.Contains(stderr, "inside the temporary folder") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	inRepo := installAdmit(t, filepath.Join(w.root, "bin", "admit"))
	code, _, stderr = w.admit(t, inRepo, "connect", "--yes", "claude-code")
	if code != exitConfig || !strings.Contains(stderr, "inside the workspace "+w.root) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := snapshotHome(t, w.home); !maps.Equal(got, original) {
		t.Fatal("written")
	}
	// The list still works, and says why.
	code, out, _ := w.admit(t, inRepo, "connect", "--list")
	if code != 0 || !strings.Contains(out, "This binary cannot be connected") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if code, _, stderr := w.admit(t, w.bin, "connect", "claude"); code != exitUsage || !strings.Contains(stderr, `unknown agent "claude"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := w.admit(t, w.bin, "disconnect"); code != exitUsage || !strings.Contains(stderr, "name the agents") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// TestConnectThroughTheEditor: the same through the editor's methods:
// admit/agents shows each change, admit/connectAgent writes it, the hooks
// run admit, admit/disconnectAgent undoes it to the original bytes.
func TestConnectThroughTheEditor(t *testing.T) {
	w := newConnectWorld(t)
	for _, kv := range w.env {
		if k, v, _ := strings.Cut(kv, "="); k != "HOME" && k != "TMPDIR" {
			t.Setenv(k, v) // the server reads the same environment
		}
	}
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}, Answer: rpctest.Always("allow-once")})
	w.env = append(w.env, "ADMIT_SOCKET="+e.Socket)
	original := snapshotHome(t, w.home)
	var r rpc.AgentsResult
	e.Call("admit/agents", map[string]any{"binary": w.bin}, &r)
	if r.BinaryProblem != "" {
		t.Fatal(r.BinaryProblem)
	}
	for _, st := range r.Agents {
		// A shell line names 'BIN' hook HOST; opencode's plugin the same as a JSON list.
		names := strings.Contains(st.Change.Diff, "'"+w.bin+"' hook "+st.Host) || strings.Contains(st.Change.Diff, `["`+w.bin+`","hook","`+st.Host+`"]`)
		if st.Change == nil || st.State != connect.StateNotConnected || !names {
			t.Fatalf("%s: %+v", st.Host, st)
		}
		var res connect.Result
		e.Call("admit/connectAgent", map[string]any{"host": st.Host, "binary": w.bin, "sum": st.Change.Sum}, &res)
		if !res.Status.Connected {
			t.Fatalf("%s: %+v", st.Host, res.Status)
		}
		w.checkHooksRunAdmit(t, e, st.Host)
		e.Call("admit/disconnectAgent", map[string]any{"host": st.Host, "sum": res.Status.Undo.Sum}, &res)
		if res.Status.State != connect.StateNotConnected {
			t.Fatalf("%s: %+v", st.Host, res.Status)
		}
	}
	if got := snapshotHome(t, w.home); !maps.Equal(got, original) {
		t.Fatal("not undone to the original files")
	}
}
