package approvals

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"admit/policy/rule"
)

// patience bounds every wait in these tests; nothing here sleeps for a fixed
// time, it waits for an event and fails if the event does not come.
const patience = 5 * time.Second

// short is a question timeout for tests that want the deadline to pass.
const short = 20 * time.Millisecond

// behavior scripts how the fake person answers one question.
type behavior int

const (
	never         behavior = iota // no answer: returns ctx.Err() when ctx ends (the default)
	answerNow                     // answers at once
	onRelease                     // answers when release is closed, unless ctx ends first
	late                          // answers only after ctx ended (after the deadline)
	fail                          // the transport fails
	stubborn                      // ignores ctx: answers only when release is closed
	failOnRelease                 // the transport fails when release is closed
)

type script struct {
	how     behavior
	answer  Answer
	release chan struct{}
}

// fakeAsker is an Asker scripted per question ID. It reports each question
// it is asked on asked, and the ID of each question whose context ended
// while it was being asked on ended.
type fakeAsker struct {
	asked chan Question
	ended chan string
	calls atomic.Int64

	// mu guards scripts.
	mu      sync.Mutex
	scripts map[string]script
}

func newFake() *fakeAsker {
	return &fakeAsker{
		asked:   make(chan Question, 1000),
		ended:   make(chan string, 1000),
		scripts: make(map[string]script),
	}
}

func (f *fakeAsker) script(id string, s script) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scripts[id] = s
}

func (f *fakeAsker) Ask(ctx context.Context, q Question) (Answer, error) {
	f.calls.Add(1)
	f.mu.Lock()
	s := f.scripts[q.ID]
	f.mu.Unlock()
	f.asked <- q
	switch s.how {
	case answerNow:
		return s.answer, nil
	case fail:
		return "", errors.New("connection reset by peer")
	case onRelease:
		select {
		case <-s.release:
			return s.answer, nil
		case <-ctx.Done():
			f.ended <- q.ID
			return "", ctx.Err()
		}
	case late:
		<-ctx.Done()
		f.ended <- q.ID
		return s.answer, nil
	case stubborn:
		<-s.release
		return s.answer, nil
	case failOnRelease:
		select {
		case <-s.release:
			return "", errors.New("connection lost")
		case <-ctx.Done():
			f.ended <- q.ID
			return "", ctx.Err()
		}
	default: // never
		<-ctx.Done()
		f.ended <- q.ID
		return "", ctx.Err()
	}
}

// syncBuffer is a log sink safe for the broker's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func testLogger(t *testing.T) (*slog.Logger, *syncBuffer) {
	t.Helper()
	var sb syncBuffer
	return slog.New(slog.NewTextHandler(&sb, &slog.HandlerOptions{Level: slog.LevelDebug})), &sb
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(patience):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func decideAsync(b *Broker, ctx context.Context, q Question) <-chan Resolution {
	ch := make(chan Resolution, 1)
	go func() { ch <- b.Decide(ctx, q) }()
	return ch
}

func q(id, session string) Question {
	return Question{
		ID:      id,
		Session: session,
		Tool:    "bash",
		Summary: "git push origin main",
		Reason:  "git push needs a person",
		Grant:   "bash:git push",
		Timeout: patience * 4, // long: only the tests about deadlines use short
	}
}

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Answer
		wantErr bool
	}{
		{"allow-once", AllowOnce, false},
		{"allow-session", AllowSession, false},
		{"deny", Deny, false},
		{"", "", true},
		{"Allow-Once", "", true},
		{"yes", "", true},
	} {
		got, err := ParseAnswer(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParseAnswer(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.in)) {
			t.Errorf("ParseAnswer(%q) error %q does not name the value", tc.in, err)
		}
	}
}

