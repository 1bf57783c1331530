package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBareAdmitAtATerminal: admit with no command, typed at a terminal,
// prints its usage and exits 64 rather than serve the terminal in silence.
func TestBareAdmitAtATerminal(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, slave := openPTY(t)
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "ADMIT_TEST_AS_ADMIT=1")
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &out, &errb
	err = cmd.Run()
	if code := exitCode(t, err); code != exitUsage || !strings.Contains(errb.String(), "admit connect") || out.Len() != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
}
