package rpc

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

	"go.lsp.dev/jsonrpc2"
)

// Echo serves a bare jsonrpc2 connection that answers every call with its
// params, on the read loop: the floor a gate's round trip is measured
// against.
func Echo(ctx context.Context, rwc io.ReadWriteCloser) {
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc))
	conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			return nil, nil
		}
		return json.RawMessage(req.Params()), nil // written before the next read
	})
	<-conn.Done()
}

// LoadResult is one measured configuration.
type LoadResult struct {
	Target      string
	Callers     int
	Calls       int
	P50, P99    time.Duration
	CallsPerSec float64
}

// Load starts `bin args...` as a child speaking LSP over its stdio, sends
// calls from callers concurrent goroutines for d, and reports latency
// percentiles and throughput. initialize, when not nil, is sent first.
func Load(bin string, args []string, initialize any, method string, params any, callers int, d time.Duration) (LoadResult, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return LoadResult{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return LoadResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return LoadResult{}, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipeRWC{out, in}))
	conn.Go(context.Background(), func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	ctx := context.Background()
	if initialize != nil {
		if _, err := conn.Call(ctx, "initialize", initialize, nil); err != nil {
			return LoadResult{}, fmt.Errorf("initialize: %w", err)
		}
	}
	raw, _ := json.Marshal(params)
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
				if _, err := conn.Call(ctx, method, json.RawMessage(raw), nil); err != nil {
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
		return LoadResult{}, err
	}
	if len(lat) == 0 {
		return LoadResult{}, fmt.Errorf("no call completed")
	}
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
func LoadCall() (string, map[string]any) {
	return "admit/check", map[string]any{"tool": "Read", "args": map[string]any{"file_path": "README.md"}}
}