func TestDecideEachWay(t *testing.T) {
	for _, tc := range []struct {
		name        string
		s           script
		noGrant     bool
		timeout     time.Duration
		wantAllowed bool
		wantAnswer  Answer
		wantBy      rule.DecidedBy
		wantRule    rule.Rule
		wantGrants  int
	}{
		{name: "allow once", s: script{how: answerNow, answer: AllowOnce},
			wantAllowed: true, wantAnswer: AllowOnce, wantBy: rule.ByPerson, wantRule: rule.HumanApproved},
		{name: "allow session", s: script{how: answerNow, answer: AllowSession},
			wantAllowed: true, wantAnswer: AllowSession, wantBy: rule.ByPerson, wantRule: rule.HumanApproved, wantGrants: 1},
		{name: "allow session with no grant offered counts as once", s: script{how: answerNow, answer: AllowSession}, noGrant: true,
			wantAllowed: true, wantAnswer: AllowOnce, wantBy: rule.ByPerson, wantRule: rule.HumanApproved},
		{name: "deny", s: script{how: answerNow, answer: Deny},
			wantAnswer: Deny, wantBy: rule.ByPerson, wantRule: rule.HumanDenied},
		{name: "dismissed", s: script{how: answerNow, answer: ""},
			wantAnswer: Deny, wantBy: rule.ByPerson, wantRule: rule.HumanDenied},
		{name: "answer not understood", s: script{how: answerNow, answer: "maybe"},
			wantAnswer: Deny, wantBy: rule.ByPerson, wantRule: rule.HumanDenied},
		{name: "never answers", s: script{how: never}, timeout: short,
			wantAnswer: Deny, wantBy: rule.ByTimeout, wantRule: rule.ApprovalTimeout},
		{name: "answers allow after the deadline", s: script{how: late, answer: AllowSession}, timeout: short,
			wantAnswer: Deny, wantBy: rule.ByTimeout, wantRule: rule.ApprovalTimeout},
		{name: "transport fails", s: script{how: fail},
			wantAnswer: Deny, wantBy: rule.ByDisconnected, wantRule: rule.NoApprover},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			f.script("d1", tc.s)
			b := New(f, Options{})
			defer b.Close()
			qq := q("d1", "s1")
			if tc.noGrant {
				qq.Grant = ""
			}
			if tc.timeout != 0 {
				qq.Timeout = tc.timeout
			}
			out := b.Decide(context.Background(), qq)
			if out.Allowed != tc.wantAllowed || out.Answer != tc.wantAnswer || out.DecidedBy != tc.wantBy || out.Rule != tc.wantRule {
				t.Errorf("Decide = %+v; want allowed %v, answer %q, by %q, rule %q", out, tc.wantAllowed, tc.wantAnswer, tc.wantBy, tc.wantRule)
			}
			if out.Reason == "" || !strings.HasSuffix(out.Reason, ".") {
				t.Errorf("Reason %q is not a sentence", out.Reason)
			}
			if tc.wantBy == rule.ByTimeout && out.Waited < tc.timeout {
				t.Errorf("Waited %v, shorter than the timeout %v", out.Waited, tc.timeout)
			}
			if out.AskedAt.IsZero() {
				t.Errorf("AskedAt is zero")
			}
			if n := b.Pending(); n != 0 {
				t.Errorf("Pending() = %d after the decision, want 0", n)
			}
			if g := b.Grants("s1"); len(g) != tc.wantGrants {
				t.Errorf("Grants(s1) = %q, want %d grants", g, tc.wantGrants)
			}
		})
	}
}

func TestLateAnswerIsIgnoredAndLogged(t *testing.T) {
	f := newFake()
	f.script("late", script{how: late, answer: AllowOnce})
	log, sb := testLogger(t)
	b := New(f, Options{Timeout: short, Logger: log})
	qq := q("late", "s1")
	qq.Timeout = 0 // the broker's default from Options
	out := b.Decide(context.Background(), qq)
	if out.Allowed || out.DecidedBy != rule.ByTimeout {
		t.Fatalf("Decide = %+v, want a timeout refusal", out)
	}
	recv(t, f.ended, "the asker to see its context end")
	b.Close() // waits for the ask goroutine, so its log line is written
	if !strings.Contains(sb.String(), "late approval answer ignored") || !strings.Contains(sb.String(), "id=late") {
		t.Errorf("log does not record the late answer:\n%s", sb.String())
	}
	if len(b.Grants("s1")) != 0 {
		t.Errorf("a late answer left a grant")
	}
}

