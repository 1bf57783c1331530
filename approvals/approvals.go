package approvals

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"admit/policy/rule"
	"admit/policy/rules"
)

// Answer is what a person said to a question.
type Answer string

// The answers a person can give. The strings are the wire values of
// admit/approve.
const (
	AllowOnce    Answer = "allow-once"
	AllowSession Answer = "allow-session"
	// AllowAlways allows the call and keeps the question's Rule as one of
	// the person's rules, so calls it matches are not asked again.
	AllowAlways Answer = "allow-always"
	Deny        Answer = "deny"
)

// ParseAnswer returns the Answer spelled by s, or an error that names s.
func ParseAnswer(s string) (Answer, error) {
	switch a := Answer(s); a {
	case AllowOnce, AllowSession, AllowAlways, Deny:
		return a, nil
	}
	return "", fmt.Errorf("approvals: unknown answer %q (want allow-once, allow-session, allow-always or deny)", s)
}

// DefaultTimeout is how long a question waits when neither the Question nor
// the Options say: long enough for a person to read a one-line summary and
// click, short enough that an unattended agent is not stuck for minutes.
const DefaultTimeout = 60 * time.Second

// Question is one call put to a person.
type Question struct {
	ID      string // the decision id, shown to the person and used in logs
	Session string // the session the call belongs to; grants are kept per session
	Tool    string // the tool (or program) the call uses
	Summary string // one line a person can read: the command, or the tool and its key arguments
	Reason  string // why a person is asked
	// Grant is the key an allow-session answer grants for the rest of the
	// session; the caller builds it (tool and canonical arguments, or program,
	// subcommand and option set). "" means a session grant is not offered.
	Grant string
	// Rule is the person's rule an allow-always answer writes (its match,
	// e.g. "npm test *"); "" means "always allow" is not offered.
	Rule string
	// RuleCovers says in words what Rule covers (the kinds of effect it
	// is limited to), and RuleEffects are those kinds as the rule keeps
	// them; NoRule, when no rule is offered, says why no rule can answer
	// the question. All for the prompt.
	RuleCovers  string
	RuleEffects *rules.Effects
	NoRule      string
	// Content is what a write puts in the file (a Write's content), and
	// Diff an edit's change as a unified diff; Protects says what the
	// protected file it changes can do (a task that runs on folder open).
	// For the prompt: what is approved, shown.
	Content, Diff, Protects string
	// Proposed is the whole file as the call would leave it (a write's
	// content, an edit applied to the file as it is now), and ProposedFor
	// the path as the call names it: for the editor's diff view of the
	// change. "" when the file is too large or an edit would not apply.
	Proposed, ProposedFor string
	// Fields are a structured call's arguments as name and value, one a
	// line, for the prompt to show readably (WebFetch's url and prompt,
	// an MCP tool's arguments).
	Fields []Field
	// What the prompt shows besides the summary, for a person to judge by:
	// the agent that asked, the whole command line, the folder it runs in,
	// the paths it touches, and what a run would be confined by.
	Agent, Command, Cwd, Confinement string
	Targets                          []string
	// Timeout bounds the wait; 0 (or negative) means the broker's default.
	Timeout time.Duration
}

// Field is one argument of a structured call, as the prompt shows it.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Resolution is how a question was decided. Every Decide returns exactly one.
type Resolution struct {
	Allowed bool
	// Answer is the person's answer, or the answer the outcome stands for:
	// allow-session for a grant, deny for every refusal that no person gave.
	Answer Answer
	// DecidedBy is rule.ByPerson or rule.ByGrant for an allowed call, and
	// for a refusal whoever decided it (see the package documentation).
	DecidedBy rule.DecidedBy
	// Rule is rule.HumanApproved, rule.HumanDenied, rule.ApprovalTimeout,
	// rule.ApprovalCancelled or rule.NoApprover.
	Rule   rule.Rule
	Reason string // a sentence a model can act on
	// AskedAt is when Decide took the question up; when nothing was asked
	// (a grant, headless, closed) it is that same moment and Waited is 0.
	AskedAt time.Time
	Waited  time.Duration
}

// Asker puts a question to a person. The server implements it with
// admit/approve or window/showMessageRequest.
//
// Ask must return when ctx is done; the broker cancels ctx on timeout, on the
// caller's cancellation, on CloseSession and on Close, and once the question
// is decided. When ctx ends before the person answered, the transport takes
// its prompt down (admit/approvalCancelled). An error means the person could
// not be asked (the connection failed). Ask is called from goroutines the
// broker owns, possibly many at once.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Options configure a Broker. The zero value is usable.
type Options struct {
	Timeout time.Duration    // default deadline per question; 0 means DefaultTimeout
	Now     func() time.Time // clock for AskedAt and Waited; nil means time.Now
	Logger  *slog.Logger     // nil discards
	// OnChange is called, without any broker lock held, after the number of
	// pending questions or the set of grants changed. It may be called from
	// several goroutines at once and should only read the broker's state
	// (Pending, AllGrants) or hand off; it must not block for long.
	OnChange func()
}

