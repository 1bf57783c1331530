package tape

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchRecord is a typical decision: a shell command refused by a rule.
func benchRecord() Record {
	return Record{
		ID: "c-000123", Session: "s-7", Mode: "enforce", Verdict: "deny",
		Rule: "forbidden-flag", Reason: "git push --force rewrites history others depend on; push without --force or ask",
		Tool: "bash", Args: json.RawMessage(`{"command":"git push --force origin main","cwd":"/home/u/src/project"}`),
		Command: "git push --force origin main", Kind: "write", Targets: []string{"/home/u/src/project/.git"},
		Context: json.RawMessage(`{"turn":12,"agent":"copilot"}`),
		Policy:  "5b1f0e3c2a9d4e7f8a6b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f",
	}
}

// BenchmarkAppend measures appends per second for each sync setting with
// 1 and 64 writers on the file system of the test's temporary directory.
// lines/s is the figure to read; lines/sync is the mean group size.
//
//	go test -run '^$' -bench Append -benchtime 2s ./tape/
func BenchmarkAppend(b *testing.B) {
	for _, s := range []Sync{SyncAlways, SyncBatch, SyncNone} {
		for _, writers := range []int{1, 64} {
			b.Run(fmt.Sprintf("sync=%s/writers=%d", s, writers), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "tape.jsonl")
				tp, err := Open(path, Options{Sync: s})
				if err != nil {
					b.Fatal(err)
				}
				tmpl := benchRecord()
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				for range writers {
					wg.Go(func() {
						for next.Add(1) <= int64(b.N) {
							r := tmpl
							if err := tp.Append(context.Background(), &r); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				appended, syncs := tp.Stats()
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "lines/s")
				if syncs > 0 {
					b.ReportMetric(float64(appended)/float64(syncs), "lines/sync")
				}
				if err := tp.Close(); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// BenchmarkEncode is the part of Append that runs on the caller's
// goroutine, in parallel.
func BenchmarkEncode(b *testing.B) {
	r := benchRecord()
	r.Time = time.Now()
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendBody(buf[:0], &r)
	}
	b.SetBytes(int64(len(buf)))
}

// tape100k writes a tape of 100,000 typical records.
func tape100k(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "tape.jsonl")
	tp, err := Open(path, Options{Sync: SyncNone})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 100_000 / 8 {
				r := benchRecord()
				if i%10 == 0 {
					r.Tool = fmt.Sprint("tool", w)
				}
				tp.Append(context.Background(), &r)
			}
		})
	}
	wg.Wait()
	tp.Close()
	return path
}

// BenchmarkVerify reads back a tape of 100,000 records.
func BenchmarkVerify(b *testing.B) {
	path := tape100k(b)
	for b.Loop() {
		n, err := Verify(path)
		if err != nil || n != 100_000 {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkQuery asks a tape of 100,000 records for the newest 50, for
// the newest 50 of one tool, and for all records of one tool.
func BenchmarkQuery(b *testing.B) {
	path := tape100k(b)
	for _, c := range []struct {
		name string
		f    Filter
	}{
		{"last50", Filter{Limit: 50}},
		{"last50-tool", Filter{Limit: 50, Tool: "tool3"}},
		{"all-tool", Filter{Tool: "tool3"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Query(path, c.f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchChildEnv holds "COUNT PATH": a re-executed test binary appends
// COUNT records to the tape at PATH (sync none, 8 goroutines) and exits.
const benchChildEnv = "ADMIT_TAPE_BENCH_CHILD"

func benchChild(spec string) int {
	var n int
	var path string
	if _, err := fmt.Sscanf(spec, "%d %s", &n, &path); err != nil {
		fmt.Fprintln(os.Stderr, "bench child:", err)
		return 2
	}
	tp, err := Open(path, Options{Sync: SyncNone})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	tmpl := benchRecord()
	var next atomic.Int64
	var wg sync.WaitGroup
	failed := atomic.Bool{}
	for range 8 {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				r := tmpl
				if err := tp.Append(context.Background(), &r); err != nil {
					fmt.Fprintln(os.Stderr, err)
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := tp.Close(); err != nil || failed.Load() {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

// BenchmarkAppendProcesses is 1, 2 and 8 processes appending to one tape
// (sync none, 8 writers each): lines/s is the figure to read, and
// us/append/process how much longer each process waits for its appends
// than one alone does. b.N records are shared among the processes; each
// process's start is counted, so compare the rows with each other.
//
//	go test -run '^$' -bench AppendProcesses -benchtime 20000x ./tape/
func BenchmarkAppendProcesses(b *testing.B) {
	for _, procs := range []int{1, 2, 8} {
		b.Run(fmt.Sprintf("processes=%d", procs), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "tape.jsonl")
			each := max(b.N/procs, 1)
			cmds := make([]*exec.Cmd, procs)
			for i := range cmds {
				cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
				cmds[i].Env = append(os.Environ(), fmt.Sprintf("%s=%d %s", benchChildEnv, each, path))
				cmds[i].Stderr = os.Stderr
			}
			b.ResetTimer()
			start := time.Now()
			for _, c := range cmds {
				if err := c.Start(); err != nil {
					b.Fatal(err)
				}
			}
			for _, c := range cmds {
				if err := c.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(each*procs)/elapsed.Seconds(), "lines/s")
			b.ReportMetric(elapsed.Seconds()*1e6/float64(each), "us/append/process")
			if n, err := Verify(path); err != nil || n < each*procs {
				b.Fatalf("the tape the processes shared holds %d records, want %d, and does not verify: %v", n, each*procs, err)
			}
		})
	}
}