func TestCancelRefusesAndEndsTheAskersContext(t *testing.T) {
	f := newFake()
	b := New(f, Options{})
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := decideAsync(b, ctx, q("c1", "s1"))
	recv(t, f.asked, "the question")
	cancel() // what the server does on $/cancelRequest
	out := recv(t, done, "the outcome")
	if out.Allowed || out.DecidedBy != rule.ByCancelled || out.Rule != rule.ApprovalCancelled {
		t.Errorf("Decide = %+v, want a cancelled refusal", out)
	}
	if id := recv(t, f.ended, "the asker's context to end"); id != "c1" {
		t.Errorf("ended %q, want c1", id)
	}
}

func TestCancelledBeforeAskingAsksNothing(t *testing.T) {
	f := newFake()
	b := New(f, Options{})
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := b.Decide(ctx, q("c0", "s1"))
	if out.Allowed || out.DecidedBy != rule.ByCancelled {
		t.Errorf("Decide = %+v, want a cancelled refusal", out)
	}
	if f.calls.Load() != 0 {
		t.Errorf("the asker was called for a cancelled request")
	}
}

func TestCallerDeadlineEndsTheQuestion(t *testing.T) {
	f := newFake()
	b := New(f, Options{})
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), short)
	defer cancel()
	out := b.Decide(ctx, q("cd", "s1"))
	if out.Allowed || out.DecidedBy != rule.ByCancelled {
		t.Errorf("Decide = %+v, want a cancelled refusal (the caller's own deadline)", out)
	}
}

func TestCloseRefusesHundredPendingAtOnce(t *testing.T) {
	before := runtime.NumGoroutine()
	f := newFake()
	b := New(f, Options{})
	const n = 100
	outs := make([]<-chan Resolution, n)
	for i := range n {
		outs[i] = decideAsync(b, context.Background(), q(fmt.Sprint("p", i), fmt.Sprint("s", i%7)))
	}
	for range n {
		recv(t, f.asked, "a question")
	}
	if got := b.Pending(); got != n {
		t.Fatalf("Pending() = %d, want %d", got, n)
	}

	// Other questions keep flowing while 100 wait.
	f.script("quick", script{how: answerNow, answer: AllowOnce})
	if out := b.Decide(context.Background(), q("quick", "s1")); !out.Allowed || out.DecidedBy != rule.ByPerson {
		t.Fatalf("Decide(quick) = %+v while others pend", out)
	}

	closed := make(chan struct{})
	go func() { b.Close(); close(closed) }()
	for i, ch := range outs {
		out := recv(t, ch, fmt.Sprint("outcome ", i))
		if out.Allowed || out.DecidedBy != rule.ByShutdown || out.Rule != rule.ApprovalCancelled {
			t.Errorf("outcome %d = %+v, want a shutdown refusal", i, out)
		}
	}
	recv(t, closed, "Close to return")
	if got := b.Pending(); got != 0 {
		t.Errorf("Pending() = %d after Close, want 0", got)
	}
	for range n {
		recv(t, f.ended, "every asker's context to end")
	}

	// Later questions are refused without asking.
	calls := f.calls.Load()
	out := b.Decide(context.Background(), q("after", "s1"))
	if out.Allowed || out.DecidedBy != rule.ByShutdown {
		t.Errorf("Decide after Close = %+v, want a shutdown refusal", out)
	}
	if f.calls.Load() != calls {
		t.Errorf("the asker was called after Close")
	}
	b.Close() // a second Close is harmless

	waitGoroutines(t, before)
}

