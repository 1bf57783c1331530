//go:build linux

package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"admit/policy/command"
)

// Each test here tries a forbidden thing from a confined process, with the
// forbidden thing really there outside the run (a listener, a socket, a
// file, the test process itself), and a control run without confinement
// that does reach it, so a pass means the wall held.

// layouts are the ways a run is confined: a judged command (started from
// admit's restricted thread), a program that runs code (started in the
// confiner, as root and in a user namespace as an unprivileged admit
// would), and a program that runs code on a machine without namespaces.
type layoutCase struct {
	name     string
	code     bool
	userNS   bool // force the confiner's user namespace
	noNS     bool // as if namespaces were unavailable (AcceptWeaker set)
	confiner bool // programs start in the confiner
}

var layouts = []layoutCase{
	{name: "judged"},
	{name: "code", code: true, confiner: true},
	{name: "code-userns", code: true, userNS: true, confiner: true},
	{name: "code-no-namespaces", code: true, noNS: true},
}

func requireConfinement(t testing.TB, lc layoutCase) {
	t.Helper()
	m := Probe()
	if m.LandlockABI < 1 || !m.Seccomp {
		t.Skipf("this kernel has Landlock ABI %d, seccomp %v: no confinement to test", m.LandlockABI, m.Seccomp)
	}
	if lc.confiner && !m.Namespaces {
		t.Skipf("no namespaces here: %s", m.NamespacesNote)
	}
	if lc.judged() && m.LandlockABI < 6 && !m.Namespaces {
		t.Skip("Landlock ABI < 6 and no namespaces: judged runs are refused here")
	}
}

func (lc layoutCase) judged() bool { return !lc.code }

// use sets the package's test knobs for lc and restores them after t.
func (lc layoutCase) use(t testing.TB) {
	t.Helper()
	oldUser, oldNS := forceUserNS, withoutNamespaces
	forceUserNS, withoutNamespaces = lc.userNS, lc.noNS
	t.Cleanup(func() { forceUserNS, withoutNamespaces = oldUser, oldNS })
}

func protect(roots []string) func(string) bool {
	return func(p string) bool { return command.Protect(p, roots).Protected }
}

// confined is e.spec confined in layout lc, with no recheck: the static
// judgment is bypassed, so only the kernel's walls stand.
func (e *env) confined(lc layoutCase, line string) Spec {
	s := e.spec(line)
	s.Confine = true
	s.Code = lc.code
	s.AcceptWeaker = lc.noNS
	if lc.code {
		s.Protected = protect(s.Roots)
		s.RootFolders, s.RootFiles = command.RootNames()
	}
	return s
}

// listener is something outside the run a confined program must not
// reach; leaked reports whether anything did, by sending a control
// message through the same door and seeing whether anything came first.
type listener struct {
	name    string
	network string // what the helper dials
	addr    string
	got     chan string
	control func() error
	close   func()
}

func (l *listener) leaked(t *testing.T) []string {
	t.Helper()
	if err := l.control(); err != nil {
		t.Fatalf("%s: control: %v", l.name, err)
	}
	var before []string
	for {
		select {
		case m := <-l.got:
			if m == "ctrl" {
				return before
			}
			before = append(before, m)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: control message never arrived", l.name)
		}
	}
}

// sendControl sends the control message to the listener at addr.
func sendControl(network, addr string) error {
	c, err := net.Dial(network, addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write([]byte("ctrl"))
	return err
}

func streamListener(t *testing.T, name, network, addr string) *listener {
	ln, err := net.Listen(network, addr)
	if err != nil {
		return nil
	}
	l := &listener{name: name, network: network, addr: ln.Addr().String(), got: make(chan string, 16), close: func() { ln.Close() }}
	if network == "unix" && strings.HasPrefix(addr, "@") {
		l.addr = addr
	}
	go func() {
		// One connection at a time, in the order they were made, so that
		// the control message comes after what was sent before it.
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			b, _ := io.ReadAll(io.LimitReader(c, 4))
			c.Close()
			l.got <- string(b)
		}
	}()
	l.control = func() error { return sendControl(network, l.addr) }
	t.Cleanup(l.close)
	return l
}

