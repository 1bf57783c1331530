package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"admit/rpc/gate"
	"admit/workspace/run"
)

// runCmd is `admit run`: check, run without a system shell, verify.
func runCmd(args []string, std Stdio) int {
	f, err := parseGateFlags("run", args, std)
	if err != nil {
		return usageError(std, err)
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