// waitGoroutines polls until no more goroutines run than before, or fails
// after patience with a dump of the stacks.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond) // a poll interval, not a wait for an event
	}
}

func TestNoGoroutinesLeftAfterClose(t *testing.T) {
	before := runtime.NumGoroutine()
	f := newFake()
	release := make(chan struct{})
	f.script("slow", script{how: stubborn, answer: AllowOnce, release: release})
	f.script("late", script{how: late, answer: AllowOnce})
	b := New(f, Options{})
	d1 := decideAsync(b, context.Background(), q("never", "s1"))
	qs := q("slow", "s2")
	qs.Timeout = short
	d2 := decideAsync(b, context.Background(), qs)
	ql := q("late", "s3")
	ql.Timeout = short
	d3 := decideAsync(b, context.Background(), ql)
	for range 3 {
		recv(t, f.asked, "a question")
	}
	recv(t, d2, "the stubborn question's timeout")
	recv(t, d3, "the late question's timeout")
	close(release)
	b.Close()
	recv(t, d1, "the pending question's outcome")
	waitGoroutines(t, before)
}

func TestSlowAskerDoesNotHoldTheCaller(t *testing.T) {
	f := newFake()
	release := make(chan struct{})
	f.script("slow", script{how: stubborn, answer: AllowOnce, release: release})
	log, sb := testLogger(t)
	b := New(f, Options{Logger: log})
	qq := q("slow", "s1")
	qq.Timeout = short
	out := b.Decide(context.Background(), qq)
	if out.Allowed || out.DecidedBy != rule.ByTimeout {
		t.Errorf("Decide = %+v, want a timeout refusal while the asker still holds on", out)
	}
	if b.Pending() != 0 {
		t.Errorf("Pending() = %d, want 0", b.Pending())
	}
	close(release)
	b.Close()
	if !strings.Contains(sb.String(), "late approval answer ignored") {
		t.Errorf("late answer not logged:\n%s", sb.String())
	}
}

func TestSessionGrant(t *testing.T) {
	f := newFake()
	f.script("a1", script{how: answerNow, answer: AllowSession})
	f.script("b1", script{how: answerNow, answer: Deny})
	b := New(f, Options{})
	defer b.Close()

	if out := b.Decide(context.Background(), q("a1", "A")); !out.Allowed || out.Answer != AllowSession {
		t.Fatalf("first Decide = %+v, want allow-session", out)
	}
	calls := f.calls.Load()
	out := b.Decide(context.Background(), q("a2", "A"))
	if !out.Allowed || out.DecidedBy != rule.ByGrant || out.Rule != rule.HumanApproved || out.Answer != AllowSession || out.Waited != 0 {
		t.Errorf("second Decide in the same session = %+v, want allowed by the grant", out)
	}
	if f.calls.Load() != calls {
		t.Errorf("the person was asked again for a granted call")
	}

	// Another session is asked, and its deny stands.
	out = b.Decide(context.Background(), q("b1", "B"))
	if out.Allowed || out.DecidedBy != rule.ByPerson {
		t.Errorf("Decide in another session = %+v, want the person's deny", out)
	}
	if f.calls.Load() != calls+1 {
		t.Errorf("the other session was not asked")
	}

	// A different grant in the same session is asked.
	f.script("a3", script{how: answerNow, answer: AllowSession})
	q3 := q("a3", "A")
	q3.Grant = "bash:git fetch"
	if out := b.Decide(context.Background(), q3); out.DecidedBy != rule.ByPerson {
		t.Errorf("Decide for another grant = %+v, want asked", out)
	}
	// A question that offers no grant is asked even when grants exist.
	f.script("a4", script{how: answerNow, answer: AllowOnce})
	q4 := q("a4", "A")
	q4.Grant = ""
	if out := b.Decide(context.Background(), q4); out.DecidedBy != rule.ByPerson {
		t.Errorf("Decide without a grant key = %+v, want asked", out)
	}

	if got, want := b.Grants("A"), []string{"bash:git fetch", "bash:git push"}; !slices.Equal(got, want) {
		t.Errorf("Grants(A) = %q, want %q", got, want)
	}
	if got := b.Grants("B"); len(got) != 0 {
		t.Errorf("Grants(B) = %q, want none", got)
	}
	all := b.AllGrants()
	if len(all) != 1 || !slices.Equal(all["A"], []string{"bash:git fetch", "bash:git push"}) {
		t.Errorf("AllGrants() = %q", all)
	}
	all["A"][0] = "tampered"
	if b.Grants("A")[0] == "tampered" {
		t.Errorf("AllGrants shares memory with the broker")
	}
}