func packetListener(t *testing.T, name, network, addr string) *listener {
	pc, err := net.ListenPacket(network, addr)
	if err != nil {
		return nil
	}
	l := &listener{name: name, network: network, addr: pc.LocalAddr().String(), got: make(chan string, 16), close: func() { pc.Close() }}
	go func() {
		b := make([]byte, 64)
		for {
			n, _, err := pc.ReadFrom(b)
			if err != nil {
				return
			}
			l.got <- string(b[:n])
		}
	}()
	l.control = func() error { return sendControl(network, l.addr) }
	t.Cleanup(l.close)
	return l
}

var abstractSeq atomic.Int64

// listeners are the doors a confined program tries: TCP and UDP on the
// IPv4 and IPv6 loopback, a pathname unix socket like admit's own, and an
// abstract unix socket.
func listeners(t *testing.T, e *env) []*listener {
	var out []*listener
	for _, l := range []*listener{
		streamListener(t, "tcp 127.0.0.1", "tcp", "127.0.0.1:0"),
		streamListener(t, "tcp ::1", "tcp", "[::1]:0"),
		packetListener(t, "udp 127.0.0.1", "udp", "127.0.0.1:0"),
		packetListener(t, "udp ::1", "udp", "[::1]:0"),
		streamListener(t, "unix pathname socket", "unix", filepath.Join(e.outside, "admit.sock")),
		streamListener(t, "abstract unix socket", "unix", fmt.Sprintf("@admit-test-%d-%d", os.Getpid(), abstractSeq.Add(1))),
	} {
		if l != nil {
			out = append(out, l)
		}
	}
	if len(out) < 4 {
		t.Fatalf("only %d listeners could be made", len(out))
	}
	return out
}

func TestConfinedNetworkAndSockets(t *testing.T) {
	for _, lc := range layouts {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			for _, l := range listeners(t, e) {
				t.Run(l.name, func(t *testing.T) {
					line := helperName + " dial " + dialArgs(l)
					// Control: without confinement the door is open.
					if r := Run(context.Background(), e.spec(line)); r.ExitCode != 0 || !strings.Contains(r.Stdout, "ok") {
						t.Fatalf("control dial failed: %+v", r)
					}
					if got := l.leaked(t); !slices.Equal(got, []string{"leak"}) {
						t.Fatalf("control: listener saw %q", got)
					}
					r := Run(context.Background(), e.confined(lc, line))
					if r.Err != nil {
						t.Fatalf("confined run: %v", r.Err)
					}
					t.Logf("confined: exit %d %q", r.ExitCode, strings.TrimSpace(r.Stderr))
					if got := l.leaked(t); len(got) > 0 {
						t.Fatalf("confined run reached %s: listener saw %q (%+v)", l.name, got, r)
					}
					// A private network namespace accepts a datagram into its
					// own loopback; everywhere else the send itself fails.
					if !(lc.confiner && l.network == "udp") && r.ExitCode == 0 {
						t.Fatalf("the dial succeeded: %+v", r)
					}
				})
			}
			// No listening either, on the machine's network.
			for _, network := range []string{"tcp", "unix"} {
				addr := "127.0.0.1:0"
				if network == "unix" {
					addr = filepath.Join(e.root, "listen.sock")
				}
				r := Run(context.Background(), e.confined(lc, helperName+" listen "+network+" "+addr))
				if network == "unix" && r.ExitCode == 0 {
					t.Errorf("listen %s: %+v", network, r)
				}
				if network == "tcp" && r.ExitCode == 0 && !lc.confiner {
					t.Errorf("listen tcp outside a network namespace: %+v", r)
				}
			}
		})
	}
}

