package gate

import (
	"encoding/json"
	"sync"

	"admit/policy"
	"admit/policy/facts"
	"admit/policy/rule"
)

// factTrace records what one decision rests on, for the tape's facts
// (policy/facts) and admit tape replay. It is only made when the decision
// is taped: admit check without a tape pays nothing for it.
type factTrace struct {
	rec  facts.Recorder
	base facts.Facts
	buf  *[]byte // the encoded facts' buffer, from Gate.factsBufs
}

// traceFacts is a trace, from the gate's pool, that points env's FS and
// observations through a recorder, with the settings the decision is
// taken under noted; nil when nothing is taped or exported.
func (g *Gate) traceFacts(env *policy.Env, s *session, p CheckParams) *factTrace {
	if env == nil || g.cfg.Tape == nil && g.cfg.Exporter == nil || p.DryRun {
		return nil
	}
	t, _ := g.traces.Get().(*factTrace)
	if t == nil {
		t = new(factTrace)
	}
	t.rec.Init(env.FS, env.Obs)
	env.FS = t.rec.FS()
	if o := t.rec.Obs(); o != nil {
		env.Obs = o
	}
	t.base = facts.Facts{
		Roots: env.Roots, Effects: string(env.Effects), Profile: string(env.Profile), Home: env.Home,
		MaxRequestChars: env.MaxRequestChars, ConfinedOK: g.allowConfinedCode.Load(), Tainted: s.tainted(), OneCall: g.cfg.OneCall,
	}
	if s.caps != nil {
		t.base.Session, _ = json.Marshal(s.caps)
	}
	return t
}

// call notes what the call carried once the gate made it ready.
func (t *factTrace) call(c policy.Call, env *policy.Env, tracked, pinned bool) {
	if t == nil {
		return
	}
	t.base.Pinned = pinned
	t.base.Cwd, t.base.Path, t.base.PathKnown, t.base.SecretValues = c.Cwd, c.Path, c.Path != nil, c.SecretValues
	t.base.Argv, t.base.Line = c.Argv, c.Command != ""
	t.base.Background, t.base.Terminal, t.base.AdmitRuns, t.base.Tracked = c.Background, c.Terminal, c.AdmitRuns, tracked
	t.base.Budget, t.base.InFlux = env.Budget, env.InFlux
}

// result notes the answer after the gate's own turns that replay takes
// again (the one-call terminal, the file tool's binding, confined runs,
// a tainted session).
func (t *factTrace) result(d policy.Decision) {
	if t != nil {
		// The answer replay compares with, kept in base's Rule and Outcome.
		t.base.Rule, t.base.Outcome = string(d.Rule), string(d.Outcome())
	}
}

// amended notes a file tool's refusal of what the policy admitted.
func (t *factTrace) amended(before, after policy.Decision) {
	if t == nil || before.Rule == after.Rule && before.Allowed == after.Allowed && before.Ask == after.Ask {
		return
	}
	t.base.AmendRule, t.base.AmendWhy = string(after.Rule), after.Reason
}

// encode is the facts of decision d, as the tape keeps them: compact
// JSON (tape.Record.FactsCompact), in a buffer of bufs that done gives
// back. A call refused before the policy judged it keeps only where
// (facts.Before).
func (t *factTrace) encode(bufs *sync.Pool, judged bool) json.RawMessage {
	if t == nil {
		return nil
	}
	t.buf, _ = bufs.Get().(*[]byte)
	if t.buf == nil {
		t.buf = new([]byte)
	}
	buf := (*t.buf)[:0]
	var b []byte
	var err error
	if judged {
		b, err = t.rec.AppendJSON(buf, &t.base)
	} else {
		f := facts.Facts{V: facts.Version, Before: "cwd", Rule: t.base.Rule, Outcome: t.base.Outcome}
		if t.base.Rule == string(rule.PolicyInvalid) {
			f.Before = "policy"
		}
		b, err = f.AppendJSON(buf)
	}
	*t.buf = b[:0]
	if err != nil {
		return nil
	}
	return b
}

// endTrace gives t and its facts' buffer back to the gate's pools once the
// tape has copied the line (tape.Tape.Append encodes it before it
// returns; the export drops the facts): nothing reads a decision's trace
// after that. A trace is the largest part of a decision (some 900 bytes):
// kept, it is no garbage for the collector.
func (g *Gate) endTrace(t *factTrace) {
	if t == nil {
		return
	}
	if t.buf != nil && cap(*t.buf) <= maxPooledFacts {
		g.factsBufs.Put(t.buf)
	}
	t.rec.Init(nil, nil) // drops what it answered, keeping the room
	t.base, t.buf = facts.Facts{}, nil
	g.traces.Put(t)
}

// maxPooledFacts bounds a buffer kept for the next decision: a long
// line's facts are not kept waiting.
const maxPooledFacts = 8 << 10