// Causes given to a question's context, so Decide can tell why it ended.
var (
	errTimeout       = errors.New("approvals: no answer before the deadline")
	errShutdown      = errors.New("approvals: broker closed")
	errSessionClosed = errors.New("approvals: session closed")
)

// Broker keeps pending questions and session grants. Use New; a Broker is
// safe for concurrent use.
type Broker struct {
	asker    Asker
	timeout  time.Duration
	now      func() time.Time
	log      *slog.Logger
	onChange func()

	// wg counts the Ask goroutines; Add happens under mu while closed is
	// false, so Close's Wait never races an Add.
	wg sync.WaitGroup

	// mu guards closed, pending (and the fields of each pending) and grants.
	mu      sync.Mutex
	closed  bool
	pending map[*pending]struct{}
	grants  map[string]map[string]struct{} // session -> grant keys; no empty inner maps
}

// pending is one question being asked. Its fields other than q, ctx and
// cancel are guarded by Broker.mu.
type pending struct {
	q      Question
	cancel context.CancelCauseFunc

	// decided is set by whoever decides first: the Ask goroutine with its
	// result while the question's context stands, or Decide when it ended.
	decided bool
	// sessionGone is set by CloseSession so an allow-session answer that
	// raced it does not leave a grant behind in a closed session.
	sessionGone bool
	// result carries the Ask result when the Ask goroutine decided;
	// buffered, so the goroutine never blocks.
	result chan askResult
}

type askResult struct {
	answer Answer
	err    error
}

