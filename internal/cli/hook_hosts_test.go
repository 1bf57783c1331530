package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"admit/hook"
	"admit/internal/golden"
	"admit/rpc/rpctest"
)

// hostFixture is one recorded event of a host: hook/testdata/HOST/NAME.json,
// or NAME.EVENT.json for a payload that does not name its event (the
// Copilot CLI's camelCase permissionRequest), which the configuration then
// names with --event.
type hostFixture struct{ path, name, event string }

func hostFixtures(t testing.TB, host string) []hostFixture {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "hook", "testdata", host, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no recorded events for %s", host)
	}
	var fs []hostFixture
	for _, f := range files {
		fx := hostFixture{path: f, name: filepath.Base(f)}
		if parts := strings.Split(fx.name, "."); len(parts) == 3 {
			fx.event = parts[1]
		}
		fs = append(fs, fx)
	}
	return fs
}

// hookProcess runs `admit hook HOST` as a process, as the host would: the
// event on stdin, from the workspace, and returns its exit status and
// output.
func hookProcess(t testing.TB, w hookWorkspace, host string, fx hostFixture, socket string, extra ...string) (int, string, string) {
	t.Helper()
	args := append([]string{"hook", host, "--socket", socket, "--tape", w.tape}, extra...)
	if fx.event != "" {
		args = append(args, "--event", fx.event)
	}
	// SHELL is the interactive terminal's shell that VS Code's
	// run_in_terminal lines are judged for: bash here, whatever the
	// machine running the tests has (a CI job may have none).
	cmd := admitCmd(t, []string{"HOME=" + w.home, "ADMIT_EFFECTS=workspace-write", "ADMIT_SOCKET=", "SHELL=/bin/bash"}, args...)
	cmd.Dir = w.root
	cmd.Stdin = bytes.NewReader(w.event(t, fx.path))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// TestHookHostsProcess drives every recorded event of every host through
// the real binary, deciding alone (no server) and with the editor's
// server, and keeps exit status, stdout and stderr in
// testdata/HOST.process.golden. Every answer exits 0 or 2.
func TestHookHostsProcess(t *testing.T) {
	for _, host := range hook.Names() {
		t.Run(host, func(t *testing.T) {
			w := newHookWorkspace(t)
			t.Setenv("HOME", w.home)
			e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
				Init:   map[string]any{"mode": "enforce", "effects": "workspace-write"},
				Answer: rpctest.Always("allow-once")})
			var out bytes.Buffer
			for _, fx := range hostFixtures(t, host) {
				for _, side := range []struct{ label, socket string }{{"alone", w.socket}, {"server", e.Socket}} {
					code, stdout, stderr := hookProcess(t, w, host, fx, side.socket)
					if code != 0 && code != exitHookBlock {
						t.Errorf("%s %s: exit %d: %s", fx.name, side.label, code, stderr)
					}
					fmt.Fprintf(&out, "%s %s: exit %d\n", fx.name, side.label, code)
					if stdout != "" {
						fmt.Fprintf(&out, "  stdout %s", w.normalize([]byte(stdout), side.socket))
					}
					if stderr != "" {
						fmt.Fprintf(&out, "  stderr %s", w.normalize([]byte(stderr), side.socket))
					}
				}
				out.WriteString("\n")
			}
			golden.Check(t, filepath.Join("testdata", host+".process.golden"), out.Bytes(), *update)
		})
	}
}

// refused says whether a reply to a pre-tool event is a refusal in host's
// form: the blocking exit status, or for Cline (whose refusal is JSON) a
// cancel, for Cursor a deny.
func refused(host string, code int, stdout string) bool {
	switch host {
	case "cline":
		return code == 0 && strings.Contains(stdout, `"cancel":true`)
	case "cursor": // a deny at exit 0: at exit 2 Cursor shows the JSON raw
		return code == 0 && strings.Contains(stdout, `"permission":"deny"`)
	}
	return code == exitHookBlock
}

// shellFixture is the first recorded pre-tool event of host that runs a
// command line.
func shellFixture(t *testing.T, host string) hostFixture {
	for _, fx := range hostFixtures(t, host) {
		data, _ := os.ReadFile(fx.path)
		a, _ := hook.Lookup(host)
		ev, err := a.Parse(data, fx.event)
		if err != nil || ev.Permission {
			continue
		}
		if calls, err := a.Map(ev); err == nil && calls[0].Command != "" {
			return fx
		}
	}
	t.Fatalf("%s has no recorded shell call", host)
	return hostFixture{}
}

