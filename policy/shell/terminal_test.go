package shell

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// This file is the harness of the tests that hold the interactive
// profiles to the real shells: a sandbox (a workspace, a home folder, a
// folder of programs first on PATH and a folder outside the workspace, all
// in one temporary folder) and a real interactive shell in a
// pseudo-terminal, into which lines are typed as an editor's terminal tool
// types them.

// terminalArgv is how each interactive profile's shell is started: with
// its default options and no startup files, reading from a terminal.
func terminalArgv(prof Profile) []string {
	switch prof {
	case BashInteractive:
		return []string{"bash", "--norc", "--noprofile", "-i"}
	case Zsh:
		return []string{"zsh", "-f", "-i"}
	case Fish:
		return []string{"fish", "--no-config", "-i"}
	}
	return nil
}

// needShell skips the test when the profile's shell is not installed
// (scripts/test installs zsh and fish).
func needShell(t testing.TB, prof Profile) string {
	t.Helper()
	argv := terminalArgv(prof)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		t.Skipf("%s is not installed (scripts/test installs it with apt): %v", argv[0], err)
	}
	return path
}

// sandbox is one test's folders; every path is inside root.
type sandbox struct {
	root, work, home, bin, outside string
}

// recScript records the argv it was run with, NUL-separated and counted,
// in a file of the folder it runs in named by a checksum of that argv: the
// trace the tests compare. One file per argv, so that the two ends of a
// pipeline, which run at once, never race for one file.
const recScript = "#!/bin/sh\nh=$(printf '%s\\0' \"$@\" | cksum | cut -d' ' -f1)\nprintf '%s\\0' \"$#\" \"$@\" >> .rec.$h\n"

