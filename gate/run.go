package gate

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

	"admit/policy"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/tape"
	"admit/workspace"
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
	// Handle runs the line a handle names (CheckParams.Handle), in place
	// of Command, Argv and Cwd: once, before its deadline.
	Handle string `json:"handle,omitempty"`
}

// RunResult is the verdict and, when the command ran, how it ended and
// what it changed.
type RunResult struct {
	Verdict
	Ran        bool         `json:"ran"`
	ExitCode   int          `json:"exitCode"`
	Stdout     string       `json:"stdout"`
	Stderr     string       `json:"stderr"`
	Truncated  bool         `json:"truncated"`
	Effects    effects.Diff `json:"effects"`
	Verified   bool         `json:"verified"`
	Detail     string       `json:"detail"`
	Unexpected []string     `json:"unexpected,omitempty"`
	// Undone are the protected paths a run of code made, removed when it
	// ended; NotUndone those that could not be removed.
	Undone    []string `json:"undone,omitempty"`
	NotUndone []string `json:"notUndone,omitempty"`
	// UndoneTo is admit's folder the Undone paths were moved into (who
	// made one cannot be told: the person may have, meanwhile).
	UndoneTo    string `json:"undoneTo,omitempty"`
	Confinement string `json:"confinement,omitempty"`
	// Walls are what each wall of the run stood behind; MissingWalls the
	// walls it needed and ran without (only when the person accepts
	// weaker confinement).
	Walls        []run.Wall `json:"walls,omitempty"`
	MissingWalls []string   `json:"missingWalls,omitempty"`
	// Hidden are the secret files the run hid (policy.Decision.Hidden
	// that existed): empty and read-only inside it.
	Hidden    []string `json:"hidden,omitempty"`
	TimedOut  bool     `json:"timedOut,omitempty"`
	Cancelled bool     `json:"cancelled,omitempty"`
	// OutOfMemory: a program was ended at the memory bound (a cgroup's
	// memory.max; under RLIMIT_DATA the program reports it itself).
	OutOfMemory bool `json:"outOfMemory,omitempty"`
	// Err is why the runner itself failed (run.ErrRefused: a wall or the
	// recheck refused; anything else: the run could not be set up), or nil.
	Err error `json:"-"`
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
	return g.run(ctx, p, o, nil)
}

