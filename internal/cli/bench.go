package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"admit/internal/bench"
	"admit/policy/rules"
	"admit/tape"
)

// benchCmd is `admit bench`: the load command. It measures admit/check
// round trips over real stdio pipes against a child `admit serve`, beside a
// bare jsonrpc2 echo server in the same run, admit's command policy
// beside Gemini CLI's policy engine on the same lines, and the tape's
// appends per second for each sync setting.
func benchCmd(args []string, std Stdio) int {
	stdout := std.Out
	d := 2 * time.Second
	baseline := bench.BaselineRev
	const usage = "admit bench [--baseline REV|none] [DURATION per run]"
	if len(args) > 0 && args[0] == "--baseline" {
		if len(args) < 2 {
			return usageError(std, fmt.Errorf("%s: --baseline needs a commit", usage))
		}
		baseline, args = args[1], args[2:]
	}
	if len(args) > 0 {
		v, err := time.ParseDuration(args[0])
		if err != nil || v <= 0 {
			return usageError(std, fmt.Errorf("%s: DURATION %q: want a positive duration such as 2s", usage, args[0]))
		}
		d = v
	}
	if len(args) > 1 {
		return usageError(std, fmt.Errorf("%s: unexpected %q", usage, args[1]))
	}
	self, err := os.Executable()
	if err != nil {
		return failed(std, err)
	}
	dir, err := os.MkdirTemp("", "admit-bench-")
	if err != nil {
		return failed(std, err)
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "ws")
	_ = os.MkdirAll(root, 0o755)
	_ = os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644)
	method, params := bench.LoadCall()

	fmt.Fprintf(stdout, "round trips over stdio pipes, %s per run in %d interleaved rounds (%s)\n", d, loadRounds, method)
	fmt.Fprintf(stdout, "%-22s %7s %9s %9s %10s\n", "target", "callers", "p50", "p99", "calls/s")
	for _, callers := range []int{1, 8, 64} {
		rs, err := interleaved(self, root, dir, method, params, callers, d)
		if err != nil {
			return failed(std, err)
		}
		row(stdout, "jsonrpc2 echo", rs[0])
		row(stdout, "admit (tape none)", rs[1])
		fmt.Fprintf(stdout, "%-22s %7s %8.2fx %8.2fx\n", "  admit / echo", "", ratio(rs[1].P50, rs[0].P50), ratio(rs[1].P99, rs[0].P99))
		row(stdout, "admit (tape batch)", rs[2])
	}
	alone, err := gateAlone(root, dir, d)
	if err != nil {
		return failed(std, err)
	}
	fmt.Fprintf(stdout, "\nthe same check through the gate alone, no transport (tape none):\n")
	row(stdout, "admit gate", alone)
	if err := besideGemini(stdout, dir, d, os.Getenv); err != nil {
		return failed(std, err)
	}

	hooks, err := hookRounds(self, dir, root, d)
	if err != nil {
		return failed(std, err)
	}
	fmt.Fprintf(stdout, "\nhook calls as processes (claude-code, deciding alone, %s each, interleaved):\n", d)
	row(stdout, "allowed Bash call", hooks[0])
	row(stdout, "rewritten, end to end", hooks[1])
	fmt.Fprintf(stdout, "%-22s %7s %8.2fx %8.2fx  (the hook's answer, then admit run --handle running cat)\n", "  rewritten / plain", "", ratio(hooks[1].P50, hooks[0].P50), ratio(hooks[1].P99, hooks[0].P99))

	fmt.Fprintf(stdout, "\ntape appends, 64 writers, %s per setting\n", d)
	for _, s := range []tape.Sync{tape.SyncAlways, tape.SyncBatch, tape.SyncNone} {
		n, err := tapeRate(filepath.Join(dir, "tape-only-"+string(s)+".jsonl"), s, 64, d)
		if err != nil {
			return failed(std, err)
		}
		fmt.Fprintf(stdout, "%-8s %10.0f lines/s\n", s, n)
	}
	if baseline != "none" {
		if err := besideBaseline(stdout, baseline, dir, d); err != nil {
			if errors.Is(err, bench.ErrNoHistory) {
				fmt.Fprintf(stdout, "\nno baseline: %v (run admit bench in a checkout of admit with its history, or --baseline none)\n", err)
				return exitOK
			}
			return failed(std, err)
		}
	}
	return exitOK
}