func TestRevoke(t *testing.T) {
	f := newFake()
	b := New(f, Options{})
	defer b.Close()
	for i, g := range []string{"g1", "g2", "g3"} {
		id := fmt.Sprint("r", i)
		f.script(id, script{how: answerNow, answer: AllowSession})
		qq := q(id, "A")
		qq.Grant = g
		b.Decide(context.Background(), qq)
	}
	f.script("other", script{how: answerNow, answer: AllowSession})
	qo := q("other", "B")
	qo.Grant = "g1"
	b.Decide(context.Background(), qo)

	if n := b.Revoke("A", "g2"); n != 1 {
		t.Errorf("Revoke(A, g2) = %d, want 1", n)
	}
	if n := b.Revoke("A", "g2"); n != 0 {
		t.Errorf("Revoke(A, g2) again = %d, want 0", n)
	}
	if n := b.Revoke("nobody", ""); n != 0 {
		t.Errorf("Revoke(nobody) = %d, want 0", n)
	}
	if got := b.Grants("A"); !slices.Equal(got, []string{"g1", "g3"}) {
		t.Errorf("Grants(A) = %q after revoking g2", got)
	}

	// A revoked grant is asked again.
	calls := f.calls.Load()
	qq := q("again", "A")
	qq.Grant = "g2"
	f.script("again", script{how: answerNow, answer: Deny})
	if out := b.Decide(context.Background(), qq); out.DecidedBy != rule.ByPerson || out.Allowed {
		t.Errorf("Decide after Revoke = %+v, want the person asked", out)
	}
	if f.calls.Load() != calls+1 {
		t.Errorf("not asked after Revoke")
	}

	if n := b.Revoke("A", ""); n != 2 {
		t.Errorf("Revoke(A, \"\") = %d, want 2", n)
	}
	if got := b.AllGrants(); len(got) != 1 || !slices.Equal(got["B"], []string{"g1"}) {
		t.Errorf("AllGrants() = %q, want only B's grant", got)
	}
}

func TestCloseSession(t *testing.T) {
	f := newFake()
	b := New(f, Options{})
	defer b.Close()
	f.script("g", script{how: answerNow, answer: AllowSession})
	b.Decide(context.Background(), q("g", "A"))
	f.script("gb", script{how: answerNow, answer: AllowSession})
	b.Decide(context.Background(), q("gb", "B"))
	recv(t, f.asked, "g")
	recv(t, f.asked, "gb")

	a1 := decideAsync(b, context.Background(), func() Question { x := q("a1", "A"); x.Grant = "other"; return x }())
	a2 := decideAsync(b, context.Background(), func() Question { x := q("a2", "A"); x.Grant = ""; return x }())
	releaseB := make(chan struct{})
	f.script("b1", script{how: onRelease, answer: AllowOnce, release: releaseB})
	b1 := decideAsync(b, context.Background(), func() Question { x := q("b1", "B"); x.Grant = "other"; return x }())
	for range 3 {
		recv(t, f.asked, "a question")
	}

	b.CloseSession("A")
	for _, ch := range []<-chan Resolution{a1, a2} {
		out := recv(t, ch, "session A's outcome")
		if out.Allowed || out.DecidedBy != rule.BySessionClosed || out.Rule != rule.ApprovalCancelled {
			t.Errorf("outcome = %+v, want a session-closed refusal", out)
		}
	}
	if got := b.Grants("A"); len(got) != 0 {
		t.Errorf("Grants(A) = %q after CloseSession", got)
	}
	if got := b.Grants("B"); len(got) != 1 {
		t.Errorf("Grants(B) = %q, want B's grant kept", got)
	}
	if got := b.Pending(); got != 1 {
		t.Errorf("Pending() = %d, want session B's question still waiting", got)
	}
	close(releaseB)
	if out := recv(t, b1, "session B's outcome"); !out.Allowed || out.DecidedBy != rule.ByPerson {
		t.Errorf("session B's outcome = %+v, want the person's allow", out)
	}
}

