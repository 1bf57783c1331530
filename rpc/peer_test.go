package rpc

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSocketRefusesAnotherUser connects as another uid to a socket whose
// file mode would let it in: the server checks SO_PEERCRED and hangs up.
func TestSocketRefusesAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another uid")
	}
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0o755))
	must(t, os.Chmod(filepath.Dir(dir), 0o755)) // t.TempDir makes its parent 0700
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	must(t, err)
	defer l.Close()
	must(t, os.Chmod(sock, 0o777))
	// The test binary lives in a folder only root may enter: copy it out.
	self, _ := os.Executable()
	data, err := os.ReadFile(self)
	must(t, err)
	bin := filepath.Join(dir, "client")
	must(t, os.WriteFile(bin, data, 0o755))
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), "ADMIT_TEST_DIAL="+sock)
	cmd.SysProcAttr = asNobody()
	must(t, cmd.Start())
	c, err := l.Accept()
	must(t, err)
	foreign := sameUser(c.(*net.UnixConn))
	_ = c.Close() // hang up, as the listener does; the client then exits
	_ = cmd.Wait()
	if foreign {
		t.Fatal("a peer with uid 65534 passed the SO_PEERCRED check")
	}
	// And a peer of the same user passes.
	go func() {
		if c2, err := net.Dial("unix", sock); err == nil {
			defer c2.Close()
		}
	}()
	c3, err := l.Accept()
	must(t, err)
	defer c3.Close()
	if !sameUser(c3.(*net.UnixConn)) {
		t.Fatal("a peer of the same user was refused")
	}
}

func TestMain(m *testing.M) {
	if p := os.Getenv("ADMIT_TEST_DIAL"); p != "" {
		c, err := net.Dial("unix", p)
		if err == nil {
			buf := make([]byte, 1)
			_, _ = c.Read(buf)
			_ = c.Close()
		}
		os.Exit(0)
	}
	// The person's folders (the tapes' seal: key and marks, under
	// XDG_DATA_HOME; trust records; rules) in a folder of the test run's
	// own.
	dir, err := os.MkdirTemp("", "admit-rpc-test-")
	if err != nil {
		panic(err)
	}
	for _, v := range []string{"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		_ = os.Setenv(v, filepath.Join(dir, v))
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
