package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"admit/rpc/rpctest"
	"admit/tape"
)

// TestMain lets the test binary stand in for the admit binary: with
// ADMIT_TEST_AS_ADMIT=1 it runs main, so tests start real processes
// (admit serve, admit run) without a separate build.
//
// The person's folders (state: the default tape and sockets; data: trust
// records) point into a temporary folder for the whole run, so that no
// test writes to the real ones.
func TestMain(m *testing.M) {
	if os.Getenv("ADMIT_TEST_AS_ADMIT") == "1" {
		os.Exit(Main(os.Args[1:], Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
	}
	dir, err := os.MkdirTemp("", "admit-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, v := range []string{"XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"} {
		_ = os.Setenv(v, filepath.Join(dir, v))
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// admitCmd is the admit binary (this test binary) with args.
func admitCmd(t testing.TB, env []string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(append(os.Environ(), "ADMIT_TEST_AS_ADMIT=1"), env...)
	return cmd
}

// runAdmit runs admit to completion and returns its exit code and output.
func runAdmit(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := admitCmd(t, env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

func testWorkspace(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	for name, content := range map[string]string{"a.txt": "alpha\nbeta\n", "src/main.go": "package main\n", "b.txt": "b\n"} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func TestCheckExitCodes(t *testing.T) {
	ws := testWorkspace(t)
	for _, c := range []struct {
		note string
		env  []string
		args []string
		want int
		rule string
	}{
		{"an ordinary read", nil, []string{"check", "--root", ws, "-c", "wc -l a.txt"}, 0, "allowed"},
		{"an argv, each word literal", nil, []string{"check", "--root", ws, "--", "cat", "a.txt"}, 0, "allowed"},
		{"a read outside", nil, []string{"check", "--root", ws, "-c", "cat /proc/self/environ"}, 77, "outside-workspace"},
		{"warn lets it run", nil, []string{"check", "--root", ws, "--mode", "warn", "-c", "cat /proc/self/environ"}, 0, "outside-workspace"},
		{"a write in read-only", nil, []string{"check", "--root", ws, "--observed-dir", ".", "-c", "touch new.txt"}, 77, "read-only-effects"},
		{"ADMIT_EFFECTS widens", []string{"ADMIT_EFFECTS=workspace-write"}, []string{"check", "--root", ws, "--observed-dir", ".", "-c", "touch new.txt"}, 0, "allowed"},
		{"a structured tool", nil, []string{"check", "--root", ws, "--tool", "Read", "--args", `{"file_path":"a.txt"}`}, 0, "allowed"},
		{"a tool not granted", nil, []string{"check", "--root", ws, "--tool", "rm_everything", "--args", `{}`}, 77, "not-in-allow-list"},
		{"a pattern in a text option's value", nil, []string{"check", "--root", ws, "-c", "grep -rn foo --include=*.go --exclude-dir=vend* ."}, 0, "allowed"},
		{"a pattern in a write option's value", []string{"ADMIT_EFFECTS=workspace-write"}, []string{"check", "--root", ws, "--observed-dir", ".", "-c", "sort --output=*.txt a.txt"}, 77, "dynamic-word"},
		{"a pattern in an option word after --", nil, []string{"check", "--root", ws, "-c", "grep foo -- --include=*.go"}, 77, "dynamic-word"},
		{"a pattern before the = matches nothing, so grep gets an option it does not accept", nil, []string{"check", "--root", ws, "-c", "grep --inc*=x foo ."}, 77, "forbidden-flag"},
		{"a pattern in git's own options", nil, []string{"check", "--root", ws, "-c", "git log --format=*"}, 77, "dynamic-word"},
		{"no command", nil, []string{"check", "--root", ws}, 64, ""},
		{"an empty command line", nil, []string{"check", "--root", ws, "-c", ""}, 77, "empty-command"},
		{"bad args JSON", nil, []string{"check", "--root", ws, "--tool", "Read", "--args", `{`}, 64, ""},
		{"a bad bound", []string{"ADMIT_MAX_STEPS=abc"}, []string{"check", "--root", ws, "-c", "ls"}, 78, ""},
		{"a bad effect mode", []string{"ADMIT_EFFECTS=all"}, []string{"check", "--root", ws, "-c", "ls"}, 78, ""},
	} {
		t.Run(c.note, func(t *testing.T) {
			code, out, stderr := runAdmit(t, c.env, c.args...)
			if code != c.want {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.want, out, stderr)
			}
			if c.rule == "" {
				return
			}
			var v struct {
				Rule string `json:"rule"`
			}
			if err := json.Unmarshal([]byte(out), &v); err != nil || v.Rule != c.rule {
				t.Fatalf("rule %q, want %q (%s)", v.Rule, c.rule, out)
			}
		})
	}
}

func TestBoundErrorNamesVariableRangeAndValue(t *testing.T) {
	ws := testWorkspace(t)
	for _, c := range []struct{ env, want string }{
		{"ADMIT_MAX_STEPS=0", `ADMIT_MAX_STEPS must be an integer from 1 to 64, got "0"`},
		{"ADMIT_TIMEOUT_MS=-5", `ADMIT_TIMEOUT_MS must be an integer from 1 to any, got "-5"`},
		{"ADMIT_MAX_OUTPUT_BYTES=99999999", `ADMIT_MAX_OUTPUT_BYTES must be an integer from 1 to 16777216, got "99999999"`},
	} {
		code, _, stderr := runAdmit(t, []string{c.env}, "check", "--root", ws, "-c", "ls")
		if code != 78 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q", c.env, code, stderr)
		}
	}
}

func TestPolicyFileErrorIsConfiguration(t *testing.T) {
	ws := testWorkspace(t)
	if err := os.MkdirAll(filepath.Join(ws, ".admit"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".admit", "policy.json"), []byte("{\n \"allow\": 3\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runAdmit(t, nil, "check", "--root", ws, "-c", "ls")
	if code != 78 || !strings.Contains(stderr, "policy.json:2") || !strings.Contains(stderr, "allow") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestRunExitCodes(t *testing.T) {
	ws := testWorkspace(t)
	if err := mkfifo(filepath.Join(ws, "fifo")); err != nil {
		t.Fatal(err)
	}
	write := []string{"ADMIT_EFFECTS=workspace-write"}
	for _, c := range []struct {
		note string
		env  []string
		args []string
		want int
	}{
		{"a read runs", nil, []string{"run", "--root", ws, "-c", "cat a.txt | wc -l"}, 0},
		{"a refused command never starts", nil, []string{"run", "--root", ws, "-c", "cat /etc/passwd"}, 77},
		{"the command's own status", nil, []string{"run", "--root", ws, "-c", "grep nothing-here a.txt"}, 1},
		{"a write, verified", write, []string{"run", "--root", ws, "--observed-dir", ".", "-c", "mkdir -p out/x && touch out/x/f"}, 0},
		{"the tool timeout kills the group", append(write, "ADMIT_TOOL_TIMEOUT_MS=200"), []string{"run", "--root", ws, "-c", "sleep 60"}, 124},
		{"a FIFO is never read", nil, []string{"run", "--root", ws, "-c", "cat fifo"}, 77},
		{"usage", nil, []string{"run", "--root", ws}, 64},
		{"an empty command line is refused, not a usage error", nil, []string{"run", "--root", ws, "-c", ""}, 77},
		{"an effect that does not read back", write, []string{"run", "--root", ws, "--observed", "a.txt", "--observed", "b.txt", "-c", "mv -n a.txt b.txt"}, 70},
		{"bad configuration", []string{"ADMIT_MAX_OUTPUT_BYTES=0"}, []string{"run", "--root", ws, "-c", "ls"}, 78},
	} {
		t.Run(c.note, func(t *testing.T) {
			code, out, stderr := runAdmit(t, c.env, c.args...)
			if code != c.want {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.want, out, stderr)
			}
		})
	}
	if fi, err := os.Stat(filepath.Join(ws, "out", "x", "f")); err != nil || fi.IsDir() {
		t.Fatalf("the verified write did not happen: %v", err)
	}
}

func TestRunSignalReports128PlusN(t *testing.T) {
	ws := testWorkspace(t)
	cmd := admitCmd(t, nil, "run", "--root", ws, "-c", "sleep 60")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once sleep runs, the person presses ^C (SIGINT).
	rpctest.WaitForChild(t, cmd.Process.Pid, "sleep")
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 128+int(syscall.SIGINT) {
		t.Fatalf("exit %v, want %d; %s", err, 128+int(syscall.SIGINT), out.String())
	}
}

// lspPeer speaks LSP framing over a child's stdio.
type lspPeer struct {
	in  io.WriteCloser
	out *bufio.Reader
	mu  sync.Mutex
	seq int
}

func (p *lspPeer) send(id int, method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id > 0 {
		msg["id"] = id
	}
	b, _ := json.Marshal(msg)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := fmt.Fprintf(p.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

// read returns the next message from the server.
func (p *lspPeer) read() (map[string]json.RawMessage, error) {
	n := -1
	for {
		line, err := p.out.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(p.out, buf); err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	return m, json.Unmarshal(buf, &m)
}

// startServe starts `admit serve` over pipes and initializes it.
func startServe(t *testing.T, ws, tapePath string) (*exec.Cmd, *lspPeer) {
	t.Helper()
	cmd := admitCmd(t, nil, "serve", "--listen", "none")
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lspPeer{in: in, out: bufio.NewReader(outp)}
	if err := p.send(1, "initialize", map[string]any{"rootUri": "file://" + ws, "capabilities": map[string]any{}, "initializationOptions": map[string]any{"mode": "enforce", "tape": tapePath}}); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := p.read()
		if err != nil {
			t.Fatal(err)
		}
		if string(m["id"]) == "1" {
			break
		}
	}
	return cmd, p
}

func TestServeExitCodes(t *testing.T) {
	ws := testWorkspace(t)
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	cmd, p := startServe(t, ws, tp)
	_ = p.send(2, "shutdown", nil)
	_ = p.send(0, "exit", nil)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after shutdown: %v", err)
	}
	cmd, p = startServe(t, ws, tp)
	_ = p.send(0, "exit", nil)
	if err := cmd.Wait(); err == nil || err.(*exec.ExitError).ExitCode() != 1 {
		t.Fatalf("exit without shutdown: %v", err)
	}
}

// TestServerKilledMidBurst kills the real server with SIGKILL while 8
// callers keep it busy, restarts it on the same tape, and checks that the
// chain verifies and the server goes on deciding.
func TestServerKilledMidBurst(t *testing.T) {
	ws := testWorkspace(t)
	tp := filepath.Join(t.TempDir(), "tape.jsonl")
	cmd, p := startServe(t, ws, tp)
	answered := make(chan struct{}, 100000)
	go func() {
		for {
			m, err := p.read()
			if err != nil {
				return
			}
			if _, ok := m["id"]; ok {
				answered <- struct{}{}
			}
		}
	}()
	var wg sync.WaitGroup
	ctx, stop := context.WithCancel(context.Background())
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				if p.send(1000+w*100000+i, "admit/check", map[string]any{"tool": "Read", "args": map[string]any{"path": "a.txt"}}) != nil {
					return
				}
			}
		}(w)
	}
	for i := 0; i < 200; i++ {
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Fatal("no answers")
		}
	}
	_ = cmd.Process.Kill()
	stop()
	_ = cmd.Wait()
	wg.Wait()
	// Lines written but not yet durable when the kill came are on the tape
	// but not anchored by its head: Verify names them, the restart below
	// records them.
	n, err := tape.Verify(tp)
	var he *tape.HeadError
	if err != nil && !(errors.As(err, &he) && he.Unanchored) || n < 200 {
		t.Fatalf("after SIGKILL: %d records, %v", n, err)
	}
	cmd, p = startServe(t, ws, tp)
	_ = p.send(2, "admit/check", map[string]any{"tool": "Read", "args": map[string]any{"path": "a.txt"}})
	for {
		m, err := p.read()
		if err != nil {
			t.Fatal(err)
		}
		if string(m["id"]) == "2" {
			break
		}
	}
	_ = p.send(3, "shutdown", nil)
	_ = p.send(0, "exit", nil)
	_ = cmd.Wait()
	if m, err := tape.Verify(tp); err != nil || m <= n {
		t.Fatalf("after restart: %d records (was %d), %v", m, n, err)
	}
}
