package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"admit/rpc/rpctest"
)

// Attacks through the door they come in by: the hook of
// a host that runs the line in its own shell. Each line the hook lets
// through is then typed into that shell, a real interactive one in a
// pseudo-terminal where the host types into a terminal, and a marker
// shows that nothing the gate did not judge ran. Each test first types
// the raw lines into the same shell and checks that the markers do
// appear there, so that a refusal is what keeps them away.

// hostLine is host's recorded shell event (its first, which runs "git
// status") with the command line replaced by line.
func hostLine(t *testing.T, w hookWorkspace, host, line string) []byte {
	t.Helper()
	fx := shellFixture(t, host)
	data := w.event(t, fx.path)
	if !bytes.Contains(data, []byte(`"git status"`)) {
		t.Fatalf("%s: the recorded event does not run git status", fx.path)
	}
	enc, _ := json.Marshal(line)
	return bytes.Replace(data, []byte(`"git status"`), enc, 1)
}

// hookLets runs admit hook host on line, in-process, with the editor's
// server at socket (or none there), and says whether the host's answer
// lets the line run: an allow, no objection, or a question the host's
// own person may say yes to. The reason is the answer as printed.
func hookLets(t *testing.T, w hookWorkspace, host, socket, line string) (bool, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := hookCmd([]string{host, "--socket", socket, "--tape", w.tape, "--timeout", "10s"},
		Stdio{In: bytes.NewReader(hostLine(t, w, host, line)), Out: &stdout, Err: &stderr})
	out := stdout.String() + stderr.String()
	switch host {
	case "cline":
		return !strings.Contains(stdout.String(), `"cancel":true`), out
	case "windsurf", "kiro":
		return code == 0, out
	case "cursor":
		return code == 0 && !strings.Contains(stdout.String(), `"permission":"deny"`), out
	case "codex", "claude-code":
		return code == 0 && !strings.Contains(stdout.String(), `"permissionDecision":"deny"`), out
	}
	t.Fatalf("no reading of %s's answer", host)
	return false, ""
}