// TestConfinedLoopbackIsPrivate: in the confiner's network namespace a
// test may serve and dial its own loopback (httptest, a dev server), and
// still reach nothing of the machine's (TestConfinedNetworkAndSockets).
func TestConfinedLoopbackIsPrivate(t *testing.T) {
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	r := Run(context.Background(), e.confined(lc, helperName+" loopback"))
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "ok") {
		t.Fatalf("private loopback: %+v", r)
	}
	if w := wall(r, WallNetTCP); w.By != ByNetworkNS {
		t.Fatalf("net-tcp wall %+v", w)
	}
}

// dialArgs are the helper's arguments to dial l. A pathname socket is
// given as folder and name: as one operand, the run itself refuses it
// before the program starts (TestSpecialFilesRefused), and this test is
// about the kernel's wall.
func dialArgs(l *listener) string {
	if l.network == "unix" && !strings.HasPrefix(l.addr, "@") {
		return "unix-in " + filepath.Dir(l.addr) + " " + filepath.Base(l.addr)
	}
	return l.network + " " + l.addr
}

func stableTemp() string {
	_, stable := tempBase()
	return stable
}

func wall(r Result, name string) Wall {
	for _, w := range r.Walls {
		if w.Name == name {
			return w
		}
	}
	return Wall{}
}

// TestNetworkOpenWhenTheRuleSaysSo: Spec.Network opens TCP to the
// machine, in both layouts; unix sockets stay closed.
func TestNetworkOpenWhenTheRuleSaysSo(t *testing.T) {
	for _, lc := range layouts[:2] {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			e := newEnv(t)
			tcp := streamListener(t, "tcp", "tcp", "127.0.0.1:0")
			s := e.confined(lc, helperName+" dial tcp "+tcp.addr)
			s.Network = true
			r := Run(context.Background(), s)
			if r.ExitCode != 0 || !slices.Equal(tcp.leaked(t), []string{"leak"}) {
				t.Fatalf("open network: %+v", r)
			}
			if w := wall(r, WallNetTCP); !w.Open {
				t.Fatalf("net-tcp wall %+v", w)
			}
			sock := streamListener(t, "unix", "unix", filepath.Join(e.outside, "s.sock"))
			s = e.confined(lc, helperName+" dial "+dialArgs(sock))
			s.Network = true
			if r := Run(context.Background(), s); r.ExitCode == 0 || len(sock.leaked(t)) > 0 {
				t.Fatalf("unix socket with the network open: %+v", r)
			}
		})
	}
}

func TestConfinedFiles(t *testing.T) {
	for _, lc := range layouts {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			// e.outside is the run's HOME: a fake home folder outside the roots.
			secret := e.file(t, filepath.Join(e.outside, ".ssh", "id_ed25519"), "PRIVATE KEY\n")
			e.file(t, "in.txt", "inside\n")
			run := func(line string) Result {
				return Run(context.Background(), e.confined(lc, line))
			}
			// Control: the secret is readable without confinement.
			if r := Run(context.Background(), e.spec(helperName+" read "+secret)); r.Stdout != "PRIVATE KEY\n" {
				t.Fatalf("control read: %+v", r)
			}
			for _, p := range []string{secret, "/etc/shadow", "/root/.bashrc", os.TempDir()} {
				if _, err := os.Stat(p); err != nil {
					continue
				}
				if r := run(helperName + " read " + p); r.ExitCode == 0 || strings.Contains(r.Stdout, "PRIVATE") {
					t.Errorf("read %s: %+v", p, r)
				}
			}
			if r := run(helperName + " read " + filepath.Join(e.root, "in.txt")); r.Stdout != "inside\n" {
				t.Errorf("read inside: %+v", r)
			}
			// No write outside, and no change of mode outside for a run of
			// code (a judged command's metadata changes are judged).
			for _, line := range []string{
				helperName + " create " + filepath.Join(e.outside, "new"),
				helperName + " append " + secret + " x",
				helperName + " create " + filepath.Join(os.TempDir(), fmt.Sprintf("admit-test-%d", os.Getpid())),
			} {
				if r := run(line); r.ExitCode == 0 {
					t.Errorf("%s: %+v", line, r)
				}
			}
			r := run(helperName + " chmod " + secret)
			info, _ := os.Stat(secret)
			switch {
			case lc.confiner && (r.ExitCode == 0 || info.Mode().Perm() == 0o777):
				t.Errorf("chmod outside under the confiner: %+v", r)
			case !lc.confiner && wall(r, WallFSMetadata).InForce():
				t.Errorf("fs-metadata reported in force without the confiner: %+v", r.Walls)
			}
			os.Chmod(secret, 0o644)
			// The private temporary folder: TMPDIR, writable, gone after.
			// The confiner binds it on /tmp, the same path every run.
			name := fmt.Sprintf("admit-tempdir-probe-%d", os.Getpid())
			r = run(helperName + " tempdir " + name)
			tmp := strings.TrimSpace(r.Stdout)
			switch {
			case r.ExitCode != 0:
				t.Errorf("private temp: %+v", r)
			case lc.confiner && (tmp != stableTemp() || exists(filepath.Join(tmp, name))):
				t.Errorf("private temp %q in the confiner, want %q; the machine's copy got the file: %v", tmp, stableTemp(), exists(filepath.Join(tmp, name)))
			case !lc.confiner && (!strings.Contains(tmp, "admit-run-") || exists(tmp)):
				t.Errorf("private temp %q: %+v", tmp, r)
			}
		})
	}
}

