// Package bench is the harness of admit bench and of the Go benchmarks
// that time the gate: child processes spoken to over their stdio pipes,
// concurrent callers, and the percentiles of their round trips.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"admit/gate"
	"admit/policy"
	"admit/rpc"
	"admit/tape"
)

// LoadResult is one measured configuration.
type LoadResult struct {
	Target      string
	Callers     int
	Calls       int
	P50, P99    time.Duration
	CallsPerSec float64
}

// LoadTarget is a child process speaking LSP over its stdio, ready for
// calls.
type LoadTarget struct {
	cmd    *exec.Cmd
	client *rpc.Client
	method string
	params json.RawMessage
}

// StartLoad starts `bin args...` and sends initialize first when it is not
// nil; every call of Run is then method with params.
func StartLoad(bin string, args []string, initialize any, method string, params any) (*LoadTarget, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &LoadTarget{cmd: cmd, method: method, client: rpc.NewClient(pipeRWC{out, in})}
	if initialize != nil {
		if err := t.client.Call(context.Background(), "initialize", initialize, nil); err != nil {
			t.Close()
			return nil, fmt.Errorf("initialize: %w", err)
		}
	}
	if t.params, err = json.Marshal(params); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Close kills the child.
func (t *LoadTarget) Close() {
	_ = t.cmd.Process.Kill()
	_ = t.cmd.Wait()
}

// Run sends calls from callers concurrent goroutines for d and returns
// each call's round trip.
func (t *LoadTarget) Run(callers int, d time.Duration) ([]time.Duration, error) {
	var mu sync.Mutex
	var lat []time.Duration
	var failed atomic.Value
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for time.Now().Before(stop) {
				t0 := time.Now()
				if err := t.client.Call(context.Background(), t.method, t.params, nil); err != nil {
					failed.Store(err)
					return
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return nil, err
	}
	return lat, nil
}

// Summarize reports round trips measured over d in all.
func Summarize(lat []time.Duration, callers int, d time.Duration) (LoadResult, error) {
	if len(lat) == 0 {
		return LoadResult{}, fmt.Errorf("no call completed")
	}
	lat = slices.Clone(lat)
	slices.Sort(lat)
	return LoadResult{
		Callers: callers, Calls: len(lat),
		P50: lat[len(lat)/2], P99: lat[len(lat)*99/100],
		CallsPerSec: float64(len(lat)) / d.Seconds(),
	}, nil
}

type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

// LoadInit is the initialize a load run sends the gate: one root, enforce,
// a tape with the given sync setting in dir.
func LoadInit(root, dir, sync string) map[string]any {
	return map[string]any{
		"rootUri": "file://" + root, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"mode": "enforce", "tape": filepath.Join(dir, "tape-"+sync+".jsonl"), "sync": sync},
	}
}

// LoadCall is the call a load run sends: a typical allowed read.
func LoadCall() (string, gate.CheckParams) {
	return "admit/check", gate.CheckParams{Tool: "Read", Args: json.RawMessage(`{"file_path":"README.md"}`)}
}

// LoadGate is the gate a load run's server builds, in this process and
// without a transport: root as the one root, enforce, read-only, and a tape
// at tapePath that does not sync. Close it when done.
func LoadGate(root, tapePath string) (*gate.Gate, error) {
	return gate.Open(gate.Options{Dirs: []string{root}, Settings: gate.Settings{Mode: "enforce", Effects: "read-only"},
		TapePath: tapePath, Tape: tape.Options{Sync: tape.SyncNone}, TapeRequired: true, Bounds: policy.DefaultBounds()})
}