// besideBaseline builds admit at rev and at the checkout's work tree, in
// a folder of dir, and prints each figure of both, measured in turns in
// this run, with their ratio: the gate alone, Evaluate and EvaluateWrite
// (their Go benchmarks), a hook deciding alone and `admit run -c true` (as
// processes), and the tape's appends with 64 writers.
func besideBaseline(w io.Writer, rev, dir string, d time.Duration) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	baseSrc := filepath.Join(dir, "src-"+rev)
	top, err := bench.Checkout(cwd, rev, baseSrc)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nbeside %s (built from %s's history in this run; the same figures, measured in turns):\n", rev, top)
	base, err := bench.BuildTree(rev, baseSrc, filepath.Join(dir, "build-"+rev))
	if err != nil {
		return err
	}
	now, err := bench.BuildTree("now", top, filepath.Join(dir, "build-now"))
	if err != nil {
		return err
	}
	trees := []*bench.Tree{base, now}
	fmt.Fprintf(w, "%-36s %14s %14s %9s\n", "figure", rev, "now", "now/base")
	line := func(name string, a, b float64, unit string) {
		fmt.Fprintf(w, "%-36s %14s %14s %8.2fx\n", name, fmtFig(a, unit), fmtFig(b, unit), b/max(a, 1e-9))
	}
	benchtime := fmt.Sprintf("%dms", max(d.Milliseconds(), 100))
	for _, f := range []struct{ name, test, pattern, metric string }{
		{"gate alone (per check)", "gate", "^BenchmarkGateCheck$", "ns/op"},
		{"gate alone (allocations per check)", "gate", "^BenchmarkGateCheck$", "allocs/op"},
		{"Evaluate (per line)", "command", "^BenchmarkEvaluate$", "ns/op"},
		{"EvaluateWrite (per line)", "command", "^BenchmarkEvaluateWrite$", "ns/op"},
		{"tape, 64 writers, sync none", "tape", "^BenchmarkAppend$/^sync=none/writers=64$", "lines/s"},
	} {
		var sums [2]float64
		for range benchRounds {
			for i, t := range trees {
				r, err := bench.RunBench(t.Tests[f.test], f.pattern, benchtime)
				if err != nil {
					return err
				}
				switch f.metric {
				case "ns/op":
					sums[i] += r.NsPerOp
				case "allocs/op":
					sums[i] += r.AllocsPerOp
				default:
					sums[i] += r.Metrics[f.metric]
				}
			}
		}
		line(f.name, sums[0]/benchRounds, sums[1]/benchRounds, f.metric)
	}
	procs, err := processRounds(trees, dir, d)
	if err != nil {
		return err
	}
	line("hook deciding alone (p50)", float64(procs[0][0].P50), float64(procs[1][0].P50), "ns/op")
	line("admit run -c true (p50)", float64(procs[0][1].P50), float64(procs[1][1].P50), "ns/op")
	return nil
}

// benchRounds is how many turns each Go benchmark takes per tree.
const benchRounds = 3

