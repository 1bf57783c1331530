package run

import "errors"

// Exit statuses of `admit run`, as the design fixes them.
const (
	ExitOK         = 0
	ExitUsage      = 64  // bad command line (the CLI decides)
	ExitUnverified = 70  // the command ran but its effect did not read back (the CLI decides, from effects.Readback)
	ExitRefused    = 77  // the gate, Recheck, or a run-time wall refused
	ExitConfig     = 78  // bad configuration: a Spec or helper that cannot run
	ExitBound      = 124 // a bound was spent: the timeout
)

// ExitCode maps a Result to the exit status of `admit run`:
//
//   - Err matching ErrRefused: 77 (nothing of the refused command ran);
//   - Err matching ErrSetup (or any other Err): 78;
//   - TimedOut: 124;
//   - Cancelled: 128+N, N the CancelSignal cause, else SIGKILL (137);
//   - otherwise ExitCode: the command's own status, 128+N when a signal
//     ended it (e.g. the memory limit turning into SIGSEGV or SIGKILL).
//
// 64 (usage) and 70 (unverified effect) are the CLI's to add: Run knows
// neither the command line of admit nor the readback.
func ExitCode(r Result) int {
	switch {
	case r.Err != nil && errors.Is(r.Err, ErrRefused):
		return ExitRefused
	case r.Err != nil:
		return ExitConfig
	case r.TimedOut:
		return ExitBound
	}
	return r.ExitCode
}
