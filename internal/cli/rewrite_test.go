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
	"admit/tape"
)

// TestRewrittenCallRunsTheJudgedLine: Claude Code's hook answers an
// allowed Bash call with `admit run --handle H` in place of the command;
// the host's shell then runs that line, which runs exactly the judged
// command and prints its own output. The handle works once, and the tape
// says the call was rewritten. Deciding alone (handles in a folder) and
// through the editor's server (handles in the server).
func TestRewrittenCallRunsTheJudgedLine(t *testing.T) {
	for _, side := range []string{"alone", "server"} {
		t.Run(side, func(t *testing.T) {
			w := newHookWorkspace(t)
			socket := w.socket
			tapePath := w.tape
			if side == "server" {
				tapePath = filepath.Join(t.TempDir(), "server-tape.jsonl")
				e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
					Init: map[string]any{"mode": "enforce", "tape": tapePath}})
				socket = e.Socket
			}
			decision, input, out := rewrittenBash(t, w, socket, map[string]any{"command": "cat README.md src/main.go", "description": "show"})
			line, _ := input["command"].(string)
			if decision != "allow" || !strings.Contains(line, " run --handle h") || input["description"] != "show" {
				t.Fatalf("answer: %s", out)
			}
			// The host's shell runs the replacement line.
			run := func() (int, string, string) {
				sh := hostShell(w, socket, line)
				var so, se bytes.Buffer
				sh.Stdout, sh.Stderr = &so, &se
				err := sh.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return code, so.String(), se.String()
			}
			code, stdout, stderr := run()
			if code != 0 || stdout != "hello\npackage main\n\nfunc main() {}\n" {
				t.Fatalf("the rewritten line: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if code, stdout, stderr := run(); code != exitRefused || stdout != "" || !strings.Contains(stderr, "no such handle") {
				t.Fatalf("the handle ran twice: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			recs, err := tape.Query(tapePath, tape.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var rewritten, ran bool
			for _, r := range recs {
				rewritten = rewritten || r.Handle != "" && r.Tool == "Bash"
				ran = ran || r.Rule == "run-result" && r.Command == "cat README.md src/main.go"
			}
			if !rewritten || !ran {
				t.Fatalf("the tape does not say the call was rewritten and run: %+v", recs)
			}
		})
	}
}

// hostShell is the host's shell about to run line, the command a hook
// put in place of the call, in w with socket as the editor's server.
func hostShell(w hookWorkspace, socket, line string) *exec.Cmd {
	sh := exec.Command("bash", "-c", line)
	sh.Dir = w.root
	sh.Env = append(os.Environ(), "ADMIT_TEST_AS_ADMIT=1", "HOME="+w.home, "ADMIT_SOCKET="+socket)
	return sh
}

// rewrittenBash runs admit hook claude-code, as a process from the
// workspace, on a PreToolUse event of the Bash tool with input, and
// returns the decision, the input the host is to run instead, and the
// answer as printed.
func rewrittenBash(t *testing.T, w hookWorkspace, socket string, input map[string]any) (decision string, updated map[string]any, out []byte) {
	t.Helper()
	cmd := admitCmd(t, []string{"HOME=" + w.home, "ADMIT_SOCKET=" + socket}, "hook", "claude-code", "--socket", socket, "--tape", w.tape)
	cmd.Dir, cmd.Stdin = w.root, bytes.NewReader(claudeBash(t, w.root, input))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		HookSpecificOutput struct {
			PermissionDecision string         `json:"permissionDecision"`
			UpdatedInput       map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatal(err, string(out))
	}
	return answer.HookSpecificOutput.PermissionDecision, answer.HookSpecificOutput.UpdatedInput, out
}