func fmtFig(v float64, unit string) string {
	switch unit {
	case "ns/op":
		return time.Duration(v).Round(100 * time.Nanosecond).String()
	case "allocs/op":
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}

// processRounds times, for each tree in turns, an allowed Bash call
// through `admit hook claude-code` deciding alone and `admit run -c true`,
// each as a process with its own tape; out[tree][0] is the hook,
// out[tree][1] the run.
func processRounds(trees []*bench.Tree, dir string, d time.Duration) ([][]bench.LoadResult, error) {
	root := filepath.Join(dir, "ws-procs")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "ADMIT_SOCKET="+filepath.Join(dir, "no-server.sock"), "XDG_RUNTIME_DIR="+dir, "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	event, _ := json.Marshal(map[string]any{"session_id": "bench", "transcript_path": "/dev/null", "cwd": root,
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "cat README.md"}})
	type target struct {
		tree int
		run  func() error
	}
	var targets []target
	for i, t := range trees {
		hookTape, runTape := filepath.Join(dir, t.Name+"-hook-tape.jsonl"), filepath.Join(dir, t.Name+"-run-tape.jsonl")
		targets = append(targets,
			target{i, func() error {
				cmd := exec.Command(t.Bin, "hook", "claude-code", "--tape", hookTape)
				cmd.Dir, cmd.Env, cmd.Stdin = root, env, bytes.NewReader(event)
				out, err := cmd.Output()
				if err != nil {
					return fmt.Errorf("%s hook: %v: %s", t.Name, err, out)
				}
				return nil
			}},
			target{i, func() error {
				cmd := exec.Command(t.Bin, "run", "--root", root, "--tape", runTape, "-c", "true")
				cmd.Dir, cmd.Env = root, env
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("%s run -c true: %v: %s", t.Name, err, out)
				}
				return nil
			}})
	}
	lat := make([][]time.Duration, len(targets))
	slice := d / loadRounds
	for range loadRounds {
		for i, tg := range targets {
			for stop := time.Now().Add(slice); time.Now().Before(stop); {
				t0 := time.Now()
				if err := tg.run(); err != nil {
					return nil, err
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}
	}
	out := make([][]bench.LoadResult, len(trees))
	for i, tg := range targets {
		r, err := bench.Summarize(lat[i], 1, d)
		if err != nil {
			return nil, err
		}
		out[tg.tree] = append(out[tg.tree], r)
	}
	return out, nil
}

// loadRounds is how many slices each run is cut into. The echo and the
// two gates take turns, slice by slice, so that a machine that is slower
// for a while slows all three alike and the ratio stays fair.
const loadRounds = 10

// interleaved measures the echo, admit with the tape not syncing and admit
// with group commit, in turns, and returns their results in that order.
func interleaved(self, root, dir, method string, params any, callers int, d time.Duration) ([]bench.LoadResult, error) {
	starts := []struct {
		args []string
		init any
	}{
		{[]string{"__echo"}, nil},
		{[]string{"serve", "--listen", "none"}, bench.LoadInit(root, dir, "none")},
		{[]string{"serve", "--listen", "none"}, bench.LoadInit(root, dir, "batch")},
	}
	var targets []*bench.LoadTarget
	defer func() {
		for _, t := range targets {
			t.Close()
		}
	}()
	for _, st := range starts {
		t, err := bench.StartLoad(self, st.args, st.init, method, params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.args[0], err)
		}
		targets = append(targets, t)
		if _, err := t.Run(callers, d/loadRounds); err != nil { // warm up
			return nil, fmt.Errorf("%s: %w", st.args[0], err)
		}
	}
	lat := make([][]time.Duration, len(targets))
	for range loadRounds {
		for i, t := range targets {
			l, err := t.Run(callers, d/loadRounds)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", starts[i].args[0], err)
			}
			lat[i] = append(lat[i], l...)
		}
	}
	out := make([]bench.LoadResult, len(targets))
	for i := range targets {
		r, err := bench.Summarize(lat[i], callers, d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", starts[i].args[0], err)
		}
		out[i] = r
	}
	return out, nil
}