// TestHookHostsPersonTooSlow: a question in the editor that would outlive
// the hook's budget is answered deny, in the host's form, before the
// budget runs out, and the reason says why.
func TestHookHostsPersonTooSlow(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	shells := []string{"bash", "Bash", "shell", "run_in_terminal", "execute_command", "run_command", "run_shell_command"}
	e := rpctest.Start(t, rpctest.Options{Roots: []string{w.root}, Home: w.home, Approve: true, Listen: rpctest.Socket(t),
		Init: map[string]any{"mode": "enforce", "policy": map[string]any{"allow": shells, "needsHuman": shells}},
		Answer: func(rpctest.Question) string {
			time.Sleep(3 * time.Second)
			return "allow-once"
		}})
	for _, host := range hook.Names() {
		fx := shellFixture(t, host)
		start := time.Now()
		code, stdout, stderr := hookProcess(t, w, host, fx, e.Socket, "--timeout", "400ms")
		if took := time.Since(start); took > 2500*time.Millisecond {
			t.Errorf("%s: answered after %v", host, took)
		}
		if !refused(host, code, stdout) || !strings.Contains(stdout+stderr, "no decision within 400ms") {
			t.Errorf("%s %s: exit %d\n%s%s", host, fx.name, code, stdout, stderr)
		}
	}
}

// TestHookHostsServerGone: a server that answers initialize and then hangs
// up on the check is a failure, and every host's answer is a refusal; one
// that hangs up before initialize is no server, and the hook decides alone
// and says so.
func TestHookHostsServerGone(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	for _, stage := range []string{"check", "initialize"} {
		sock := fakeServer(t, stage == "check")
		for _, host := range hook.Names() {
			fx := shellFixture(t, host)
			code, stdout, stderr := hookProcess(t, w, host, fx, sock)
			switch stage {
			case "check":
				if !refused(host, code, stdout) || !strings.Contains(stdout+stderr, "hook-failed") {
					t.Errorf("%s, gone at %s: exit %d\n%s%s", host, stage, code, stdout, stderr)
				}
			default:
				if code != 0 && code != exitHookBlock {
					t.Errorf("%s, gone at %s: exit %d", host, stage, code)
				}
				if host != "codex" && host != "windsurf" && host != "kiro" && host != "cursor" && host != "cline" && !strings.Contains(stdout, "decided alone") {
					t.Errorf("%s, gone at %s: the answer does not say it was decided alone: %s", host, stage, stdout)
				}
			}
		}
	}
}

// fakeServer listens on a fresh socket and hangs up on every connection:
// at once, or (afterInit) after answering initialize.
func fakeServer(t *testing.T, afterInit bool) string {
	dir, err := os.MkdirTemp("", "admit-gone-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if afterInit {
				r := bufio.NewReader(c)
				if body, err := readFrame(r); err == nil {
					var req struct {
						ID json.RawMessage `json:"id"`
					}
					_ = json.Unmarshal(body, &req)
					resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"capabilities":{}}}`, req.ID)
					fmt.Fprintf(c, "Content-Length: %d\r\n\r\n%s", len(resp), resp)
					_, _ = readFrame(r) // the check: hang up on it
				}
			}
			c.Close()
		}
	}()
	return sock
}

// readFrame reads one Content-Length framed message.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
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
	if n < 0 {
		return nil, fmt.Errorf("no Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

// TestHookMissingBinary: a configuration that names an admit that is not
// there makes the host's shell exit 127 with its complaint on stderr.
// What each host then does is hook.Adapter.CrashBlocks (checked against
// each host's reading in the hook package's tests); this shows the status
// the hosts are given.
func TestHookMissingBinary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "admit")
	cmd := exec.Command("/bin/sh", "-c", "'"+missing+"' hook claude-code")
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 127 || stderr.Len() == 0 {
		t.Fatalf("err %v, stderr %q", err, stderr.String())
	}
}

// BenchmarkHookHostsProcess is what each host pays per hook call: `admit
// hook HOST` as a process, with the editor's server, on that host's first
// recorded event.
func BenchmarkHookHostsProcess(b *testing.B) {
	w := newHookWorkspace(b)
	e := rpctest.Start(b, rpctest.Options{Roots: []string{w.root}, Approve: true, Listen: rpctest.Socket(b), Init: map[string]any{"mode": "enforce"}})
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	if bin := os.Getenv("ADMIT_BIN"); bin != "" {
		exe = bin
	}
	for _, host := range hook.Names() {
		fx := hostFixtures(b, host)[0]
		event := w.event(b, fx.path)
		b.Run(host, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(exe, "hook", host, "--socket", e.Socket)
				cmd.Env = append(os.Environ(), "ADMIT_TEST_AS_ADMIT=1")
				cmd.Dir = w.root
				cmd.Stdin = bytes.NewReader(event)
				if err := cmd.Run(); err != nil {
					if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitHookBlock {
						b.Fatalf("%s: %v", host, err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/hook")
		})
	}
}
