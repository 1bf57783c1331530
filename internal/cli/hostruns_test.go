package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The examples of issue 18 that came in through a host that runs the
// admitted line in its own shell (Cursor's beforeShellExecution, Codex's
// PreToolUse): each through admit hook of that host, deciding alone,
// ends in a refusal or an ask; where the host would have run the line
// (Cursor, on allow), the test runs it as the host would, and a harmless
// marker shows that nothing ran.

// hostAnswer runs admit hook agent on a shell call of line in w, deciding
// alone, and returns whether the host would run the line and why not.
func hostAnswer(t *testing.T, w hookWorkspace, agent, line string) (runs bool, why string) {
	t.Helper()
	var ev map[string]any
	switch agent {
	case "cursor":
		ev = map[string]any{"hook_event_name": "beforeShellExecution", "conversation_id": "c18", "generation_id": "g18", "workspace_roots": []string{w.root},
			"cursor_version": "2.0.77", "command": line, "cwd": w.root}
	case "codex":
		ev = map[string]any{"session_id": "s18", "turn_id": "t1", "cwd": w.root, "hook_event_name": "PreToolUse", "model": "gpt-5-codex",
			"permission_mode": "default", "tool_name": "Bash", "tool_input": map[string]any{"command": line}, "tool_use_id": "call18"}
	default:
		t.Fatalf("no event for %s", agent)
	}
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := hookCmd([]string{agent, "--socket", w.socket, "--tape", w.tape, "--timeout", "10s"}, Stdio{In: bytes.NewReader(data), Out: &stdout, Err: &stderr})
	out := strings.TrimSpace(stdout.String())
	switch agent {
	case "cursor":
		var o struct{ Permission, User_message string }
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("cursor: exit %d, %q (%s)", code, out, stderr.String())
		}
		return o.Permission == "allow", o.Permission + ": " + o.User_message
	default: // codex: a deny is the only answer it honours; no objection runs the call
		var o struct {
			HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string } `json:"hookSpecificOutput"`
		}
		if code == 2 { // blocked: Codex reads stderr
			return false, "blocked: " + stderr.String()
		}
		if out != "" {
			if err := json.Unmarshal([]byte(out), &o); err != nil {
				t.Fatalf("codex: exit %d, %q", code, out)
			}
		}
		return o.HookSpecificOutput.PermissionDecision != "deny", o.HookSpecificOutput.PermissionDecision + ": " + o.HookSpecificOutput.PermissionDecisionReason
	}
}

// shellRuns runs line with bash -c in dir, as a host's shell tool would,
// bounded in time (an endless line the gate let through must not hang
// the suite; its marker still tells).
func shellRuns(t *testing.T, line, dir string, env []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	_ = cmd.Run()
}

func needPrograms(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skip("no " + n)
		}
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// gitIn runs git in dir with no configuration of the person's.
func gitIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// attack is one example: the line, and whether the host may run it when
// allowed (a disk filler is only judged).
// hostPasses checks that the agent's host lets each line run.
func hostPasses(t *testing.T, w hookWorkspace, agent string, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if runs, why := hostAnswer(t, w, agent, line); !runs {
			t.Errorf("%s: %s: %s", agent, line, why)
		}
	}
}

type attack struct {
	line    string
	runIt   bool
	because string // a word the refusal must name
}

// tryAttacks puts each attack to each host that runs lines itself and,
// where Cursor's answer lets the line run, runs it; the marker must not
// appear (a test without one, "", checks the effect itself).
func tryAttacks(t *testing.T, w hookWorkspace, marker string, env []string, attacks []attack) {
	t.Helper()
	for _, a := range attacks {
		for _, agent := range []string{"cursor", "codex"} {
			runs, why := hostAnswer(t, w, agent, a.line)
			if runs || !strings.Contains(why, a.because) {
				t.Errorf("%s: %s: runs %v (%s), want a refusal naming %q", agent, a.line, runs, why, a.because)
			}
			if runs && agent == "cursor" && a.runIt {
				shellRuns(t, a.line, w.root, env)
			}
			if marker != "" && exists(marker) {
				t.Fatalf("%s: %s ran: %s", agent, a.line, marker)
			}
		}
	}
}

