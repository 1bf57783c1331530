package rule

import "fmt"

// Mode is how the gate acts on its decisions: the "mode" of a verdict, a
// tape record and the state.
type Mode string

// The gate's modes.
const (
	// Off decides nothing: every call is allowed with rule caps-off and
	// nothing is taped.
	Off Mode = "off"
	// Warn decides and tapes every call, but lets a refused call go on
	// (allowed is true): the verdict says what enforce would do.
	Warn Mode = "warn"
	// Enforce decides, tapes and refuses: a refused call must not run.
	Enforce Mode = "enforce"
)

// Modes returns the modes, from the least strict to the most.
func Modes() []Mode { return []Mode{Off, Warn, Enforce} }

// ParseMode returns the Mode spelled s. Any other value, "" included, is an
// error that names the value and the choices, in the words the protocol's
// parameter errors use ("must be one of off, warn, enforce, got ...").
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Off, Warn, Enforce:
		return m, nil
	}
	return "", fmt.Errorf("must be one of off, warn, enforce, got %q", s)
}

// Verdict is the gate's answer about one call: the "verdict" of a verdict
// and of a tape record. In warn mode a deny is reported but the call goes
// on; "allowed" says what the agent must do.
type Verdict string

// The two verdicts.
const (
	// Allow: the call was admitted, by rule or by a person.
	Allow Verdict = "allow"
	// Deny: the call was refused (or, in warn mode, would have been).
	Deny Verdict = "deny"
)

// VerdictOf is Allow when allowed, else Deny.
func VerdictOf(allowed bool) Verdict {
	if allowed {
		return Allow
	}
	return Deny
}

// Outcome is the class of the policy's answer: whether a rule admitted the
// call, a person decided it, or a rule refused it. It is finer than the
// Verdict, which says only allow or deny: a call a person refused and one a
// rule refused are both deny, but only the first was asked.
type Outcome string

// The three outcome classes.
const (
	// OutcomeAllow: admitted by rule, with no person.
	OutcomeAllow Outcome = "allow"
	// OutcomeAsk: a person decides; with nobody to ask, the call is
	// refused with a reason that says it needed a person.
	OutcomeAsk Outcome = "ask"
	// OutcomeDeny: refused by a rule, and never put to a person.
	OutcomeDeny Outcome = "deny"
)

// DecidedBy says who decided a call: the "decidedBy" of a verdict and of a
// tape record. A call a rule decided is ByRule; a call put to a person is
// decided by the person or by what stopped the question.
type DecidedBy string

// Who decided.
const (
	// ByRule: the policy decided; no person was asked.
	ByRule DecidedBy = "rule"
	// ByPerson: a person answered the question.
	ByPerson DecidedBy = "person"
	// ByGrant: an earlier allow-session answer in the same session.
	ByGrant DecidedBy = "grant"
	// ByHandle: a person's answer to the call a handle was given for,
	// carried to the run that redeems it (admit run --handle): the call
	// is asked once, not again when it runs.
	ByHandle DecidedBy = "handle"
	// ByTimeout: no answer came before the deadline.
	ByTimeout DecidedBy = "timeout"
	// ByCancelled: the caller's request ended ($/cancelRequest) first.
	ByCancelled DecidedBy = "cancelled"
	// BySessionClosed: the session was closed while the question stood.
	BySessionClosed DecidedBy = "session-closed"
	// ByShutdown: the gate shut down while the question stood.
	ByShutdown DecidedBy = "shutdown"
	// ByDisconnected: the connection that asks the person failed.
	ByDisconnected DecidedBy = "disconnected"
	// ByHeadless: the gate has no one to ask.
	ByHeadless DecidedBy = "headless"
	// ByTape: the tape itself wrote the record (tape-repaired); it is never
	// on a verdict.
	ByTape DecidedBy = "tape"
)