// TestConfinedProtectedPaths: a run of code writes the workspace but not
// its protected paths (git hooks and config, .vscode, .admit), whether a
// mount namespace or Landlock alone keeps them.
func TestConfinedProtectedPaths(t *testing.T) {
	for _, lc := range layouts[1:] {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			for _, d := range []string{".git/hooks", ".vscode", ".admit", "src"} {
				os.MkdirAll(filepath.Join(e.root, d), 0o755)
			}
			config := e.file(t, ".git/config", "[core]\n")
			e.file(t, ".admit/policy.json", "{}")
			e.file(t, "src/a.go", "package a\n")
			run := func(line string) Result { return Run(context.Background(), e.confined(lc, line)) }
			for _, line := range []string{
				helperName + " create " + filepath.Join(e.root, ".git/hooks/pre-commit"),
				helperName + " append " + config + " [core]fsmonitor=x",
				helperName + " create " + filepath.Join(e.root, ".vscode/settings.json"),
				helperName + " create " + filepath.Join(e.root, ".admit/policy.json"),
				helperName + " symlink " + filepath.Join(e.root, "src/a.go") + " " + filepath.Join(e.root, ".git/hooks/post-checkout"),
			} {
				if r := run(line); r.ExitCode == 0 {
					t.Errorf("%s: %+v", line, r)
				}
			}
			if b, _ := os.ReadFile(config); string(b) != "[core]\n" || exists(filepath.Join(e.root, ".git/hooks/pre-commit")) {
				t.Fatalf("a protected path changed: config %q", b)
			}
			// The rest of the workspace is the run's.
			for _, line := range []string{
				helperName + " append " + filepath.Join(e.root, "src/a.go") + " //x",
				helperName + " create " + filepath.Join(e.root, "src/new.go"),
			} {
				if r := run(line); r.ExitCode != 0 {
					t.Errorf("%s: %+v", line, r)
				}
			}
			// A new entry in the root: the mount namespace allows it;
			// Landlock alone cannot without opening .git/hooks too.
			r := run(helperName + " create " + filepath.Join(e.root, "out.bin"))
			if lc.confiner != (r.ExitCode == 0) {
				t.Errorf("new entry in the root (confiner %v): %+v", lc.confiner, r)
			}
			if lc.noNS && !slices.Equal(r.Missing, []string{WallFSMetadata}) {
				t.Errorf("missing %v", r.Missing)
			}
		})
	}
}