// TestHostRunsXargsOptionNames: committed files named
// --compress-program=sh and -S1, fed to sort by git ls-files -z | xargs
// -0, make sort run sh on the data it sorts (shown first with the real
// git and sort).
func TestHostRunsXargsOptionNames(t *testing.T) {
	needPrograms(t, "git", "bash", "sort", "xargs")
	if out, _ := exec.Command("sort", "--version").Output(); !bytes.Contains(out, []byte("GNU")) {
		t.Skip("not GNU sort")
	}
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	marker := filepath.Join(t.TempDir(), "RAN")
	env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	os.RemoveAll(filepath.Join(w.root, ".git"))
	writeFiles(t, w.root, map[string]string{"a.txt": strings.Repeat("touch "+marker+"\n", 400), "--compress-program=sh": "", "-S1": ""})
	gitIn(t, w.root, env, "init", "-q", ".")
	gitIn(t, w.root, env, "add", "-A", ".")
	shellRuns(t, "git ls-files -z | xargs -0 sort >/dev/null 2>&1", w.root, env)
	if !exists(marker) {
		t.Fatal("the premise failed: sort did not run sh")
	}
	// The premise's sh may still be touching its marker: the attacks
	// get one of their own.
	marker = filepath.Join(t.TempDir(), "RAN")
	writeFiles(t, w.root, map[string]string{"a.txt": strings.Repeat("touch "+marker+"\n", 400)})
	tryAttacks(t, w, marker, env, []attack{
		{"git ls-files -z | xargs -0 sort", true, "dynamic-word"},
		{"git ls-files -z | xargs -0 sort -S 1M > out.txt", true, "dynamic-word"},
	})
}

// TestHostRunsWorkspaceGpg: .venv/bin first on the host's PATH, the agent
// writes .venv/bin/gpg; git log --format=%GS of a signed commit makes git
// start gpg, resolved on that PATH (shown first).
func TestHostRunsWorkspaceGpg(t *testing.T) {
	needPrograms(t, "git", "bash")
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	marker := filepath.Join(t.TempDir(), "RAN")
	bin := filepath.Join(w.root, ".venv", "bin")
	writeFiles(t, w.root, map[string]string{".venv/bin/gpg": "#!/bin/sh\ntouch '" + marker + "'\n", "a.txt": "a\n"})
	path := bin + ":" + os.Getenv("PATH")
	t.Setenv("PATH", path) // the host's, which the hook inherits
	env := []string{"HOME=" + w.home, "PATH=" + path, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x"}
	os.RemoveAll(filepath.Join(w.root, ".git"))
	gitIn(t, w.root, env, "init", "-q", ".")
	gitIn(t, w.root, env, "add", "a.txt")
	gitIn(t, w.root, env, "commit", "-qm", "x")
	// A commit that carries a signature header, as a signed one does.
	raw := gitIn(t, w.root, env, "cat-file", "commit", "HEAD")
	head, msg, _ := strings.Cut(raw, "\n\n")
	signed := head + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n" + msg + "\n"
	cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = w.root, env, strings.NewReader(signed)
	id, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, w.root, env, "update-ref", "HEAD", strings.TrimSpace(string(id)))
	shellRuns(t, "git log -1 --format=%GS >/dev/null 2>&1", w.root, env)
	if !exists(marker) {
		t.Fatal("the premise failed: git log with a signature placeholder did not start the workspace's gpg")
	}
	os.Remove(marker)
	tryAttacks(t, w, marker, env, []attack{
		{"git log -1 --format=%GS", true, "gpg"},
		{"git log --format='%G? %h'", true, "gpg"},
		{"git show -s --pretty=format:%GK HEAD", true, "gpg"},
	})
}

