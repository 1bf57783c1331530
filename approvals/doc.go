// Package approvals holds the decisions that wait for a person: a call that a
// rule says needs a human is put to the person at the keyboard, with a
// deadline, and the answer comes back as exactly one Resolution.
//
// Start at [Broker.Decide]. A [Broker] owns every pending question and every
// session grant; the transport that actually shows the question (the server's
// admit/approve request or window/showMessageRequest) plugs in as an [Asker],
// so this package never imports the server or any protocol package.
//
// # Decisions
//
// Decide answers in this order:
//
//  1. The broker is closed: refused, DecidedBy "shutdown", rule
//     approval-cancelled. Nothing is asked.
//  2. The question's Grant is held by its session (an earlier allow-session):
//     allowed, DecidedBy "grant", rule human-approved. Nothing is asked.
//  3. There is no Asker (headless): refused, DecidedBy "headless", rule
//     no-approver.
//  4. The caller's context has already ended: refused, DecidedBy "cancelled",
//     rule approval-cancelled. Nothing is asked.
//  5. Otherwise the Asker is asked, in a goroutine the broker owns, with a
//     context that ends at the deadline, when the caller's context ends
//     ($/cancelRequest), when the session is closed, or when the broker is
//     closed. Whatever happens first decides:
//     - allow-once: allowed, DecidedBy "person", rule human-approved.
//     - allow-session: the same, and the session now holds the Grant. If the
//     question offered no Grant, the answer counts as allow-once.
//     - deny: refused, DecidedBy "person", rule human-denied. An empty
//     answer (the person dismissed the prompt) and an answer that is not
//     one of the three are denies too: dismissal means deny.
//     - the deadline: refused, DecidedBy "timeout", rule approval-timeout.
//     - the caller's context: refused, DecidedBy "cancelled", rule
//     approval-cancelled.
//     - CloseSession: refused, DecidedBy "session-closed", rule
//     approval-cancelled.
//     - Close: refused, DecidedBy "shutdown", rule approval-cancelled.
//     - the Asker returns an error (the connection to the editor failed):
//     refused, DecidedBy "disconnected", rule no-approver.
//
// An answer that arrives after the question was decided otherwise (late, or
// after a cancellation) is ignored and logged at warn level.
//
// # Rules
//
// The rules name why the call was decided, so a model (and the tape) can tell
// them apart. They, and the DecidedBy values above, are constants of package
// admit/policy/rule (rule.HumanApproved, rule.ByPerson, ...):
//
//   - human-approved: a person allowed it, now or earlier in the session.
//   - human-denied: a person refused it (or dismissed the prompt).
//   - approval-timeout: no one answered in time.
//   - approval-cancelled: the question was withdrawn before anyone answered
//     (the caller cancelled, the session was closed, the gate shut down).
//   - no-approver: there is no one to ask (headless, or the editor's
//     connection failed).
//
// # Grants
//
// A grant is an opaque key the caller builds (a tool with its canonical
// arguments, or a program, subcommand and option set). Grants belong to one
// session and never answer for another; they last until Revoke, CloseSession,
// or the broker is dropped.
package approvals