// TestConfinementRefusedWhenAWallIsMissing: without namespaces, a run of
// code lacks fs-metadata; it is refused, naming the wall, unless the
// person accepts weaker confinement.
func TestConfinementRefusedWhenAWallIsMissing(t *testing.T) {
	lc := layoutCase{name: "code-no-namespaces", code: true, noNS: true}
	requireConfinement(t, lc)
	lc.use(t)
	e := newEnv(t)
	marker := filepath.Join(e.root, "marker")
	s := e.confined(lc, helperName+" create "+marker)
	s.AcceptWeaker = false
	r := Run(context.Background(), s)
	var ce *ConfinementError
	if !errors.As(r.Err, &ce) || !slices.Contains(ce.Missing, WallFSMetadata) || !errors.Is(r.Err, ErrRefused) ||
		stopped(r) != stopRefused || !strings.Contains(r.Err.Error(), WallFSMetadata) || exists(marker) {
		t.Fatalf("not refused for a missing wall: %+v", r)
	}
	s.AcceptWeaker = true
	if r := Run(context.Background(), s); r.Err != nil || r.ExitCode != 0 || !slices.Equal(r.Missing, []string{WallFSMetadata}) {
		t.Fatalf("accepted weaker: %+v", r)
	}
	// A run of code needs the list of protected paths.
	s.Protected = nil
	if r := Run(context.Background(), s); !errors.Is(r.Err, ErrSetup) {
		t.Fatalf("code without Protected: %+v", r)
	}
}

func TestConfinedSignalsPtraceIPC(t *testing.T) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1)
	defer signal.Stop(sigs)
	self := strconv.Itoa(os.Getpid())
	envFile := "/proc/" + self + "/environ"
	// A process of the person's to trace: a sibling, not the test itself
	// (the control run does attach to it).
	target := exec.Command("sleep", "300")
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { target.Process.Kill(); target.Wait() }()
	victim := strconv.Itoa(target.Process.Pid)
	for _, lc := range layouts {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			for _, line := range []string{
				helperName + " kill " + self + " " + strconv.Itoa(int(syscall.SIGUSR1)),
				helperName + " read " + envFile,
				helperName + " ptrace " + victim,
				helperName + " shm",
				helperName + " socketpair dgram",
				helperName + " io_uring",
			} {
				if r := Run(context.Background(), e.spec(line)); r.ExitCode != 0 && !strings.Contains(line, "io_uring") {
					t.Fatalf("control %s: %+v", line, r)
				}
				if r := Run(context.Background(), e.confined(lc, line)); r.ExitCode == 0 {
					t.Errorf("%s: %+v", line, r)
				}
			}
			// Stream pairs (a program's pipes to its children) still work.
			if r := Run(context.Background(), e.confined(lc, helperName+" socketpair stream")); r.ExitCode != 0 {
				t.Errorf("stream socketpair: %+v", r)
			}
			// TIOCSTI is refused by the filter (EPERM) before the kernel
			// sees that standard input is no terminal (ENOTTY).
			r := Run(context.Background(), e.confined(lc, helperName+" tiocsti"))
			if want := fmt.Sprintf("errno %d", syscall.EPERM); strings.TrimSpace(r.Stdout) != want {
				t.Errorf("TIOCSTI: %q, want %q", r.Stdout, want)
			}
			if r := Run(context.Background(), e.spec(helperName+" tiocsti")); strings.TrimSpace(r.Stdout) != fmt.Sprintf("errno %d", syscall.ENOTTY) {
				t.Errorf("control TIOCSTI: %q", r.Stdout)
			}
		})
	}
}

// TestConfinerEndsEveryProcess: a grandchild that left the process group
// (setsid) is ended with the run in the confiner's pid namespace.
func TestConfinerEndsEveryProcess(t *testing.T) {
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	r := Run(context.Background(), e.confined(lc, helperName+" setsid-sleep"))
	pid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if r.ExitCode != 0 || err != nil {
		t.Fatalf("%+v", r)
	}
	waitFor(t, "the grandchild gone", 5*time.Second, func() bool { return gone(pid) })
}