// TestHostRunsUnderThePersonsRules: the person's rules allow npm test *,
// npx * and the runners; options and runners that run code the rule
// never meant are refused or asked, never allowed by it.
func TestHostRunsUnderThePersonsRules(t *testing.T) {
	needPrograms(t, "bash")
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	writeFiles(t, config, map[string]string{"admit/rules.json": `{"allow": ["npm test *", "make test *", "make test", "cargo test *", "cargo *", "pytest *",
		"npx *", "npm exec *", "pnpm exec *", "yarn exec *", "uv run *", "poetry run *", "pipenv run *"]}`})
	writeFiles(t, w.root, map[string]string{"package.json": `{"scripts":{"test":"echo ok"}}`, "Makefile": "test:\n\techo ok\n"})
	outside := t.TempDir()
	marker := filepath.Join(outside, "RAN")
	writeFiles(t, outside, map[string]string{"x.js": "require('fs').writeFileSync('" + marker + "', '')\n", "evil.mk": "test:\n\ttouch " + marker + "\n"})
	env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")}
	// The rules are in force: the line they were written for is allowed.
	if runs, why := hostAnswer(t, w, "cursor", "npm test"); !runs {
		t.Fatalf("npm test under npm test *: %s", why)
	}
	touch := "touch " + marker
	tryAttacks(t, w, marker, env, []attack{
		{"npm test --node-options=--require=" + outside + "/x.js", true, ""},
		{"npm test -- --node-options=--require=" + outside + "/x.js", true, ""},
		{"make test --eval='test: ; " + touch + "'", true, ""},
		{"MAKEFLAGS=-f" + outside + "/evil.mk make test", true, ""},
		{"cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"" + touch + "\"' test", true, ""},
		{"pytest -p evilplugin", true, ""},
		{`npx -c "sh -c '` + touch + `'"`, true, ""},
		{"npm exec -c '" + touch + "'", true, ""},
		{"npm exec --call '" + touch + "'", true, ""},
		{"pnpm exec sh -c '" + touch + "'", true, ""},
		{"yarn exec sh -c '" + touch + "'", true, ""},
		{"uv run sh -c '" + touch + "'", true, ""},
		{"poetry run sh -c '" + touch + "'", true, ""},
		{"pipenv run bash -c '" + touch + "'", true, ""},
		{"NODE_OPTIONS=--require=" + outside + "/x.js npm test", true, ""},
	})
}

// TestHostRunsSecretNames: variables whose names mean a secret are never
// printed, through the hosts that run lines themselves.
func TestHostRunsSecretNames(t *testing.T) {
	needPrograms(t, "bash")
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	marker := filepath.Join(w.root, "RAN")
	env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")}
	var attacks []attack
	for _, name := range []string{"GH_PAT", "MYSQL_PWD", "REDIS_URL", "HTTPS_PROXY", "CI_JOB_JWT"} {
		t.Setenv(name, "x")
		// Cursor's and Codex's shells are the person's, not known for
		// certain: portable refuses every $ (fish reads it otherwise), and
		// printenv names the secret.
		attacks = append(attacks, attack{"echo $" + name + " > RAN", true, ""}, attack{"printenv " + name + " > RAN", true, "secret-env"})
	}
	tryAttacks(t, w, marker, env, attacks)
}

// TestHostRunsEndlessDevices: a read of an endless device not bounded to
// a small size on the same line is refused in both effect modes, and a
// copy of one into a file; a bounded one passes.
func TestHostRunsEndlessDevices(t *testing.T) {
	needPrograms(t, "bash")
	for _, effects := range []string{"read-only", "workspace-write"} {
		t.Run(effects, func(t *testing.T) {
			w := newHookWorkspace(t)
			t.Setenv("HOME", w.home)
			t.Setenv("ADMIT_EFFECTS", effects)
			marker := filepath.Join(w.root, "RAN")
			env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")}
			// A copy into a file is refused for the device where writes
			// are allowed; in read-only effects, for the write first.
			devCopy := "endless-input"
			if effects == "read-only" {
				devCopy = "read-only-effects"
			}
			tryAttacks(t, w, marker, env, []attack{
				{"cat /dev/urandom | head -c 1 >/dev/null; touch RAN", true, "endless-input"},
				{"sort /dev/zero; touch RAN", true, "endless-input"},
				{"sha256sum /dev/zero; touch RAN", true, "endless-input"},
				{"cmp /dev/zero /dev/zero; touch RAN", true, "endless-input"},
				{"head -c 1G /dev/zero | wc -c; touch RAN", true, "endless-input"},
				{"cat /dev/urandom", false, "endless-input"},
				{"head -c 1G /dev/zero", false, "endless-input"},
				{"cp /dev/zero big.bin", false, devCopy},
				{"dd if=/dev/zero of=big.bin", false, devCopy},
				{"cp /dev/urandom big.bin", false, devCopy},
				{"dd if=/dev/urandom bs=1M count=64 | wc -c; touch RAN", true, "endless-input"},
			})
			if exists(filepath.Join(w.root, "big.bin")) {
				t.Fatal("a device was copied into the workspace")
			}
			hostPasses(t, w, "cursor", "head -c 32 /dev/urandom | base64", "dd if=/dev/urandom bs=32 count=1 | base64")
		})
	}
}
