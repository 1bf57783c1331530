package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"admit/policy/tape"
	"admit/workspace/effects"
	"admit/workspace/run"
)

// RunParams ask the gate to run a command itself.
type RunParams struct {
	Session   string   `json:"session,omitempty"`
	Command   string   `json:"command,omitempty"`
	Argv      []string `json:"argv,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	TimeoutMs int64    `json:"timeoutMs,omitempty"`
}

// RunResult is the verdict and, when the command ran, how it ended and
// what it changed.
type RunResult struct {
	Verdict
	Ran         bool         `json:"ran"`
	ExitCode    int          `json:"exitCode"`
	Stdout      string       `json:"stdout"`
	Stderr      string       `json:"stderr"`
	Truncated   bool         `json:"truncated"`
	Effects     effects.Diff `json:"effects"`
	Verified    bool         `json:"verified"`
	Detail      string       `json:"detail"`
	Unexpected  []string     `json:"unexpected,omitempty"`
	Confinement string       `json:"confinement,omitempty"`
	TimedOut    bool         `json:"timedOut,omitempty"`
	Cancelled   bool         `json:"cancelled,omitempty"`
	// Exit is the status `admit run` exits with for this result.
	Exit int `json:"-"`
}

// RunOptions are what a run needs besides the call: the environment the
// run's scrubbed one is built from.
type RunOptions struct {
	Env []string
}

// Run decides a command through the door and, when it is admitted, runs
// it without a system shell inside the session's bounds, then verifies its
// effects. A refused command never starts.
func (g *Gate) Run(ctx context.Context, p RunParams, o RunOptions) (RunResult, error) {
	d, err := g.Decide(ctx, CheckParams{Session: p.Session, Tool: runTool, Command: p.Command, Argv: p.Argv, Cwd: p.Cwd}, nil)
	if err != nil {
		return RunResult{}, err
	}
	res := RunResult{Verdict: d.Verdict, ExitCode: -1, Exit: exitRefused}
	if d.Verdict.Mode == "off" {
		res.Detail = "the gate is off: admit runs nothing while off; run the command yourself"
		res.Exit = exitRefused
		return res, nil
	}
	if d.Verdict.Verdict != "allow" {
		res.Detail = "not run: " + d.Verdict.Reason
		return res, nil
	}
	s := d.session
	bounds := g.cfg.Bounds
	if s.budgeted {
		bounds = s.bounds
	}
	timeout := time.Duration(bounds.ToolTimeoutMs) * time.Millisecond
	if p.TimeoutMs > 0 && time.Duration(p.TimeoutMs)*time.Millisecond < timeout {
		timeout = time.Duration(p.TimeoutMs) * time.Millisecond
	}
	writes := d.Decision.Writes
	grant := writeGrant(writes)
	limit := int(bounds.MaxFingerprintEntries)
	before := effects.TakeRoots(d.roots, limit)
	expect := effects.Expect(d.Decision.Intents, d.Decision.Argv)
	r := run.Run(ctx, run.Spec{
		Line: p.Command, Argv: p.Argv, Dir: d.cwd, Roots: d.roots, Writes: grant,
		Recheck:        expect.Recheck(admittedOnly(d.Decision.Argv)),
		Timeout:        timeout,
		MaxOutputBytes: int(bounds.MaxOutputBytes),
		MaxMemoryMB:    int(bounds.MaxMemoryMb),
		Confine:        true,
		Env:            o.Env,
	})
	after := effects.TakeRoots(d.roots, limit)
	res.Ran = true
	res.ExitCode, res.Stdout, res.Stderr, res.Truncated = r.ExitCode, r.Stdout, r.Stderr, r.Truncated
	res.TimedOut, res.Cancelled, res.Confinement = r.TimedOut, r.Cancelled, r.Confinement
	res.Effects = effects.Compare(before, after)
	res.Exit = run.ExitCode(r)
	res.Verified, res.Detail = true, "no change to verify"
	switch {
	case r.Err != nil:
		res.Verified, res.Detail = false, r.Err.Error()
	case r.ExitCode != 0:
		res.Verified, res.Detail = false, fmt.Sprintf("the command exited %d; its effects were not verified", r.ExitCode)
	default:
		v := expect.Verify()
		res.Verified, res.Detail = v.Verified, v.Detail
		if !res.Verified {
			res.Exit = exitProtocol
		}
	}
	res.Unexpected = unexpected(res.Effects, writes)
	if len(res.Unexpected) > 0 {
		res.Verified = false
		res.Detail = "unexpected-effect: changed outside the admitted targets: " + strings.Join(res.Unexpected, ", ")
		if res.Exit == 0 {
			res.Exit = exitProtocol
		}
		if g.Mode() == "enforce" {
			s.taint(res.Detail)
		}
	}
	eff, _ := json.Marshal(res.Effects)
	exit := res.ExitCode
	verified := res.Verified
	g.Retape(ctx, d, func(rec *tape.Record) {
		rec.Rule = "run-result"
		if len(res.Unexpected) > 0 {
			rec.Rule = "unexpected-effect"
		}
		rec.Effects, rec.ExitCode, rec.Verified, rec.Detail = eff, &exit, &verified, res.Detail
	})
	if len(res.Unexpected) > 0 {
		v := d.Verdict
		v.Rule, v.Reason = "unexpected-effect", res.Detail
		g.notifyDecided(v)
	}
	return res, nil
}

// writeGrant is what the kernel wall lets a run write: each target, and
// the nearest existing folder above it, where the entry is created or
// removed (Landlock grants on what exists, and a folder covers its subtree).
func writeGrant(targets []string) []string {
	grant := slices.Clone(targets)
	for _, t := range targets {
		dir := filepath.Dir(t)
		for {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		if !slices.Contains(grant, dir) {
			grant = append(grant, dir)
		}
	}
	return grant
}

// Exit codes shared with the command line.
const (
	exitProtocol = 70
	exitRefused  = 77
)

// admittedOnly rechecks each simple command as it is about to run: its
// argv must be one the gate admitted, word for word, and each admitted
// argv runs at most as often as it was admitted. The members of a
// pipeline are rechecked concurrently, hence the lock.
func admittedOnly(admitted [][]string) func(argv []string, dir string) error {
	var mu sync.Mutex
	left := slices.Clone(admitted)
	return func(argv []string, dir string) error {
		mu.Lock()
		defer mu.Unlock()
		for i, a := range left {
			if slices.Equal(a, argv) {
				left = slices.Delete(left, i, i+1)
				return nil
			}
		}
		return errors.New("not admitted: " + strings.Join(argv, " "))
	}
}

// unexpected lists changed paths outside the admitted targets. Anything
// beneath a target folder is expected; a folder above a target may be
// created (mkdir -p) or change its time stamp, but not be removed.
func unexpected(diff effects.Diff, targets []string) []string {
	var out []string
	check := func(p string, ancestorsToo bool) {
		for _, t := range targets {
			if p == t || strings.HasPrefix(p, t+"/") || ancestorsToo && strings.HasPrefix(t, p+"/") {
				return
			}
		}
		out = append(out, p)
	}
	for _, p := range diff.Added {
		check(p, true)
	}
	for _, p := range diff.Removed {
		check(p, false)
	}
	for _, p := range diff.Changed {
		check(p, true)
	}
	return out
}