// New returns a Broker that asks through asker. A nil asker makes a headless
// broker: every question that no grant answers is refused with a reason that
// says no one can be asked.
func New(asker Asker, o Options) *Broker {
	b := &Broker{
		asker:    asker,
		timeout:  o.Timeout,
		now:      o.Now,
		log:      o.Logger,
		onChange: o.OnChange,
		pending:  make(map[*pending]struct{}),
		grants:   make(map[string]map[string]struct{}),
	}
	if b.timeout <= 0 {
		b.timeout = DefaultTimeout
	}
	if b.now == nil {
		b.now = time.Now
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if b.onChange == nil {
		b.onChange = func() {}
	}
	return b
}

// Decide returns how q is decided: by a session grant without asking, or by
// asking the person and waiting for an answer, the deadline, the end of ctx,
// CloseSession or Close, whichever comes first. It blocks only its own caller,
// and returns promptly when ctx ends even if the Asker is slow to return.
func (b *Broker) Decide(ctx context.Context, q Question) Resolution {
	start := b.now()
	out := Resolution{Answer: Deny, AskedAt: start}

	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return b.refuse(out, q, rule.ByShutdown)
	}
	if q.Grant != "" {
		if _, ok := b.grants[q.Session][q.Grant]; ok {
			b.mu.Unlock()
			out.Allowed, out.Answer, out.DecidedBy, out.Rule = true, AllowSession, rule.ByGrant, rule.HumanApproved
			out.Reason = fmt.Sprintf("Allowed by a session grant: a person earlier allowed %s like this for the rest of the session.", callName(q))
			b.log.Info("approval granted by session grant", "id", q.ID, "session", q.Session, "tool", q.Tool, "grant", q.Grant)
			return out
		}
	}
	if b.asker == nil {
		b.mu.Unlock()
		return b.refuse(out, q, rule.ByHeadless)
	}
	if ctx.Err() != nil {
		b.mu.Unlock()
		return b.refuse(out, q, rule.ByCancelled)
	}

	timeout := q.Timeout
	if timeout <= 0 {
		timeout = b.timeout
	}
	q.Timeout = timeout
	cctx, cancel := context.WithCancelCause(ctx)
	askCtx, stop := context.WithTimeoutCause(cctx, timeout, errTimeout)
	p := &pending{q: q, cancel: cancel, result: make(chan askResult, 1)}
	b.pending[p] = struct{}{}
	b.wg.Add(1)
	b.mu.Unlock()
	defer cancel(nil)
	defer stop()
	b.onChange()
	b.log.Info("approval asked", "id", q.ID, "session", q.Session, "tool", q.Tool, "timeout", timeout)

	go b.ask(askCtx, p, start)

	var r askResult
	var ended bool // the question's context decided, not the Asker
	select {
	case r = <-p.result:
	case <-askCtx.Done():
		b.mu.Lock()
		if p.decided {
			// The Asker handed its result over while the context still
			// stood: it counts.
			r = <-p.result
		} else {
			p.decided = true
			ended = true
		}
		b.mu.Unlock()
	}

	var by rule.DecidedBy
	switch {
	case ended:
		by = causeOf(askCtx)
	case r.err != nil:
		by = rule.ByDisconnected
		b.log.Warn("approval asker failed", "id", q.ID, "session", q.Session, "err", r.err)
	default:
		by = rule.ByPerson
	}

	grantAdded := false
	b.mu.Lock()
	delete(b.pending, p)
	if by == rule.ByPerson && r.answer == AllowSession && q.Grant != "" && !p.sessionGone {
		g := b.grants[q.Session]
		if g == nil {
			g = make(map[string]struct{})
			b.grants[q.Session] = g
		}
		if _, ok := g[q.Grant]; !ok {
			g[q.Grant] = struct{}{}
			grantAdded = true
		}
	}
	b.mu.Unlock()
	b.onChange()

	out.Waited = b.now().Sub(start)
	if by != rule.ByPerson {
		out = b.refuse(out, q, by)
		return out
	}
	out.DecidedBy = rule.ByPerson
	switch r.answer {
	case AllowOnce, AllowSession, AllowAlways:
		out.Allowed, out.Rule = true, rule.HumanApproved
		out.Answer = AllowOnce
		out.Reason = fmt.Sprintf("A person allowed %s once.", callName(q))
		if r.answer == AllowAlways && q.Rule != "" {
			out.Answer = AllowAlways
			out.Reason = fmt.Sprintf("A person allowed %s, and always allows commands matching %q in this workspace.", callName(q), q.Rule)
		} else if r.answer == AllowAlways {
			b.log.Warn("allow-always answered to a question that offered no rule; counted as allow-once", "id", q.ID)
		} else if r.answer == AllowSession && q.Grant != "" {
			out.Answer = AllowSession
			out.Reason = fmt.Sprintf("A person allowed %s, and calls like it for the rest of the session.", callName(q))
		} else if r.answer == AllowSession {
			b.log.Warn("allow-session answered to a question that offered no grant; counted as allow-once", "id", q.ID)
		}
	case Deny:
		out.Rule = rule.HumanDenied
		out.Reason = fmt.Sprintf("A person refused %s; do not retry it: ask the user what they want instead, or take another approach.", callName(q))
	case "":
		out.Rule = rule.HumanDenied
		out.Reason = fmt.Sprintf("The person dismissed the approval prompt for %s without allowing it, so it was refused; do not retry it without asking the user.", callName(q))
	default:
		b.log.Warn("approval answer not understood; counted as deny", "id", q.ID, "answer", string(r.answer))
		out.Rule = rule.HumanDenied
		out.Reason = fmt.Sprintf("The approval prompt for %s was not answered with allow, so it was refused; do not retry it without asking the user.", callName(q))
	}
	b.log.Info("approval decided", "id", q.ID, "session", q.Session, "answer", string(out.Answer), "allowed", out.Allowed, "waited", out.Waited, "grantAdded", grantAdded)
	return out
}

// ask runs the Asker for p and hands the result to Decide, unless Decide has
// already decided, in which case a late answer is logged and dropped.
func (b *Broker) ask(ctx context.Context, p *pending, start time.Time) {
	defer b.wg.Done()
	a, err := b.asker.Ask(ctx, p.q)
	b.mu.Lock()
	// An answer counts only while the question's context stands: once it has
	// ended (deadline, cancellation, close), Decide refuses, whoever gets
	// the lock first.
	late := p.decided || ctx.Err() != nil
	if !late {
		p.decided = true
		p.result <- askResult{a, err}
	}
	b.mu.Unlock()
	if !late {
		return
	}
	if err == nil {
		b.log.Warn("late approval answer ignored", "id", p.q.ID, "session", p.q.Session, "answer", string(a), "after", b.now().Sub(start), "cause", context.Cause(ctx))
	} else {
		b.log.Debug("approval asker returned after the question ended", "id", p.q.ID, "err", err)
	}
}

// causeOf says who ended a question's context.
func causeOf(ctx context.Context) rule.DecidedBy {
	switch context.Cause(ctx) {
	case errTimeout:
		return rule.ByTimeout
	case errShutdown:
		return rule.ByShutdown
	case errSessionClosed:
		return rule.BySessionClosed
	}
	// The caller's context ended: cancelled, or its own deadline passed.
	return rule.ByCancelled
}

