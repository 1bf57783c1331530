package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"admit/rpc/rpctest"
)

// benchEvents are the events one hook call is measured with: a read and a
// command line, the two most frequent calls.
var benchEvents = []string{"01-read.json", "06-bash.json"}

func benchHook(b *testing.B, socket string, w hookWorkspace) {
	var events [][]byte
	for _, name := range benchEvents {
		events = append(events, w.event(b, filepath.Join("..", "..", "hook", "testdata", "claude-code", name)))
	}
	args := []string{"claude-code", "--socket", socket, "--tape", w.tape}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var out bytes.Buffer
		if code := hookCmd(args, Stdio{In: bytes.NewReader(events[i%len(events)]), Out: &out, Err: io.Discard}); code != 0 || !bytes.Contains(out.Bytes(), []byte(`"allow"`)) {
			b.Fatalf("exit %d: %s", code, out.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/hook")
}

// BenchmarkHookLocal is one whole hook call with no server: parse, map,
// build the local gate on the workspace, decide, tape, answer.
func BenchmarkHookLocal(b *testing.B) {
	w := newHookWorkspace(b)
	benchHook(b, w.socket, w)
}

// BenchmarkHookServer is one whole hook call against a running server:
// dial the socket, initialize, check, close, answer.
func BenchmarkHookServer(b *testing.B) {
	w := newHookWorkspace(b)
	e := rpctest.Start(b, rpctest.Options{Roots: []string{w.root}, Approve: true, Listen: rpctest.Socket(b), Init: map[string]any{"mode": "enforce"}})
	benchHook(b, e.Socket, w)
}

// BenchmarkHookProcess is what the agent pays: start `admit hook` as a
// process (this test binary standing in for admit, prebuilt), write the
// event, read the answer, with a running server.
func BenchmarkHookProcess(b *testing.B) {
	w := newHookWorkspace(b)
	e := rpctest.Start(b, rpctest.Options{Roots: []string{w.root}, Approve: true, Listen: rpctest.Socket(b), Init: map[string]any{"mode": "enforce"}})
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	if bin := os.Getenv("ADMIT_BIN"); bin != "" {
		exe = bin // a real admit binary, once main dispatches hook
	}
	event := w.event(b, filepath.Join("..", "..", "hook", "testdata", "claude-code", "06-bash.json"))
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(exe, "hook", "claude-code", "--socket", e.Socket)
		cmd.Env = append(os.Environ(), "ADMIT_TEST_AS_ADMIT=1")
		cmd.Stdin = bytes.NewReader(event)
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte(`"allow"`)) {
			b.Fatalf("%v: %s", err, out)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/hook")
}

// BenchmarkProcessStart is the floor under BenchmarkHookProcess: starting
// the same binary to print its version, through the same harness. It runs
// only with ADMIT_BIN (the test binary would run its tests instead).
func BenchmarkProcessStart(b *testing.B) {
	exe := os.Getenv("ADMIT_BIN")
	if exe == "" {
		b.Skip("set ADMIT_BIN to a built admit binary")
	}
	for b.Loop() {
		if out, err := exec.Command(exe, "version").Output(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/start")
}
