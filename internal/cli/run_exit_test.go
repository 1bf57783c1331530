package cli

import (
	"testing"

	"admit/gate"
	"admit/policy/rule"
	"admit/workspace/run"
)

// TestRunExit: admit run's exit status for each way a run ends.
func TestRunExit(t *testing.T) {
	allowed := gate.Verdict{Verdict: rule.Allow, Allowed: true, Rule: rule.Allowed}
	for _, c := range []struct {
		note string
		res  gate.RunResult
		want int
	}{
		{"refused by the gate", gate.RunResult{Verdict: gate.Verdict{Verdict: rule.Deny, Rule: rule.OutsideWorkspace}}, exitRefused},
		{"a policy file that cannot be used", gate.RunResult{Verdict: gate.Verdict{Verdict: rule.Deny, Rule: rule.PolicyInvalid}}, exitConfig},
		{"refused by a wall", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 126, Err: &run.RefusedError{Reason: "x"}}, exitRefused},
		{"not set up", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 126, Err: run.ErrSetup}, exitConfig},
		{"timed out", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 124, TimedOut: true}, exitBound},
		{"cancelled by SIGINT", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 130, Cancelled: true, Verified: false}, 130},
		{"killed by a signal", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 139}, 139},
		{"its own status", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 3}, 3},
		{"verified", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 0, Verified: true}, exitOK},
		{"not verified", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 0, Verified: false}, exitUnverified},
		{"an unexpected effect", gate.RunResult{Verdict: allowed, Ran: true, ExitCode: 0, Verified: true, Unexpected: []string{"/w/x"}}, exitUnverified},
	} {
		if got := runExit(c.res); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.note, got, c.want)
		}
	}
}
