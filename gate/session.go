package gate

import (
	"fmt"
	"sync"
	"time"

	"admit/policy"
	"admit/workspace"
)

// defaultSession is the id of the session used by callers that name none.
const defaultSession = "default"

// session is one agent task: its capability set, observations, counters
// and bounds.
type session struct {
	id, label string
	caps      *policy.Caps // nil: the default session, whose caps follow the policy file and the roots
	effects   string       // "" follows the gate's effect mode
	budgeted  bool         // the editor's default session has no step budget
	// longLived: the session lasts as long as its client (an MCP
	// gateway's), not one task: no step total and no wall time, but the
	// rate (maxStepsPerMinute) and the retry bound hold.
	longLived bool
	bounds    policy.Bounds
	cwd       string // "" follows the first root
	obs       *workspace.Observations
	started   time.Time
	terms     terminals // the folders of its terminals (terminal.go)

	// policyCaps is caps with what the workspace policy file tightens
	// (its needsHuman and mutators), for the file version policyHash.
	policyCaps *policy.Caps
	policyHash string

	// mu guards the counters below.
	mu         sync.Mutex
	steps      int64
	recent     []time.Time      // the steps of the last minute, oldest first, for the rate bound
	refusals   map[string]int64 // identical refused calls, by call key
	unexpected string           // an unexpected effect a person has not acknowledged yet
	flux       []fluxHold       // paths background commands may still change (flux.go)
}

func newSession(id, label string, now time.Time) *session {
	return &session{id: id, label: label, obs: workspace.NewObservations(0), started: now, refusals: map[string]int64{}}
}

// spend counts one step and says why the session's bounds are spent, or "".
// The editor's default session has no step or time budget, but its
// retries are bounded like any session's.
func (s *session) spend(p CheckParams, now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.budgeted && !s.longLived {
		s.steps++
		if s.steps > s.bounds.MaxSteps {
			return fmt.Sprintf("session %q has used its %d steps (maxSteps)", policy.Identifier(s.label), s.bounds.MaxSteps)
		}
		if el := now.Sub(s.started); el > time.Duration(s.bounds.TimeoutMs)*time.Millisecond {
			return fmt.Sprintf("session %q has run for %s, over its %d ms (timeoutMs)", policy.Identifier(s.label), el.Round(time.Millisecond), s.bounds.TimeoutMs)
		}
	}
	if s.budgeted {
		if why := s.rate(now); why != "" {
			return why
		}
	}
	if len(s.refusals) == 0 {
		return "" // the common case: no call to compare, so no key to build
	}
	if n := s.refusals[callKey(p)]; n > s.bounds.MaxRetries {
		return fmt.Sprintf("the same refused call was retried %d times, over maxRetries %d; retrying it again will not change the answer", n, s.bounds.MaxRetries)
	}
	return ""
}

// rate counts a step against maxStepsPerMinute over the last minute, a
// sliding window; a step over the rate is refused and not counted, so a
// client that pauses gets its calls back. s.mu is held.
func (s *session) rate(now time.Time) string {
	limit := s.bounds.MaxStepsPerMinute
	if limit <= 0 {
		return ""
	}
	cut := 0
	for cut < len(s.recent) && now.Sub(s.recent[cut]) >= time.Minute {
		cut++
	}
	s.recent = s.recent[cut:]
	if int64(len(s.recent)) >= limit {
		wait := time.Minute - now.Sub(s.recent[0])
		return fmt.Sprintf("session %q made %d calls in the last minute (maxStepsPerMinute %d); the next one is admitted in %s", policy.Identifier(s.label), len(s.recent), limit, wait.Round(time.Second))
	}
	s.recent = append(s.recent, now)
	return ""
}

// refused remembers a refused call so identical retries are counted.
func (s *session) refused(p CheckParams) {
	key := callKey(p)
	s.mu.Lock()
	s.refusals[key]++
	s.mu.Unlock()
}

// forgetRefusals clears the retry counts. The bound stops blind retries:
// once the session does something else (an allowed call, an observation)
// or the person changes the mode, the same call may rightly be tried again.
func (s *session) forgetRefusals() {
	s.mu.Lock()
	clear(s.refusals)
	s.mu.Unlock()
}

// taint records an unexpected effect: in enforce mode the session's next
// mutating call needs a person's acknowledgement.
func (s *session) taint(why string) {
	s.mu.Lock()
	s.unexpected = why
	s.mu.Unlock()
}

// tainted returns the unexpected effect awaiting acknowledgement, if any.
func (s *session) tainted() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unexpected
}

// acknowledge clears the unexpected effect once a person has seen it.
func (s *session) acknowledge() {
	s.mu.Lock()
	s.unexpected = ""
	s.mu.Unlock()
}

// sessionCaps is the session's capability set under the workspace policy
// file lp: what the file tightens holds in every session, not only the
// editor's default one. A tool the file says always needs a person, or is
// a mutator, is so in a session that names it too.
func (s *session) sessionCaps(lp *loadedPolicy) *policy.Caps {
	f := lp.file
	if f == nil || len(f.NeedsHuman) == 0 && len(f.Mutators) == 0 {
		return s.caps
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.policyCaps != nil && s.policyHash == lp.hash {
		return s.policyCaps
	}
	c := *s.caps
	c.NeedsHuman = withBuiltins(c.NeedsHuman, f.NeedsHuman)
	c.Mutators = withBuiltins(c.Mutators, f.Mutators)
	s.policyCaps, s.policyHash = c.Index(), lp.hash
	return s.policyCaps
}
