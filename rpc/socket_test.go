package rpc

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

func TestSocketClientsShareTheGate(t *testing.T) {
	ws := workspaceDir(t)
	sock := filepath.Join(t.TempDir(), "run", "admit.sock")
	e := startEditor(t, editorOptions{roots: []string{ws}, approve: true, listen: sock, init: map[string]any{"mode": "enforce", "policy": askingPolicy}})
	var st State
	e.call("admit/state", map[string]any{}, &st)
	if st.Socket != sock {
		t.Fatalf("state socket %q, want %q", st.Socket, sock)
	}
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi, err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Dial(ctx, sock)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			for j := 0; j < 20; j++ {
				v, err := c.Check(ctx, CheckParams{Tool: "Read", Args: []byte(`{"path":"README.md"}`)})
				if err != nil || !v.Allowed {
					t.Errorf("socket check: %+v %v", v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// Observations made through the socket count for the editor's session.
	oc, err := Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := oc.Observe(ctx, ObserveParams{Paths: []string{"notes.txt"}}); err != nil || n != 1 {
		t.Fatalf("observe over the socket: %d %v", n, err)
	}
	_ = oc.Close()
	// A socket client's call that needs a person is asked in the editor.
	e.setAnswer(func(approveParams) (string, bool) { return "allow-once", true })
	c, err := Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Check(ctx, CheckParams{Tool: "deploy"})
	if err != nil || !v.Allowed || v.DecidedBy != "person" {
		t.Fatalf("approval through the editor: %+v %v", v, err)
	}
	within(t, e.asked, "question in the editor")
	// A client that gives up on a question takes it back.
	e.setAnswer(nil)
	cctx, cancel := context.WithCancel(ctx)
	go func() { _, _ = c.Check(cctx, CheckParams{Tool: "deploy", Args: []byte(`{"n":1}`)}) }()
	q1 := within(t, e.asked, "question to take back")
	cancel()
	if id := within(t, e.cancelled, "approvalCancelled after cancel"); id != q1.ID {
		t.Fatalf("cancelled %q, want %q", id, q1.ID)
	}
	// A client that disconnects mid-question has its question refused.
	go func() { _, _ = c.Check(ctx, CheckParams{Tool: "deploy", Args: []byte(`{"n":2}`)}) }()
	q := within(t, e.asked, "second question")
	_ = c.Close()
	if id := within(t, e.cancelled, "approvalCancelled"); id != q.ID {
		t.Fatalf("cancelled %q, want %q", id, q.ID)
	}
}

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
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
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
	// The tapes' seal (key and marks, under XDG_DATA_HOME) in a folder of
	// the test run's own.
	data, err := os.MkdirTemp("", "admit-test-data-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	os.Exit(code)
}
