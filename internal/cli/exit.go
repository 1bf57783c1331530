package cli

// The exit statuses of admit's commands, declared once (after sysexits.h,
// as docs/protocol.md and the README list them).
const (
	exitOK         = 0
	exitUsage      = 64  // a bad command line
	exitUnverified = 70  // admit run: the command ran, but its effect did not read back (also an internal error, EX_SOFTWARE)
	exitRefused    = 77  // the gate refused the call (or a wall refused it at run time)
	exitConfig     = 78  // a configuration the gate cannot use: a bound, a policy file, a tape
	exitBound      = 124 // admit run: a bound was spent (the timeout)
	// exitHookBlock is what the agents' hooks read as "block the call,
	// stderr is the reason" when no answer in the host's own form can be
	// printed (a misconfigured hook command).
	exitHookBlock = 2
)
