//go:build linux

package run

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperName is the name the test binary runs under as a helper program:
// shells are refused by the exec handler, so the test binary itself plays
// the programs that fork, allocate, print or connect.
const helperName = "admit-helper"

// TestMain dispatches the other role of the test binary: the helper
// program (when run as admit-helper).
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == helperName {
		os.Exit(helperMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func helperMain(args []string) int {
	if len(args) == 0 {
		return 2
	}
	switch args[0] {
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
	case "print": // print N bytes to stdout and N to stderr
		n, _ := strconv.Atoi(args[1])
		b := []byte(strings.Repeat("x", n))
		os.Stdout.Write(b)
		os.Stderr.Write(b)
	case "sleep":
		if len(args) > 1 {
			os.WriteFile(args[1], []byte("ready"), 0o644)
		}
		time.Sleep(time.Hour)
	case "fork-sleep": // start a grandchild, print its pid, sleep, ignoring SIGTERM
		signal.Ignore(syscall.SIGTERM)
		cmd := exec.Command(os.Args[0], "sleep")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(cmd.Process.Pid)
		os.Stdout.Sync()
		time.Sleep(time.Hour)
	case "alloc": // allocate and touch MB megabytes
		n, _ := strconv.Atoi(args[1])
		b := make([]byte, n<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Println("allocated", len(b))
	case "write":
		if err := os.WriteFile(args[1], []byte("written"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "connect":
		c, err := net.DialTimeout("tcp", args[1], 5*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		c.Close()
		fmt.Println("connected")
	case "make", "make-wait": // make each path (and its folders); make-wait then waits for ./seen
		for _, p := range args[1:] {
			err := os.MkdirAll(filepath.Dir(p), 0o755)
			if err == nil {
				err = os.WriteFile(p, []byte("{}"), 0o644)
			}
			fmt.Println(p, err)
		}
		if args[0] == "make" {
			break
		}
		os.WriteFile("written", nil, 0o644)
		for deadline := time.Now().Add(15 * time.Second); !exists("seen") && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	case "exit":
		n, _ := strconv.Atoi(args[1])
		return n
	default:
		return attackMain(args)
	}
	return 0
}

// env is a test workspace: a root, a folder outside it, and a PATH that
// holds the helper program.
type env struct {
	root, outside, bin string
	path               string
	state              string // admit's state folder (Spec.StateDir)
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{root: t.TempDir(), outside: t.TempDir(), bin: t.TempDir(), state: t.TempDir()}
	for _, d := range []*string{&e.root, &e.outside, &e.bin, &e.state} {
		r, err := filepath.EvalSymlinks(*d)
		if err != nil {
			t.Fatal(err)
		}
		*d = r
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(e.bin, helperName)); err != nil {
		t.Fatal(err)
	}
	e.path = e.bin + ":/usr/local/bin:/usr/bin:/bin"
	return e
}

func (e *env) spec(line string) Spec {
	return Spec{
		Line:     line,
		Dir:      e.root,
		Roots:    []string{e.root},
		Timeout:  30 * time.Second,
		Env:      []string{"PATH=" + e.path, "HOME=" + e.outside},
		StateDir: e.state,
	}
}

func (e *env) file(t testing.TB, rel, content string) string {
	t.Helper()
	p := filepath.Join(e.root, rel)
	if strings.HasPrefix(rel, "/") {
		p = rel
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// gone reports whether pid no longer runs (absent, or a zombie).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func envLines(out string) []string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	slices.Sort(lines)
	return lines
}
