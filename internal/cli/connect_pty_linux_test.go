package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestConnectAsksOnTheTerminal: on a terminal, each change is asked about
// (y/N), and only a yes writes.
func TestConnectAsksOnTheTerminal(t *testing.T) {
	w := newConnectWorld(t)
	master, slave := openPTY(t)
	cmd := exec.Command(w.bin, "connect", "claude-code", "gemini-cli")
	cmd.Env = append(os.Environ(), w.env...)
	cmd.Dir = w.root
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go func() { _, _ = io.Copy(io.Discard, master) }() // the terminal's echo
	// The terminal hands over a line at a time: yes to the first
	// question, no (Enter) to the second.
	if _, err := master.Write([]byte("y\n\n")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errb.String())
	}
	if strings.Count(errb.String(), "[y/N]") != 2 {
		t.Fatalf("asked %d times:\n%s", strings.Count(errb.String(), "[y/N]"), errb.String())
	}
	if !strings.Contains(out.String(), "Claude Code: connected") || !strings.Contains(out.String(), "Gemini CLI: left unchanged") {
		t.Fatalf("%s", out.String())
	}
	if data, _ := os.ReadFile(filepath.Join(w.home, ".gemini", "settings.json")); strings.Contains(string(data), "hook gemini-cli") {
		t.Fatal("gemini-cli written on a no")
	}
}

// openPTY opens a pseudo-terminal: the master end, for the test to type
// on, and the slave end, for the command's stdin.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}