// typeInto types lines into an interactive shell (argv) started in dir
// in a pseudo-terminal, one after another as a host's terminal gets
// them, waiting for each to finish, and returns what the terminal showed.
func typeInto(t *testing.T, argv []string, dir string, env []string, lines []string) string {
	t.Helper()
	path, err := exec.LookPath(argv[0])
	if err != nil {
		t.Skipf("%s is not installed (scripts/test installs it): %v", argv[0], err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	if err := pty.Setsize(master, &pty.Winsize{Rows: 60, Cols: 1000}); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// Each line ends with Enter; then a line that prints a token the
	// typed text never holds, which appears once everything before it ran.
	for i, line := range append(lines, "") {
		if line != "" {
			if _, err := master.Write([]byte(line + "\r")); err != nil {
				t.Fatal(err)
			}
		}
		token := fmt.Sprintf("__done_%d", i)
		if _, err := master.Write([]byte(fmt.Sprintf("printf '%%s_%%s\\n' __done %d\r", i))); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			mu.Lock()
			seen := strings.Contains(buf.String(), token+"\r\n")
			mu.Unlock()
			if seen {
				break
			}
			if time.Now().After(deadline) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("%s did not come back after %q; it showed:\n%s", argv[0], line, buf.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return buf.String()
}

// gitWorkspace makes w's root a git repository whose one file holds "hi",
// so that git grep finds a match and starts its pager.
func gitWorkspace(t *testing.T, w hookWorkspace) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(w.root, ".git")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "README.md"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = w.root, shellEnv(w)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(w.root, "README.md"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shellEnv is the environment of the shells the tests type into: the
// workspace's home, no startup files' settings, git never paging to the
// terminal by itself.
func shellEnv(w hookWorkspace) []string {
	return []string{"HOME=" + w.home, "PATH=/usr/bin:/bin", "TERM=xterm", "LANG=C.UTF-8", "PS1=$ ",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com"}
}

// typedAttacks are lines that do what bash -c would not when typed into
// an interactive bash, each leaving a marker where it worked: history
// expansion hands git grep a pager that runs "touch M1" (!#:1 is the
// first word of the line so far); ^U erases what was typed before it, so
// "touch M2" runs alone; an exported PS1 runs its $(...) at every later
// prompt; and cd .git leaves the terminal in .git, where the next line's
// touch lands.
var typedAttacks = []string{
	`echo -O"touch M1"; git grep !#:1 hi`,
	"echo harmless \x15touch M2",
	"export PS1='$(touch M4)'", // bash expands it at the next prompt
	"cd .git",
	"touch M3",
}

// typedMarkers are the files typedAttacks leave behind.
var typedMarkers = []string{"M1", "M2", "M4", ".git/M3"}

func anyMarker(w hookWorkspace) string {
	for _, m := range typedMarkers {
		if exists(filepath.Join(w.root, m)) {
			return m
		}
	}
	return ""
}

// TestHookTypedLinesHostShell: Cline types into VS Code's interactive
// terminal, Windsurf and Kiro run the person's shell (here bash, in a
// terminal). Through each one's hook, deciding alone and through the
// editor's server, the attacks are refused, and what the hook lets
// through, typed in turn into one interactive bash, leaves no marker.
func TestHookTypedLinesHostShell(t *testing.T) {
	bashI := []string{"bash", "--norc", "--noprofile", "-i"}
	// The attacks are real: typed as they are, they leave every marker.
	w := newHookWorkspace(t)
	gitWorkspace(t, w)
	typeInto(t, bashI, w.root, shellEnv(w), typedAttacks)
	for _, m := range typedMarkers {
		if !exists(filepath.Join(w.root, m)) {
			t.Fatalf("typed into bash -i, the attacks left no %s: the test shows nothing", m)
		}
	}
	for _, host := range []string{"cline", "windsurf", "kiro"} {
		for _, side := range []string{"alone", "server"} {
			t.Run(host+"/"+side, func(t *testing.T) {
				typedLinesHold(t, host, side, "/bin/bash", bashI, typedAttacks[:4])
			})
		}
	}
}

// typedLinesHold asks host's hook, deciding alone or through the editor's
// server (side), about every typed attack with shellPath as the person's
// shell, types what it let through into the interactive shell argv, and
// fails when a marker appears, when a line of mustRefuse was let through,
// or when an ordinary line is refused.
func typedLinesHold(t *testing.T, host, side, shellPath string, argv, mustRefuse []string) {
	t.Helper()
	w := newHookWorkspace(t)
	gitWorkspace(t, w)
	t.Setenv("HOME", w.home)
	t.Setenv("SHELL", shellPath)
	t.Setenv("ADMIT_EFFECTS", "workspace-write")
	socket := w.socket
	if side == "server" {
		e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Listen: rpctest.Socket(t),
			Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
		socket = e.Socket
		e.Call("admit/observe", map[string]any{"dirs": []string{".", ".git"}}, nil)
	}
	var let []string
	for _, line := range typedAttacks {
		ok, answer := hookLets(t, w, host, socket, line)
		t.Logf("%q: lets it run %v: %s", line, ok, strings.TrimSpace(answer))
		if ok {
			if slices.Contains(mustRefuse, line) {
				t.Errorf("%q was let through", line)
			}
			let = append(let, line)
		}
	}
	typeInto(t, argv, w.root, shellEnv(w), let)
	if m := anyMarker(w); m != "" {
		t.Fatalf("%s appeared: a line the hook let through did what the gate did not judge in %s", m, argv[0])
	}
	// Ordinary lines still run.
	for _, line := range []string{"git status", "ls -la src", "grep -rn hi ."} {
		if ok, answer := hookLets(t, w, host, socket, line); !ok {
			t.Errorf("%q refused: %s", line, answer)
		}
	}
}

// TestHookZshFollowsStars: with zsh as the person's shell, ***/ matches
// in every folder below, through symbolic links, so cat ***/secret.txt
// reads a secret outside the workspace. Cursor, Codex, Windsurf and Cline
// refuse it.
func TestHookZshFollowsStars(t *testing.T) {
	zshI := []string{"zsh", "-f", "-i"}
	setup := func(t *testing.T) hookWorkspace {
		w := newHookWorkspace(t)
		outside := t.TempDir()
		if err := os.MkdirAll(filepath.Join(outside, "keys"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outside, "keys", "secret.txt"), []byte("S3CRET-MARKER\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(w.root, "vendor")); err != nil {
			t.Fatal(err)
		}
		return w
	}
	const line = "cat ***/secret.txt"
	w := setup(t)
	if out := typeInto(t, zshI, w.root, shellEnv(w), []string{line}); !strings.Contains(out, "S3CRET-MARKER\r\n") {
		t.Fatalf("typed into zsh, %q did not read the secret: the test shows nothing:\n%s", line, out)
	}
	for _, host := range []string{"cursor", "codex", "windsurf", "cline"} {
		t.Run(host, func(t *testing.T) {
			w := setup(t)
			t.Setenv("HOME", w.home)
			t.Setenv("SHELL", "/usr/bin/zsh")
			ok, answer := hookLets(t, w, host, w.socket, line)
			if ok {
				t.Fatalf("%q let through: %s", line, answer)
			}
			if !strings.Contains(answer, "***/secret.txt") {
				t.Errorf("the refusal does not name the pattern: %s", answer)
			}
		})
	}
}

// TestHookClaudeAskedInZsh: Claude Code deciding alone answers a line
// that needs a person with ask, and then runs the line itself, in the
// person's shell (zsh here), not through admit. Such a line is judged as
// zsh reads it: zsh replaces =python3 with the program's path, which
// bash -c passes as written, so it is refused; with bash as the person's
// shell the same line is asked.
func TestHookClaudeAskedInZsh(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	const line = "python3 =python3"
	ask := func(shell string) (string, string) {
		t.Setenv("SHELL", shell)
		return hookAnswer(t, w, claudeBash(t, w.root, map[string]any{"command": line}))
	}
	if d, reason := ask("/bin/bash"); d != "ask" {
		t.Fatalf("with bash as the person's shell: %s (%s), want ask", d, reason)
	}
	d, reason := ask("/usr/bin/zsh")
	if d != "deny" || !strings.Contains(reason, "zsh") {
		t.Fatalf("with zsh as the person's shell: %s (%s), want deny naming zsh", d, reason)
	}
	// The issue's own: an asked line with zsh's ***/ (which follows links
	// out of the workspace) is asked with bash, refused with zsh.
	for shell, want := range map[string]string{"/bin/bash": "ask", "/usr/bin/zsh": "deny"} {
		t.Setenv("SHELL", shell)
		if d, reason := hookAnswer(t, w, claudeBash(t, w.root, map[string]any{"command": "python3 x.py ***/secret.txt"})); d != want {
			t.Errorf("python3 x.py ***/secret.txt with %s as the person's shell: %s (%s), want %s", shell, d, reason, want)
		}
	}
	// An allowed line is still rewritten: admit runs it, not zsh.
	t.Setenv("SHELL", "/usr/bin/zsh")
	var stdout, stderr bytes.Buffer
	hookCmd([]string{"claude-code", "--socket", w.socket, "--tape", w.tape, "--timeout", "10s"},
		Stdio{In: bytes.NewReader(claudeBash(t, w.root, map[string]any{"command": "ls # list"})), Out: &stdout, Err: &stderr})
	if !strings.Contains(stdout.String(), "run --handle") {
		t.Fatalf("an allowed line is not rewritten: %s %s", stdout.String(), stderr.String())
	}
}

// TestCheckTerminalCdItCannotFollow: admit check --terminal decides one
// line; the terminal's next line is another admit check, which cannot
// know where this one left the terminal, so a line that may leave it
// elsewhere is refused, and one that stays is judged as ever.
func TestCheckTerminalCdItCannotFollow(t *testing.T) {
	w := newHookWorkspace(t)
	for line, want := range map[string]int{
		"cd .git":         exitRefused,
		"cd src && ls":    exitRefused,
		"cd src && cd ..": exitOK,
		"(cd src && ls)":  exitOK,
		"ls src":          exitOK,
	} {
		code, stdout, stderr := runAdmit(t, []string{"HOME=" + w.home}, "check", "--root", w.root, "--terminal", "t1", "-c", line)
		if code != want {
			t.Errorf("admit check --terminal -c %q: exit %d, want %d: %s %s", line, code, want, stdout, stderr)
		}
	}
	// Without --terminal the line is no terminal's: cd .git is a cd.
	if code, stdout, _ := runAdmit(t, []string{"HOME=" + w.home}, "check", "--root", w.root, "-c", "cd .git"); code != exitOK {
		t.Errorf("admit check -c 'cd .git': exit %d: %s", code, stdout)
	}
	// run_in_terminal, without --shell, is judged as the person's
	// terminal reads it, not as bash -c.
	code, stdout, _ := runAdmit(t, []string{"HOME=" + w.home, "SHELL=/bin/bash"}, "check", "--root", w.root, "--tool", "run_in_terminal", "-c", "echo -O\"touch M\"; git grep !#:1 hi")
	if code != exitRefused || !strings.Contains(stdout, "history expansion") {
		t.Errorf("run_in_terminal with history expansion: exit %d: %s", code, stdout)
	}
}

// TestHookTypedLinesEveryShell: as TestHookTypedLinesHostShell, with zsh
// and then fish as the person's shell: what Cline's, Windsurf's and
// Kiro's hooks let through, typed into a real interactive zsh or fish,
// leaves no marker; cd .git is refused (the shell stays where the next
// call says), and ordinary lines still pass.
func TestHookTypedLinesEveryShell(t *testing.T) {
	for _, sh := range []struct {
		shell string
		argv  []string
	}{{"/usr/bin/zsh", []string{"zsh", "-f", "-i"}}, {"/usr/bin/fish", []string{"fish", "--no-config", "-i"}}} {
		if _, err := exec.LookPath(sh.argv[0]); err != nil {
			t.Logf("%s is not installed (scripts/test installs it)", sh.argv[0])
			continue
		}
		for _, host := range []string{"cline", "windsurf", "kiro"} {
			for _, side := range []string{"alone", "server"} {
				t.Run(sh.argv[0]+"/"+host+"/"+side, func(t *testing.T) {
					typedLinesHold(t, host, side, sh.shell, sh.argv, []string{"cd .git"})
				})
			}
		}
	}
}
