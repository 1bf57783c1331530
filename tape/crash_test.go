package tape

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"admit/policy/rule"
)

// crashChildEnv names the tape a re-executed test binary appends to until
// it is killed.
const crashChildEnv = "ADMIT_TAPE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path) // the seal folder comes from the parent's environment
		return
	}
	if spec := os.Getenv(benchChildEnv); spec != "" {
		os.Exit(benchChild(spec))
	}
	// Every Tape opened with the default seal folder keeps its key and its
	// mark under XDG_DATA_HOME: a folder of the test run's own.
	data, err := os.MkdirTemp("", "admit-tape-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	os.Exit(code)
}

// crashChild appends from several goroutines as fast as it can and prints
// the id of every record whose Append returned, until it is killed.
func crashChild(path string) {
	tp, err := Open(path, Options{Sync: SyncBatch})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	pid := os.Getpid()
	for g := range 8 {
		go func() {
			for i := 0; ; i++ {
				r := &Record{
					ID: fmt.Sprintf("%d-%d-%d", pid, g, i), Verdict: "allow", Allowed: true,
					// Lines of many sizes, batches of several pages.
					Tool: "bash", Command: strings.Repeat("x", (i*131)%3000),
				}
				if err := tp.Append(context.Background(), r); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				// One small write per ack: atomic on a pipe.
				os.Stdout.WriteString(r.ID + "\n")
			}
		}()
	}
	select {}
}

func TestCrashMidBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: starts child processes")
	}
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	acked := map[string]bool{}
	for round := range 6 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		n := 0
		reading := make(chan struct{})
		go func() {
			defer close(reading)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				mu.Lock()
				acked[sc.Text()] = true
				n++
				mu.Unlock()
			}
		}()
		// Kill it in the middle of a burst: after some acks and a pause
		// that differs per round.
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			k := n
			mu.Unlock()
			if k >= 500 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("round %d: the child acked only %d appends", round, k)
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(round*7) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		<-reading

		// Readers cope before any repair: the chain is whole, and lines
		// written but not yet anchored (the kill came between the write
		// and the head) are named as such. The writer repairs on Open.
		before, err := Verify(path)
		var he *HeadError
		if err != nil && !(errors.As(err, &he) && he.Unanchored) {
			t.Fatalf("round %d: Verify before repair: %v", round, err)
		}
		unanchored := 0
		if err != nil {
			unanchored = 1
		}
		tp, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("round %d: Open after kill: %v", round, err)
		}
		if err := tp.Close(); err != nil {
			t.Fatal(err)
		}
		after, err := Verify(path)
		if err != nil {
			t.Fatalf("round %d: Verify after repair: %v", round, err)
		}
		// At most a torn-line repair and a reanchor record were added.
		if after < before+unanchored || after > before+2 {
			t.Errorf("round %d: %d records before Open (unanchored: %v), %d after", round, before, he, after)
		}
		t.Logf("round %d: %d acked, %d records on the tape, unanchored before repair: %v", round, n, after, unanchored == 1)
	}
	recs, err := Query(path, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]int{}
	for _, r := range recs {
		on[r.ID]++
	}
	for id := range acked {
		if on[id] != 1 {
			t.Fatalf("acked record %s is on the tape %d times", id, on[id])
		}
	}
	for id, k := range on {
		if k > 1 && id != "" {
			t.Fatalf("record %s is on the tape %d times", id, k)
		}
	}
	// SIGKILL can stop a write between pages, so a batch larger than a
	// page can leave a torn line; say how often that and a reanchor
	// happened.
	t.Logf("%d torn lines were repaired or unanchored lines reanchored", on[""])
}

// crashProc is a crash child appending to a tape until it is killed.
type crashProc struct {
	cmd     *exec.Cmd
	reading chan struct{}
	mu      sync.Mutex
	acked   []string
}

func startCrashChild(t *testing.T, path string) *crashProc {
	t.Helper()
	p := &crashProc{cmd: exec.Command(os.Args[0], "-test.run=^$"), reading: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	p.cmd.Stderr = os.Stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.kill() })
	go func() {
		defer close(p.reading)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.acked = append(p.acked, sc.Text())
			p.mu.Unlock()
		}
	}()
	return p
}

func (p *crashProc) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.acked)
}

// waitAcks waits until the child has acknowledged n appends in all.
func (p *crashProc) waitAcks(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for p.count() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the child acked only %d appends, want %d", p.count(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func (p *crashProc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		<-p.reading
	}
}

// Two processes share a tape and each in turn is killed mid-burst while
// the other writes on: the survivor takes the tape as the dead one left
// it (lines past its head, a torn line), and in the end the tape holds
// every acknowledged line once and verifies, with nothing found but what
// a kill leaves (torn or unanchored lines).
func TestCrashWhileSharing(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: starts child processes")
	}
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	var acked []string
	survivor := startCrashChild(t, path)
	for round := range 3 {
		victim := startCrashChild(t, path)
		victim.waitAcks(t, 300)
		survivor.waitAcks(t, survivor.count()+100)
		time.Sleep(time.Duration(round*3) * time.Millisecond)
		victim.kill()
		acked = append(acked, victim.acked...)
		survivor.waitAcks(t, survivor.count()+300)
	}
	survivor.kill()
	acked = append(acked, survivor.acked...)

	tp, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Close(); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, path, -1)
	recs, err := Query(path, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]int{}
	for _, r := range recs {
		on[r.ID]++
		if r.Rule == rule.TapeReanchored && !strings.Contains(r.Reason, "were not anchored") {
			t.Errorf("found more than a kill leaves: %s", r.Reason)
		}
	}
	for _, id := range acked {
		if on[id] != 1 {
			t.Fatalf("acked record %s is on the tape %d times", id, on[id])
		}
	}
	t.Logf("%d acked, %d records, %d found by the tape", len(acked), len(recs), on[""])
}