// run is Run with the decision's amend (Decide's), for tests that give a
// decision what the policy does not.
func (g *Gate) run(ctx context.Context, p RunParams, o RunOptions, amend func(d *policy.Decision)) (RunResult, error) {
	heldBy := "" // the background hold of a rewritten call, ended when its run ends
	var approved rule.Rule
	if p.Handle != "" {
		if p.Command != "" || len(p.Argv) > 0 || p.Cwd != "" {
			return RunResult{}, &ParamError{"handle", "a handle names its command and folder: give no command, argv or cwd with it"}
		}
		h, err := g.redeem(p.Handle, p.Session)
		if err != nil {
			return RunResult{}, err
		}
		// The line is judged again as admit.run, in the folder and session
		// it was judged in: what changed since (a write, a policy) counts.
		p = RunParams{Session: h.Session, Command: h.Command, Argv: h.Argv, Cwd: h.Cwd, TimeoutMs: p.TimeoutMs}
		heldBy, approved = h.Decision, h.Approved
	}
	d, err := g.Decide(ctx, CheckParams{Session: p.Session, Tool: runTool, Command: p.Command, Argv: p.Argv, Cwd: p.Cwd, heldBy: heldBy, approved: approved}, amend)
	if err != nil {
		return RunResult{}, err
	}
	if heldBy != "" && d.session != nil {
		defer d.session.endFlux(heldBy) // the host's background command is this run: it has ended
	}
	res := RunResult{Verdict: d.Verdict, ExitCode: -1}
	if d.Verdict.Mode == rule.Off {
		res.Detail = "the gate is off: admit runs nothing while off; run the command yourself"
		return res, nil
	}
	if d.Verdict.Verdict != rule.Allow {
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
	code := len(d.Decision.RunsCode) > 0
	// What a program that runs code changed comes from the watcher, where
	// the server has one: it may touch any file of a large workspace, and
	// a fingerprint of every file before and after costs more than the run.
	var capture *workspace.Capture
	var before effects.Fingerprint
	if w := g.watcher.Load(); code && w != nil {
		capture = w.Capture(ctx)
	} else {
		before = effects.TakeRoots(d.roots, limit)
	}
	expect := effects.Expect(d.Decision.Intents, d.Decision.Argv)
	for _, s := range d.Decision.Rejudged {
		expect.Rejudged(s.Cmd, s.Argv, s.Fits)
	}
	rootFolders, rootFiles := command.RootNames()
	r := run.Run(ctx, run.Spec{
		Line: p.Command, Argv: p.Argv, Dir: d.cwd, Roots: d.roots, Writes: grant,
		Recheck:        expect.Recheck(admittedOnly(d.Decision.Argv, d.Decision.Rejudged, g.rejudge(s, heldBy, d.Decision.Hidden))),
		Timeout:        timeout,
		MaxOutputBytes: int(bounds.MaxOutputBytes),
		MaxMemoryMB:    int(bounds.MaxMemoryMb),
		Confine:        true,
		// A program that runs code (go test, npm test: asked, and allowed
		// by a person or their rule) may write the workspace minus its
		// protected paths, in namespaces of its own.
		Code:      len(d.Decision.RunsCode) > 0,
		Protected: func(path string) bool { return command.ProtectFor(path, d.roots, g.personal).Protected },
		// The protected names a root may not have yet, which the run
		// must not make (workspace/run: read-only empties inside it).
		RootFolders: rootFolders, RootFiles: rootFiles,
		// The person's own places (the tape, which this gate may rotate
		// during the run) are never undone; the workspace's protected
		// paths a run of code made are.
		Keep:         func(path string) bool { return command.ProtectFor(path, nil, g.personal).Protected },
		AcceptWeaker: g.cfg.AcceptWeaker,
		Env:          o.Env,
		// The secret files the line was allowed on the condition of
		// hiding: empty and read-only in the run, or it is refused.
		Hidden: d.Decision.Hidden,
	})
	if capture != nil {
		c := capture.Stop(ctx)
		res.Effects = effects.Diff{Added: c.Added, Removed: c.Removed, Changed: c.Changed, Complete: c.Complete}
	} else {
		res.Effects = effects.Compare(before, effects.TakeRoots(d.roots, limit))
	}
	res.Ran = true
	res.ExitCode, res.Stdout, res.Stderr, res.Truncated = r.ExitCode, r.Stdout, r.Stderr, r.Truncated
	res.TimedOut, res.Cancelled, res.Confinement = r.TimedOut, r.Cancelled, r.Confinement
	res.OutOfMemory = r.OutOfMemory
	res.Walls, res.MissingWalls = r.Walls, r.Missing
	res.Hidden = r.Hidden
	res.Err = r.Err
	res.Verified, res.Detail = true, "no change to verify"
	switch {
	case r.Err != nil:
		res.Verified, res.Detail = false, r.Err.Error()
	case r.OutOfMemory:
		res.Verified, res.Detail = false, fmt.Sprintf("a program was ended at the memory bound (%d MiB) and the command exited %d; its effects were not verified", bounds.MaxMemoryMb, r.ExitCode)
	case r.ExitCode != 0:
		res.Verified, res.Detail = false, fmt.Sprintf("the command exited %d; its effects were not verified", r.ExitCode)
	default:
		v := expect.Verify()
		res.Verified, res.Detail = v.Verified, v.Detail
	}
	if code {
		// What code may write is the workspace minus the protected paths:
		// a change there, or outside, is the unexpected one.
		res.Unexpected = unexpectedOfCode(res.Effects, d.roots, func(p string) bool { return command.ProtectFor(p, d.roots, g.personal).Protected })
	} else {
		res.Unexpected = unexpected(res.Effects, writes)
	}
	// What the run made at protected paths was removed when it ended
	// (workspace/run/undo.go): unexpected still, and said so.
	res.Undone, res.NotUndone, res.UndoneTo = r.Undone, r.NotUndone, r.UndoneTo
	for _, p := range append(slices.Clone(r.Undone), r.NotUndone...) {
		if !slices.Contains(res.Unexpected, p) {
			res.Unexpected = append(res.Unexpected, p)
		}
	}
	if len(res.Unexpected) > 0 {
		res.Verified = false
		res.Detail = "unexpected-effect: changed outside the admitted targets: " + strings.Join(res.Unexpected, ", ")
		if len(r.Undone) > 0 {
			res.Detail += "; made at protected paths and removed after the run: " + strings.Join(r.Undone, ", ")
			if r.UndoneTo != "" {
				res.Detail += " (kept in " + r.UndoneTo + ")"
			}
		}
		if len(r.NotUndone) > 0 {
			res.Detail += "; made at protected paths and NOT removed: " + strings.Join(r.NotUndone, ", ")
		}
		if g.Mode() == rule.Enforce {
			s.taint(res.Detail)
		}
	}
	eff, _ := json.Marshal(res.Effects)
	exit := res.ExitCode
	verified := res.Verified
	g.retape(ctx, d, func(rec *tape.Record) {
		rec.Rule = "run-result"
		if len(res.Unexpected) > 0 {
			rec.Rule = "unexpected-effect"
		}
		rec.Effects, rec.ExitCode, rec.Verified, rec.Detail = eff, &exit, &verified, res.Detail
		rec.Hidden = res.Hidden // what the run hid, not what the decision asked
	})
	if len(res.Unexpected) > 0 {
		v := d.Verdict
		v.Rule, v.Reason = "unexpected-effect", res.Detail
		g.notifyDecided(&v)
	}
	return res, nil
}

// confinementWords says, for a person asked about a run, what the run
// would be confined by.
func confinementWords() string {
	m := run.Probe()
	if len(m.MissingJudged) > 0 {
		return "run by admit without a shell; this machine lacks " + strings.Join(m.MissingJudged, ", ") + ", so it is refused unless weaker confinement is accepted"
	}
	return "run by admit without a shell, under " + m.Summary() + ": it may write only the paths admitted, and reaches no network and no socket"
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

// admittedOnly rechecks each simple command as it is about to run: its
// argv must be one the gate admitted, word for word, or one that a
// command with substitutions (rejudged) became, which rejudge must then
// allow; each admitted argv and each such command runs at most as often
// as it was admitted. The members of a pipeline are rechecked
// concurrently, hence the lock.
func admittedOnly(admitted [][]string, rejudged []policy.Shape, rejudge func(argv []string, dir string) error) func(argv []string, dir string) error {
	var mu sync.Mutex
	left := slices.Clone(admitted)
	shapes := slices.Clone(rejudged)
	return func(argv []string, dir string) error {
		mu.Lock()
		for i, a := range left {
			if slices.Equal(a, argv) {
				left = slices.Delete(left, i, i+1)
				mu.Unlock()
				return nil
			}
		}
		for i, s := range shapes {
			if s.Fits(argv) {
				shapes = slices.Delete(shapes, i, i+1)
				mu.Unlock()
				return rejudge(argv, dir)
			}
		}
		mu.Unlock()
		return errors.New("not admitted: " + strings.Join(argv, " "))
	}
}

// rejudge judges a command whose words came from a command substitution,
// now that they are known: as a plain argv of admit.run in the folder it
// runs in, with the session's state as it is now (its observations, what
// is in flux, the policy file), as if the agent had written every word.
// Only an allow lets it start, and only for a command that changes
// nothing: the run's write grant was made before its words were known.
//
// A command that is allowed only with secret files hidden starts only if
// the run hides them already: its walls were made before its words were
// known.
func (g *Gate) rejudge(s *session, heldBy string, hidden []string) func(argv []string, dir string) error {
	return func(argv []string, dir string) error {
		env, _, err := g.env(s)
		if err != nil {
			return fmt.Errorf("the workspace policy file cannot be used: %w", err)
		}
		cwd, err := g.cwd(s, dir, env.Roots)
		if err != nil {
			return err
		}
		env.InFlux = s.inFlux(g.cfg.Now(), heldBy)
		d := policy.Decide(policy.Call{Tool: runTool, Argv: argv, Cwd: cwd}, env)
		switch {
		case !d.Allowed:
			return fmt.Errorf("its words, known once $(...) ran, are not admitted (%s): %s", d.Rule, d.Reason)
		case d.Kind == "write" || len(d.Writes) > 0 || len(d.RunsCode) > 0:
			return errors.New("its words, known once $(...) ran, make it a command that changes files or runs code, which a substitution may not feed")
		case slices.ContainsFunc(d.Hidden, func(p string) bool { return !slices.Contains(hidden, p) }):
			return errors.New("its words, known once $(...) ran, make it read a secret file the run does not hide")
		}
		g.observe(s, d)
		return nil
	}
}

// unexpectedOfCode lists the changed paths a program that runs code was
// not let write: protected paths, and anything outside the roots.
func unexpectedOfCode(diff effects.Diff, roots []string, protected func(string) bool) []string {
	var out []string
	for _, list := range [][]string{diff.Added, diff.Removed, diff.Changed} {
		for _, p := range list {
			inside := false
			for _, r := range roots {
				inside = inside || p == r || strings.HasPrefix(p, r+"/")
			}
			if !inside || protected(p) {
				out = append(out, p)
			}
		}
	}
	return out
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

func (g *Gate) acceptWeakerConfinement() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.acceptWeaker
}