func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sb := &sandbox{root: root, work: filepath.Join(root, "w"), home: filepath.Join(root, "home"),
		bin: filepath.Join(root, "bin"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{sb.work, sb.home, sb.bin, sb.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(sb.bin, "rec"), recScript, 0o755)
	// cat that never reads the terminal: typed into one, a cat of "-"
	// would wait for the next line instead of reading /dev/null.
	writeFile(t, filepath.Join(sb.bin, "rcat"), "#!/bin/sh\nexec cat \"$@\" </dev/null\n", 0o755)
	sb.reset(t)
	return sb
}

// reset empties the workspace and the home folder (keeping the folders
// themselves, which a running shell may stand in) and fills the workspace
// with the same few files every time.
func (sb *sandbox) reset(t testing.TB) {
	t.Helper()
	for _, d := range []string{sb.work, sb.home} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(d, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	files := map[string]string{
		"a.txt": "one\ntwo\nthree\nfour\nfive\nsix\n", "b.txt": "bee\n", "f1": "", "f9": "", "f10": "",
		"d/x": "x\n", "d/e/y": "y\n", ".h": "hidden\n",
	}
	for name, content := range files {
		p := filepath.Join(sb.work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, content, 0o644)
	}
}

func writeFile(t testing.TB, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// env is the environment every shell of the sandbox runs with: nothing of
// the test's own, the sandbox's home and programs, a UTF-8 locale.
func (sb *sandbox) env() []string {
	return []string{
		"HOME=" + sb.home, "PATH=" + sb.bin + ":/usr/bin:/bin", "TERM=xterm", "LANG=C.UTF-8",
		"PS1=$ ", "XDG_CONFIG_HOME=" + filepath.Join(sb.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(sb.home, ".local/share"),
		// git as the same person in both shells, never paging or colouring
		// what it prints to a terminal.
		"GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat", "GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=color.ui", "GIT_CONFIG_VALUE_0=never", "GIT_CONFIG_KEY_1=user.name", "GIT_CONFIG_VALUE_1=t",
		"GIT_CONFIG_KEY_2=user.email", "GIT_CONFIG_VALUE_2=t@example.com",
	}
}

// snapshot is every file, folder and link under the sandbox's root, by
// relative path: its kind and content (a link's target).
func (sb *sandbox) snapshot(t testing.TB) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(sb.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(sb.root, path)
		switch {
		case rel == "." || strings.HasPrefix(rel, "home/.local") || strings.HasPrefix(rel, "home/.config") ||
			rel == "home/.bash_history" || rel == "home/.zsh_history" || strings.HasPrefix(rel, "w/.git/"):
			// The shells' own history and settings, and git's index with
			// its times: not what a line did.
			if d.IsDir() && rel != "." {
				return filepath.SkipDir
			}
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			snap[rel] = "link " + target
		case d.IsDir():
			snap[rel] = "dir"
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			snap[rel] = "file " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// diffSnapshots describes how b differs from a, or "" when they are equal.
func diffSnapshots(a, b map[string]string) string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out strings.Builder
	for _, k := range keys {
		av, aok := a[k]
		bv, bok := b[k]
		switch {
		case !aok:
			fmt.Fprintf(&out, "  only in the second: %s = %q\n", k, bv)
		case !bok:
			fmt.Fprintf(&out, "  only in the first: %s = %q\n", k, av)
		case av != bv:
			fmt.Fprintf(&out, "  %s: %q, then %q\n", k, av, bv)
		}
	}
	return out.String()
}

// runBashC runs line as the gate judges it, with bash -c, in the
// sandbox's workspace, and returns what it printed.
func (sb *sandbox) runBashC(t testing.TB, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", line)
	cmd.Dir, cmd.Env = sb.work, sb.env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // a failing line is as good a trace as a passing one
	return out.String()
}

// terminal is an interactive shell in a pseudo-terminal.
type terminal struct {
	t    testing.TB
	prof Profile
	cmd  *exec.Cmd
	tty  *os.File
	seq  int // sentinels sent so far

	mu     sync.Mutex
	out    []byte        // everything the terminal showed, guarded by mu
	notify chan struct{} // a read happened; never blocks the reader
	closed chan struct{} // the reader saw the end
}

// startTerminal starts the profile's shell in the sandbox's workspace and
// waits until it answers.
func startTerminal(t testing.TB, sb *sandbox, prof Profile) *terminal {
	t.Helper()
	path := needShell(t, prof)
	argv := terminalArgv(prof)
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir, cmd.Env = sb.work, sb.env()
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	// Wide, so that no shell wraps or redraws a long line while it is
	// typed. The terminal does not echo: the line editors draw what they
	// read themselves, and the next line, typed while a command still
	// runs, would otherwise show up in the middle of its output.
	if err := pty.Setsize(master, &pty.Winsize{Rows: 60, Cols: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := echoOff(tty); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = controllingTerminal()
	err = cmd.Start()
	tty.Close()
	if err != nil {
		master.Close()
		t.Fatalf("starting %s in a pseudo-terminal: %v", argv[0], err)
	}
	tm := &terminal{t: t, prof: prof, cmd: cmd, tty: master, notify: make(chan struct{}, 1), closed: make(chan struct{})}
	go tm.read()
	t.Cleanup(tm.close)
	if !tm.sync(20 * time.Second) {
		t.Fatalf("%s did not answer in its terminal; it showed:\n%s", argv[0], tm.since(0))
	}
	return tm
}

func (tm *terminal) read() {
	defer close(tm.closed)
	buf := make([]byte, 4096)
	for {
		n, err := tm.tty.Read(buf)
		if n > 0 {
			tm.mu.Lock()
			tm.out = append(tm.out, buf[:n]...)
			tm.mu.Unlock()
			select {
			case tm.notify <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return // EIO once the shell has gone
		}
	}
}

func (tm *terminal) close() {
	_ = tm.cmd.Process.Kill()
	_ = tm.tty.Close()
	<-tm.closed
	_ = tm.cmd.Wait()
}

// mark is where the terminal's output stands now.
func (tm *terminal) mark() int {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return len(tm.out)
}

// since is what the terminal showed after mark.
func (tm *terminal) since(mark int) string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return string(tm.out[mark:])
}

// waitFor waits until the terminal shows want after mark.
func (tm *terminal) waitFor(mark int, want string, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if strings.Contains(tm.since(mark), want) {
			return true
		}
		select {
		case <-tm.notify:
		case <-tm.closed:
			return strings.Contains(tm.since(mark), want)
		case <-deadline.C:
			return false
		}
	}
}

// sync types a line that prints a fresh token, and waits for the token:
// when it appears, everything typed before it has run and the shell is
// back at its prompt. The typed text never contains the token itself.
func (tm *terminal) sync(timeout time.Duration) bool {
	tm.seq++
	mark := tm.mark()
	tm.write(fmt.Sprintf("printf '%%s_%%s\\n' __admit %d\r", tm.seq))
	return tm.waitFor(mark, fmt.Sprintf("__admit_%d\r\n", tm.seq), timeout)
}

func (tm *terminal) write(s string) {
	if _, err := tm.tty.Write([]byte(s)); err != nil {
		tm.t.Fatalf("typing into the terminal: %v", err)
	}
}

// typeLine types line as a terminal tool sends it (a final newline, or
// none, becomes the Enter key) and waits until the shell is back at its
// prompt. ok is false when it was not: the line left the shell waiting for
// more (an open quote, a continuation), which is then cancelled with ^C so
// the next line starts afresh. out is what the terminal showed meanwhile.
func (tm *terminal) typeLine(line string) (out string, ok bool) {
	return tm.typeLines(10*time.Second, line)
}

// typeLines types each line in turn, with nothing between them, then
// waits as typeLine does, for at most wait.
func (tm *terminal) typeLines(wait time.Duration, lines ...string) (out string, ok bool) {
	mark := tm.mark()
	for _, line := range lines {
		tm.write(strings.TrimSuffix(line, "\n") + "\r")
	}
	if tm.sync(wait) {
		return tm.since(mark), true
	}
	out = tm.since(mark)
	tm.write("\x03")
	if !tm.sync(10*time.Second) && !tm.sync(10*time.Second) {
		tm.t.Fatalf("the %s terminal does not answer after %q; it showed:\n%s", tm.prof, lines, out)
	}
	return out, false
}

// cd types a cd back to folder, so the next line starts where bash -c
// starts it.
func (tm *terminal) cd(folder string) {
	// A loop of the line before leaves its variable set in the terminal,
	// where each bash -c starts without it.
	forget := "; unset v"
	if tm.prof == Fish {
		forget = "; set -e v"
	}
	if _, ok := tm.typeLine("cd '" + folder + "'" + forget); !ok {
		tm.t.Fatalf("cd %s did not return in the %s terminal", folder, tm.prof)
	}
}
