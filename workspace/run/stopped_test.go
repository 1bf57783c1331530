package run

import "errors"

// How a run ended, as admit run's exit status reads it (internal/cli
// declares the statuses): refused by a wall or the recheck, not set up,
// timed out, or ended by its command.
const (
	stopRefused = "refused"
	stopSetup   = "setup"
	stopTimeout = "timeout"
	stopExited  = "exited"
)

func stopped(r Result) string {
	switch {
	case r.Err != nil && errors.Is(r.Err, ErrRefused):
		return stopRefused
	case r.Err != nil:
		return stopSetup
	case r.TimedOut:
		return stopTimeout
	}
	return stopExited
}