func TestOnChange(t *testing.T) {
	type snap struct{ pending, grants int }
	var b *Broker
	changes := make(chan snap, 100)
	f := newFake()
	b = New(f, Options{OnChange: func() {
		changes <- snap{b.Pending(), len(b.Grants("A"))}
	}})
	defer b.Close()

	release := make(chan struct{})
	f.script("x", script{how: onRelease, answer: AllowSession, release: release})
	done := decideAsync(b, context.Background(), q("x", "A"))
	if s := recv(t, changes, "a change when the question is asked"); s.pending != 1 {
		t.Errorf("on ask: %+v, want 1 pending", s)
	}
	close(release)
	recv(t, done, "the outcome")
	if s := recv(t, changes, "a change when it is answered"); s != (snap{0, 1}) {
		t.Errorf("on answer: %+v, want 0 pending and 1 grant", s)
	}

	// A grant answers without a change.
	b.Decide(context.Background(), q("y", "A"))
	b.Revoke("A", "nothing")
	select {
	case s := <-changes:
		t.Errorf("unexpected change %+v for a grant answer or an empty revoke", s)
	default:
	}

	b.Revoke("A", "")
	if s := recv(t, changes, "a change on revoke"); s != (snap{0, 0}) {
		t.Errorf("on revoke: %+v", s)
	}

	// CloseSession reports the dropped grants and the refused question.
	f.script("z", script{how: answerNow, answer: AllowSession})
	b.Decide(context.Background(), q("z", "A"))
	recv(t, changes, "ask")
	recv(t, changes, "answer")
	done = decideAsync(b, context.Background(), func() Question { x := q("w", "A"); x.Grant = "w"; return x }())
	recv(t, changes, "ask")
	b.CloseSession("A")
	recv(t, done, "the refused outcome")
	recv(t, changes, "a change for the dropped grants")
	recv(t, changes, "a change for the refused question")
	if b.Pending() != 0 || len(b.Grants("A")) != 0 {
		t.Errorf("after CloseSession: pending %d, grants %q", b.Pending(), b.Grants("A"))
	}
}

func TestHeadless(t *testing.T) {
	b := New(nil, Options{})
	defer b.Close()
	out := b.Decide(context.Background(), q("h", "s1"))
	if out.Allowed || out.DecidedBy != rule.ByHeadless || out.Rule != rule.NoApprover || out.Answer != Deny {
		t.Errorf("Decide = %+v, want a headless refusal", out)
	}
	if !strings.Contains(out.Reason, "no one to ask") {
		t.Errorf("Reason %q does not say no one can be asked", out.Reason)
	}
	if b.Pending() != 0 {
		t.Errorf("Pending() = %d", b.Pending())
	}
}

