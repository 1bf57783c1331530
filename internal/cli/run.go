package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"admit/gate"
	"admit/workspace/run"
)

// runCmd is `admit run`: check, run without a system shell, verify.
func runCmd(args []string, std Stdio) int {
	f, err := parseGateFlags("run", args, std)
	if err != nil {
		return usageError(std, err)
	}
	if f.handle != "" {
		return runHandle(f, std)
	}
	if !f.lineSet && len(f.argv) == 0 {
		return usageError(std, errors.New("admit run needs -c 'LINE' or -- WORD..."))
	}
	// A run is always taped: the flag only chooses where.
	if f.tapePath, err = defaultTape(f.tapePath); err != nil {
		return failed(std, configError{err})
	}
	g, session, err := f.localGate()
	if err != nil {
		return failed(std, err)
	}
	defer g.Close()
	ctx, stop := signalContext()
	defer stop()
	res, err := g.Run(ctx, gate.RunParams{Session: session, Command: f.line, Argv: f.argv, Cwd: f.cwd}, gate.RunOptions{Env: os.Environ()})
	if err != nil {
		return failed(std, err)
	}
	printJSON(std, res)
	return runExit(res)
}

// runExit is the exit status of admit run for res:
//
//   - refused by the gate, a wall or the recheck: 77 (78 for a policy file
//     that cannot be used);
//   - a run that could not be set up: 78;
//   - the timeout: 124;
//   - otherwise the command's own status (128+N when signal N ended it),
//     but 70 when it exited 0 and its effect did not read back.
func runExit(res gate.RunResult) int {
	switch {
	case res.Rule == "policy-invalid":
		return exitConfig
	case !res.Ran:
		return exitRefused
	case res.Err != nil && errors.Is(res.Err, run.ErrRefused):
		return exitRefused
	case res.Err != nil:
		return exitConfig
	case res.TimedOut:
		return exitBound
	case res.ExitCode == 0 && (!res.Verified || len(res.Unexpected) > 0):
		return exitUnverified
	}
	return res.ExitCode
}

// signalContext is cancelled by SIGINT, SIGTERM or SIGHUP with the signal
// as its cause, so a cancelled run reports 128+N for that signal.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel(run.CancelSignal{Signal: sig.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// runHandle is `admit run --handle H`, the line a host runs in place of
// an agent's shell call that a hook rewrote: it redeems the handle where
// it was given out (this machine's handle folder, for a hook that decided
// alone; else the editor's server), runs the judged line confined, and
// prints the command's own output and exit status, as the host expects
// of the line it replaced. A handle that cannot be redeemed runs nothing.
func runHandle(f *gateFlags, std Stdio) int {
	ctx, stop := signalContext()
	defer stop()
	handles, err := localHandles()
	if err != nil {
		return failed(std, configError{err})
	}
	var res gate.RunResult
	// One read of the handle file says both whether it is held here and
	// where it was judged.
	if h, ok := handles.Peek(f.handle); ok {
		res, err = runLocalHandle(ctx, f, h)
	} else {
		res, err = runServerHandle(ctx, f)
	}
	if err != nil {
		fmt.Fprintln(std.Err, "admit: the call was not run:", err)
		return exitRefused
	}
	_, _ = io.WriteString(std.Out, res.Stdout)
	_, _ = io.WriteString(std.Err, res.Stderr)
	if !res.Ran {
		fmt.Fprintln(std.Err, res.ToolError)
	}
	if res.Truncated {
		fmt.Fprintln(std.Err, "admit: the output was cut at the output bound")
	}
	if len(res.Hidden) > 0 {
		// The model reads this: an empty .env here is admit's doing.
		fmt.Fprintln(std.Err, "admit: hidden from this run as secrets (read as empty):", strings.Join(res.Hidden, " "))
	}
	return runExit(res)
}

// runLocalHandle redeems a handle a hook deciding alone gave out, with a
// gate of its own on the workspace the line was judged in.
func runLocalHandle(ctx context.Context, f *gateFlags, h gate.Handle) (gate.RunResult, error) {
	if f.tapePath == "" {
		f.tapePath = h.Tape // the run's outcome goes on the tape its decision went on
	}
	tapePath, err := defaultTape(f.tapePath)
	if err != nil {
		return gate.RunResult{}, err
	}
	// The gate the hook decided alone with: the person's settings, the
	// handle files.
	g, err := openAlone(aloneGate{dirs: []string{workspaceRoot(h.Cwd)}, tapePath: tapePath, handleFiles: true})
	if err != nil {
		return gate.RunResult{}, err
	}
	defer g.Close()
	return g.Run(ctx, gate.RunParams{Handle: f.handle}, gate.RunOptions{Env: os.Environ()})
}

// runServerHandle redeems a handle the editor's server gave out, through
// its socket: the server runs the line.
func runServerHandle(ctx context.Context, f *gateFlags) (gate.RunResult, error) {
	wd, _ := os.Getwd()
	c, _, err := dialWorkspace(ctx, wd, os.Getenv("ADMIT_SOCKET"))
	if err != nil {
		return gate.RunResult{}, fmt.Errorf("no such handle here (never given out, already run, or expired), and no editor's server to ask: %w", err)
	}
	defer c.Close()
	return c.Run(ctx, gate.RunParams{Handle: f.handle}, gate.RunOptions{})
}
