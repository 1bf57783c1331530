package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"admit/policy/tape"
	"admit/rpc"
)

// benchCmd is `admit bench`: the load command. It measures admit/check
// round trips over real stdio pipes against a child `admit serve`, beside a
// bare jsonrpc2 echo server in the same run, and the tape's appends per
// second for each sync setting.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	d := 2 * time.Second
	if len(args) > 0 {
		v, err := time.ParseDuration(args[0])
		if err != nil {
			return usageError(stderr, fmt.Errorf("admit bench [DURATION per run]: %v", err))
		}
		d = v
	}
	self, err := os.Executable()
	if err != nil {
		return cliError(stderr, err)
	}
	dir, err := os.MkdirTemp("", "admit-bench-")
	if err != nil {
		return cliError(stderr, err)
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "ws")
	_ = os.MkdirAll(root, 0o755)
	_ = os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644)
	method, params := rpc.LoadCall()

	fmt.Fprintf(stdout, "round trips over stdio pipes, %s per run (%s)\n", d, method)
	fmt.Fprintf(stdout, "%-22s %7s %9s %9s %10s\n", "target", "callers", "p50", "p99", "calls/s")
	for _, callers := range []int{1, 8, 64} {
		echo, err := rpc.Load(self, []string{"__echo"}, nil, method, params, callers, d)
		if err != nil {
			return cliError(stderr, fmt.Errorf("echo: %w", err))
		}
		row(stdout, "jsonrpc2 echo", echo)
		for _, sync := range []string{"none", "batch"} {
			r, err := rpc.Load(self, []string{"serve", "--listen", "none"}, rpc.LoadInit(root, dir, sync), method, params, callers, d)
			if err != nil {
				return cliError(stderr, fmt.Errorf("admit: %w", err))
			}
			row(stdout, "admit (tape "+sync+")", r)
			if sync == "none" {
				fmt.Fprintf(stdout, "%-22s %7s %8.2fx %8.2fx\n", "  admit / echo", "", ratio(r.P50, echo.P50), ratio(r.P99, echo.P99))
			}
		}
	}
	fmt.Fprintf(stdout, "\ntape appends, 64 writers, %s per setting\n", d)
	for _, s := range []tape.Sync{tape.SyncAlways, tape.SyncBatch, tape.SyncNone} {
		n, err := tapeRate(filepath.Join(dir, "tape-only-"+string(s)+".jsonl"), s, 64, d)
		if err != nil {
			return cliError(stderr, err)
		}
		fmt.Fprintf(stdout, "%-8s %10.0f lines/s\n", s, n)
	}
	return exitOK
}

func row(w io.Writer, name string, r rpc.LoadResult) {
	fmt.Fprintf(w, "%-22s %7d %9s %9s %10.0f\n", name, r.Callers, r.P50.Round(time.Microsecond), r.P99.Round(time.Microsecond), r.CallsPerSec)
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) }

// tapeRate appends from writers goroutines for d and returns lines/s.
func tapeRate(path string, s tape.Sync, writers int, d time.Duration) (float64, error) {
	t, err := tape.Open(path, tape.Options{Sync: s})
	if err != nil {
		return 0, err
	}
	defer t.Close()
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for time.Now().Before(stop) {
				if err := t.Append(context.Background(), &tape.Record{ID: "bench", Verdict: "allow", Allowed: true, Rule: "allowed", Tool: "Read"}); err != nil {
					return
				}
				n++
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	return float64(total) / d.Seconds(), nil
}