// refuse fills out as a refusal decided by by.
func (b *Broker) refuse(out Resolution, q Question, by rule.DecidedBy) Resolution {
	out.Allowed, out.Answer, out.DecidedBy = false, Deny, by
	call := callName(q)
	switch by {
	case rule.ByTimeout:
		out.Rule = rule.ApprovalTimeout
		out.Reason = fmt.Sprintf("No one answered the approval request for %s in time, so it was refused; do not retry it until the user is back, or take an approach that needs no approval.", call)
	case rule.ByCancelled:
		out.Rule = rule.ApprovalCancelled
		out.Reason = fmt.Sprintf("The request was cancelled while %s waited for a person's approval, so it was refused.", call)
	case rule.BySessionClosed:
		out.Rule = rule.ApprovalCancelled
		out.Reason = fmt.Sprintf("The session was closed while %s waited for a person's approval, so it was refused.", call)
	case rule.ByShutdown:
		out.Rule = rule.ApprovalCancelled
		out.Reason = fmt.Sprintf("The gate is shutting down, so %s, which needs a person's approval, was refused.", call)
	case rule.ByDisconnected:
		out.Rule = rule.NoApprover
		out.Reason = fmt.Sprintf("The connection to the editor failed while asking a person to approve %s, so it was refused; no one can approve it until the editor reconnects.", call)
	case rule.ByHeadless:
		out.Rule = rule.NoApprover
		out.Reason = fmt.Sprintf("%s needs a person's approval and this gate has no one to ask (headless), so it was refused; do the task without it, or ask the user to run it themselves.", upperFirst(call))
	default:
		panic("approvals: refuse with unknown decider " + string(by))
	}
	b.log.Info("approval refused", "id", q.ID, "session", q.Session, "tool", q.Tool, "decidedBy", by, "waited", out.Waited)
	return out
}

// callName names the call in a reason: "this bash call", or "this call".
func callName(q Question) string {
	if q.Tool == "" {
		return "this call"
	}
	return "this " + q.Tool + " call"
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Granted reports whether an earlier allow-session of session answers
// grant, so that a question with it would not be asked.
func (b *Broker) Granted(session, grant string) bool {
	if grant == "" {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.grants[session][grant]
	return ok
}

// Headless reports whether the broker has nobody to ask.
func (b *Broker) Headless() bool { return b.asker == nil }

// SetTimeout changes the default deadline of questions asked from now on;
// zero or less keeps it.
func (b *Broker) SetTimeout(d time.Duration) {
	if d <= 0 {
		return
	}
	b.mu.Lock()
	b.timeout = d
	b.mu.Unlock()
}

// Pending returns how many questions are waiting for an answer.
func (b *Broker) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// Grants returns the session's grants, sorted.
func (b *Broker) Grants(session string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(maps.Keys(b.grants[session]))
}

// AllGrants returns every session's grants, each sorted. Sessions without
// grants are left out.
func (b *Broker) AllGrants() map[string][]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := make(map[string][]string, len(b.grants))
	for s, g := range b.grants {
		all[s] = slices.Sorted(maps.Keys(g))
	}
	return all
}

// Revoke removes grant from session, or every grant of session when grant is
// "", and returns how many it removed. Later questions for a removed grant
// are asked again.
func (b *Broker) Revoke(session, grant string) int {
	b.mu.Lock()
	g := b.grants[session]
	n := 0
	if grant == "" {
		n = len(g)
		delete(b.grants, session)
	} else if _, ok := g[grant]; ok {
		n = 1
		delete(g, grant)
		if len(g) == 0 {
			delete(b.grants, session)
		}
	}
	b.mu.Unlock()
	if n > 0 {
		b.log.Info("approval grants revoked", "session", session, "grant", grant, "count", n)
		b.onChange()
	}
	return n
}

// CloseSession drops the session's grants and refuses its pending questions
// (DecidedBy "session-closed"). It does not wait for their Decide calls to
// return.
func (b *Broker) CloseSession(session string) {
	b.mu.Lock()
	_, hadGrants := b.grants[session]
	delete(b.grants, session)
	var cancels []context.CancelCauseFunc
	for p := range b.pending {
		if p.q.Session == session {
			p.sessionGone = true
			cancels = append(cancels, p.cancel)
		}
	}
	b.mu.Unlock()
	for _, c := range cancels {
		c(errSessionClosed)
	}
	if hadGrants {
		b.onChange()
	}
}

// Close refuses every pending question at once (DecidedBy "shutdown"), makes
// later Decide calls refuse immediately, and waits for the goroutines that
// ask to return. That wait relies on the Asker honouring its context. Close
// may be called more than once.
func (b *Broker) Close() {
	b.mu.Lock()
	b.closed = true
	cancels := make([]context.CancelCauseFunc, 0, len(b.pending))
	for p := range b.pending {
		cancels = append(cancels, p.cancel)
	}
	b.mu.Unlock()
	for _, c := range cancels {
		c(errShutdown)
	}
	b.wg.Wait()
}
