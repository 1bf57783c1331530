package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"admit/tape"
)

// More of issue 18's examples through admit hook of a host that runs the
// line itself, each able to fail where the class is not held: the line
// the attack needs does not name a path outside (which is refused
// whatever runs it), and its marker is made inside the workspace, by the
// runner itself where it is installed and by a stand-in of it where not.

// runnerStubs writes, in a folder outside the workspace put first on the
// hook's PATH, stand-ins for the runners that are not installed here:
// each runs the words after its subcommand, as pnpm exec, uv run, poetry
// run, pipenv run and hatch run do. It returns the PATH.
func runnerStubs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"pnpm", "yarn", "uv", "poetry", "pipenv", "hatch"} {
		if _, err := exec.LookPath(name); err == nil {
			continue
		}
		writeFiles(t, dir, map[string]string{name: "#!/bin/sh\nshift\nexec \"$@\"\n"})
	}
	path := dir + ":" + os.Getenv("PATH")
	t.Setenv("PATH", path)
	return path
}

// TestHostRunsRunnersSeenThrough: the person's rules allow npx *, npm exec
// * and the other runners; the hook decides alone in read-only effects.
// What a runner runs is judged as that command (touch writes: refused),
// and a line an npm runner runs finds its programs in node_modules/.bin
// first (a git the agent wrote there: asked, so refused here). Typed as
// they are, every line leaves its marker; through Cursor's and Codex's
// hooks none is let run, and where Cursor's answer would let one run it
// is run, so a marker would show it. Ordinary runs of the runners pass.
func TestHostRunsRunnersSeenThrough(t *testing.T) {
	needPrograms(t, "bash", "npm", "npx")
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	t.Setenv("ADMIT_EFFECTS", "read-only")
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	writeFiles(t, config, map[string]string{"admit/rules.json": `{"allow": ["npx *", "npm exec *", "pnpm exec *", "yarn exec *", "uv run *", "poetry run *", "pipenv run *", "hatch run *"]}`})
	writeFiles(t, w.root, map[string]string{"package.json": `{"name":"t","version":"1.0.0"}`, "node_modules/.bin/git": "#!/bin/sh\ntouch RAN\n"})
	path := runnerStubs(t)
	env := []string{"HOME=" + w.home, "PATH=" + path, "npm_config_cache=" + t.TempDir(), "npm_config_update_notifier=false"}
	marker := filepath.Join(w.root, "RAN")
	attacks := []attack{
		{"npx -c 'touch RAN'", true, "touch"},
		{"npm exec -c 'touch RAN'", true, "touch"},
		{"npm exec --call 'touch RAN'", true, "touch"},
		{"npm exec -c 'git status'", true, "node_modules/.bin/git"},
		{"pnpm exec sh -c 'touch RAN'", true, "touch"},
		{"yarn exec touch RAN", true, "touch"},
		{"uv run sh -c 'touch RAN'", true, "touch"},
		{"poetry run touch RAN", true, "touch"},
		{"pipenv run bash -c 'touch RAN'", true, "touch"},
		{"hatch run touch RAN", true, "touch"},
	}
	// The premise: run as the host would, each line leaves the marker.
	for _, a := range attacks {
		shellRuns(t, a.line, w.root, env)
		if !exists(marker) {
			t.Fatalf("the premise failed: %q left no marker", a.line)
		}
		os.Remove(marker)
	}
	tryAttacks(t, w, marker, env, attacks)
	hostPasses(t, w, "cursor", "npm exec -c 'ls'", "pnpm exec eslint .", "uv run pytest", "poetry run pytest -q")
}

// TestHostRunsSecretNamesByMeaning: with bash as the person's shell,
// Codex's line is judged as bash -c reads it (not portable, which refuses
// every $), so echo $NAME is refused by what the name means, secret-env,
// while echo $HOME passes: the refusal is the name's, not the $'s.
func TestHostRunsSecretNamesByMeaning(t *testing.T) {
	needPrograms(t, "bash")
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	t.Setenv("SHELL", "/bin/bash")
	for _, name := range []string{"GH_PAT", "MYSQL_PWD", "REDIS_URL", "HTTPS_PROXY", "CI_JOB_JWT"} {
		for _, line := range []string{"echo $" + name, "echo \"token: ${" + name + "}\"", "printf %s \"$" + name + "\""} {
			if runs, why := hostAnswer(t, w, "codex", line); runs || !strings.Contains(why, "secret-env") {
				t.Errorf("codex: %s: runs %v (%s), want secret-env", line, runs, why)
			}
		}
	}
	hostPasses(t, w, "codex", "echo $HOME", `echo "$PWD"`)
}

// TestHookTapeInsideTheWorkspace: the person keeps the tape inside the
// workspace (the hook's --tape), the hook decides alone in workspace-write
// effects. No line or write tool of the agent's changes the tape, its
// head or its lock: each is refused as a protected path, and where
// Cursor's answer would let a line run it is run. The tape then still
// verifies, every decision on it.
func TestHookTapeInsideTheWorkspace(t *testing.T) {
	needPrograms(t, "bash")
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	t.Setenv("ADMIT_EFFECTS", "workspace-write")
	w.tape = filepath.Join(w.root, "logs", "tape.jsonl")
	writeFiles(t, w.root, map[string]string{"logs/other.txt": "x\n"})
	env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")}
	// The first decision makes the tape, its head and its lock.
	if runs, why := hostAnswer(t, w, "cursor", "ls logs"); !runs {
		t.Fatalf("ls logs: %s", why)
	}
	for _, p := range []string{w.tape, w.tape + ".head", w.tape + ".lock"} {
		if !exists(p) {
			t.Fatalf("%s is not there", p)
		}
	}
	// No marker: the tape verifying afterwards shows that none ran.
	tryAttacks(t, w, "", env, []attack{
		{"echo '{}' >> logs/tape.jsonl", true, "protected-path"},
		{"truncate -s 0 logs/tape.jsonl", true, "protected-path"},
		{"rm logs/tape.jsonl.head", true, "protected-path"},
		{"rm -f logs/tape.jsonl.lock", true, "protected-path"},
		{"mv logs/tape.jsonl logs/old.jsonl", true, "protected-path"},
		{"cp logs/other.txt logs/tape.jsonl", true, "protected-path"},
		{"sed -i 1d logs/tape.jsonl", true, "protected-path"},
		{"rm -r logs", true, "protected-path"},
		{"mv logs gone", true, "protected-path"},
	})
	for _, input := range []map[string]any{
		{"file_path": w.tape, "content": "{}\n"},
		{"file_path": w.tape + ".head", "content": "x"},
	} {
		if d, why := claudeTool(t, w, "Write", input); d != "deny" || !strings.Contains(why, "protected-path") {
			t.Errorf("Write %v: %s %s", input["file_path"], d, why)
		}
	}
	// (A neighbour's write is refused too, deciding alone, for want of
	// an observation: the rule named above is what tells them apart.)
	n, err := tape.Verify(w.tape)
	if err != nil || n < 20 {
		t.Fatalf("the tape after the attacks: %d records, %v", n, err)
	}
}

// claudeTool is Claude Code's PreToolUse of tool with input, deciding
// alone in w.
func claudeTool(t *testing.T, w hookWorkspace, tool string, input map[string]any) (string, string) {
	t.Helper()
	ev, err := json.Marshal(map[string]any{"session_id": "tape18", "transcript_path": "/dev/null", "cwd": w.root, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_tape"})
	if err != nil {
		t.Fatal(err)
	}
	return hookAnswer(t, w, ev)
}