func row(w io.Writer, name string, r bench.LoadResult) {
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

// gateAlone times the load's check through the gate in this process, with
// no transport: the least the server adds to the echo's round trip.
func gateAlone(root, dir string, d time.Duration) (bench.LoadResult, error) {
	g, err := bench.LoadGate(root, filepath.Join(dir, "tape-alone.jsonl"))
	if err != nil {
		return bench.LoadResult{}, err
	}
	defer g.Close()
	_, p := bench.LoadCall()
	var lat []time.Duration
	for stop := time.Now().Add(d); time.Now().Before(stop); {
		t0 := time.Now()
		v, err := g.Check(context.Background(), p)
		if err != nil || !v.Allowed {
			return bench.LoadResult{}, fmt.Errorf("gate alone: %+v, %v", v, err)
		}
		lat = append(lat, time.Since(t0))
	}
	return bench.Summarize(lat, 1, d)
}

// hookRounds times, in turns, an allowed Bash call through `admit hook
// claude-code` as a process (what an agent pays per call), and the same
// call rewritten: the hook's answer, then the host's shell running the
// replacement line `admit run --handle H`, which runs the judged command
// confined. Both decide alone, on a repository in root.
func hookRounds(self, dir, root string, d time.Duration) ([]bench.LoadResult, error) {
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "ADMIT_SOCKET="+filepath.Join(dir, "no-server.sock"), "XDG_RUNTIME_DIR="+dir)
	event, _ := json.Marshal(map[string]any{"session_id": "bench", "transcript_path": "/dev/null", "cwd": root,
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "cat README.md"}})
	hookOnce := func() ([]byte, error) {
		cmd := exec.Command(self, "hook", "claude-code", "--tape", filepath.Join(dir, "hook-tape.jsonl"))
		cmd.Dir, cmd.Env, cmd.Stdin = root, env, bytes.NewReader(event)
		return cmd.Output()
	}
	rewritten := func() error {
		out, err := hookOnce()
		if err != nil {
			return err
		}
		var a struct {
			HookSpecificOutput struct {
				UpdatedInput struct {
					Command string `json:"command"`
				} `json:"updatedInput"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out, &a); err != nil || a.HookSpecificOutput.UpdatedInput.Command == "" {
			return fmt.Errorf("the hook rewrote nothing: %s", out)
		}
		argv, err := rules.Argv(a.HookSpecificOutput.UpdatedInput.Command)
		if err != nil {
			return err
		}
		run := exec.Command(argv[0], argv[1:]...)
		run.Dir, run.Env = root, env
		if out, err := run.Output(); err != nil || string(out) != "hello\n" {
			return fmt.Errorf("the rewritten line: %v: %q", err, out)
		}
		return nil
	}
	targets := []func() error{func() error { _, err := hookOnce(); return err }, rewritten}
	lat := make([][]time.Duration, len(targets))
	slice := d / loadRounds
	for range loadRounds {
		for i, f := range targets {
			for stop := time.Now().Add(slice); time.Now().Before(stop); {
				t0 := time.Now()
				if err := f(); err != nil {
					return nil, err
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}
	}
	out := make([]bench.LoadResult, len(targets))
	for i := range targets {
		r, err := bench.Summarize(lat[i], 1, d)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// besideGemini times admit's command policy and Gemini CLI's policy engine
// (PolicyEngine.check with the policies it ships, run by node) on the same
// lines in this run, and prints both and their ratio. Admit is timed
// before and after Gemini, half of d each, so that a machine slower for a
// while weighs on both. With no node or no Gemini CLI installed it prints
// why and how to get them, and measures nothing.
func besideGemini(w io.Writer, dir string, d time.Duration, getenv func(string) string) error {
	g, err := bench.FindGemini(getenv)
	if err != nil {
		if errors.Is(err, bench.ErrNoGemini) {
			fmt.Fprintf(w, "\n%v\n", err)
			return nil
		}
		return err
	}
	lines, err := bench.ShellLines()
	if err != nil {
		return err
	}
	ws, home, err := bench.ShellWorkspace(dir)
	if err != nil {
		return err
	}
	before, err := bench.EvaluateLines(ws, home, lines, d/2)
	if err != nil {
		return err
	}
	gem, err := g.RunPolicy(dir, ws, lines, d/4, d)
	if err != nil {
		return err
	}
	after, err := bench.EvaluateLines(ws, home, lines, d/2)
	if err != nil {
		return err
	}
	admitNs := (before.NsPerLine*float64(before.Checks) + after.NsPerLine*float64(after.Checks)) / float64(before.Checks+after.Checks)
	perLine := func(ns float64) string { return time.Duration(ns).Round(10 * time.Nanosecond).String() }
	fmt.Fprintf(w, "\nbeside Gemini CLI %s's policy engine (the same %d lines, node %s):\n", gem.Version, len(lines), gem.Node)
	fmt.Fprintf(w, "%-36s %10s %8s %8s %8s\n", "policy", "per line", "allowed", "asked", "refused")
	fmt.Fprintf(w, "%-36s %10s %8d %8d %8d\n", "Gemini CLI PolicyEngine.check", perLine(gem.NsPerLine), gem.Decisions["allow"], gem.Decisions["ask_user"], gem.Decisions["deny"])
	fmt.Fprintf(w, "%-36s %10s %8d %8d %8d\n", "admit command policy (Evaluate)", perLine(admitNs), before.Allowed, before.Asked, before.Refused)
	fmt.Fprintf(w, "  admit is %.1fx faster (Gemini's time per line / admit's; issue 21 asks for 10x)\n", gem.NsPerLine/max(admitNs, 1e-9))
	return nil
}