func TestQuestionsAreIndependent(t *testing.T) {
	f := newFake()
	b := New(f, Options{})
	defer b.Close()
	r1, r2 := make(chan struct{}), make(chan struct{})
	f.script("one", script{how: onRelease, answer: Deny, release: r1})
	f.script("two", script{how: onRelease, answer: AllowOnce, release: r2})
	d1 := decideAsync(b, context.Background(), q("one", "s1"))
	d2 := decideAsync(b, context.Background(), q("two", "s1"))
	recv(t, f.asked, "a question")
	recv(t, f.asked, "a question")
	close(r2) // the second is answered first
	if out := recv(t, d2, "the second outcome"); !out.Allowed {
		t.Errorf("second = %+v, want allowed", out)
	}
	if b.Pending() != 1 {
		t.Errorf("Pending() = %d, want the first still waiting", b.Pending())
	}
	close(r1)
	if out := recv(t, d1, "the first outcome"); out.Allowed || out.Rule != rule.HumanDenied {
		t.Errorf("first = %+v, want denied", out)
	}
}

func TestClock(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ticks atomic.Int64
	now := func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Second) }
	f := newFake()
	f.script("t", script{how: answerNow, answer: AllowOnce})
	b := New(f, Options{Now: now})
	defer b.Close()
	out := b.Decide(context.Background(), q("t", "s1"))
	if !out.AskedAt.Equal(base.Add(time.Second)) || out.Waited != time.Second {
		t.Errorf("AskedAt %v, Waited %v; want %v and 1s", out.AskedAt, out.Waited, base.Add(time.Second))
	}
}

func TestAskerSeesTheQuestionWithItsDeadline(t *testing.T) {
	f := newFake()
	f.script("d", script{how: answerNow, answer: AllowOnce})
	b := New(f, Options{Timeout: 7 * time.Second})
	defer b.Close()
	qq := q("d", "s1")
	qq.Timeout = 0
	b.Decide(context.Background(), qq)
	got := recv(t, f.asked, "the question")
	want := qq
	want.Timeout = 7 * time.Second
	if !reflect.DeepEqual(got, want) {
		t.Errorf("asked %+v, want %+v", got, want)
	}
	if d := New(nil, Options{}).timeout; d != DefaultTimeout {
		t.Errorf("default timeout %v, want %v", d, DefaultTimeout)
	}
}

func TestDisconnectMidQuestion(t *testing.T) {
	f := newFake()
	b := New(f, Options{})
	defer b.Close()
	lost := make(chan struct{})
	f.script("m1", script{how: failOnRelease, release: lost})
	f.script("m2", script{how: failOnRelease, release: lost})
	d1 := decideAsync(b, context.Background(), q("m1", "A"))
	d2 := decideAsync(b, context.Background(), q("m2", "B"))
	recv(t, f.asked, "a question")
	recv(t, f.asked, "a question")
	close(lost) // the editor goes away with both prompts up
	for _, ch := range []<-chan Resolution{d1, d2} {
		out := recv(t, ch, "an outcome")
		if out.Allowed || out.DecidedBy != rule.ByDisconnected || out.Rule != rule.NoApprover {
			t.Errorf("outcome = %+v, want a disconnected refusal", out)
		}
	}
	if b.Pending() != 0 {
		t.Errorf("Pending() = %d", b.Pending())
	}
}

// TestAllowAlways: "always allow" counts only when the question offered a
// rule; otherwise it is an allow-once.
func TestAllowAlways(t *testing.T) {
	f := newFake()
	f.script("r", script{how: answerNow, answer: AllowAlways})
	f.script("n", script{how: answerNow, answer: AllowAlways})
	b := New(f, Options{})
	defer b.Close()
	withRule := q("r", "s1")
	withRule.Rule = "npm test *"
	if o := b.Decide(context.Background(), withRule); !o.Allowed || o.Answer != AllowAlways || !strings.Contains(o.Reason, "npm test *") {
		t.Errorf("with a rule: %+v", o)
	}
	if o := b.Decide(context.Background(), q("n", "s1")); !o.Allowed || o.Answer != AllowOnce {
		t.Errorf("without a rule: %+v", o)
	}
	if _, err := ParseAnswer("allow-always"); err != nil {
		t.Error(err)
	}
}
