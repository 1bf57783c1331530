package gate

import (
	"slices"
	"time"

	"admit/policy"
)

// Calls that overlap. A command the host runs in the background (its
// call carries background, or the tool's own flag such as Claude Code's
// run_in_background; or the line detaches one with setsid or nohup)
// goes on after its call returns. The policy says which paths it may
// write (policy.Decision.BackgroundWrites); the session holds them as in
// flux until the command's timeout (CheckParams.TimeoutMs, else
// DefaultBackgroundTimeout) or until the host reports that it ended
// (Gate.Ended), and every later call of the session that depends on one
// of them is refused (path-in-flux), never judged against a state the
// background command can still change.

// DefaultBackgroundTimeout is how long a background command's paths are
// held in flux when its call gives no timeout. Hosts let background
// commands run until they end or the session does (Claude Code's run for
// as long as they run); half an hour covers a long build or test run,
// and the host can end the hold sooner (Gate.Ended).
const DefaultBackgroundTimeout = 30 * time.Minute

// maxBackgroundTimeout bounds the hold a call can ask for.
const maxBackgroundTimeout = 24 * time.Hour

// fluxHold is the paths one background command may still change.
type fluxHold struct {
	id    string // the verdict that admitted it
	paths []string
	until time.Time
}

// inFlux returns the paths the session's background commands may still
// change at now, dropping the holds that have ended; the hold except
// (the call's own, when it is the run of a background call) is left out.
func (s *session) inFlux(now time.Time, except string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flux = slices.DeleteFunc(s.flux, func(h fluxHold) bool { return !now.Before(h.until) })
	var out []string
	for _, h := range s.flux {
		if h.id != except {
			out = append(out, h.paths...)
		}
	}
	return out
}

// holdFlux holds paths in flux for the background command admitted by
// the verdict id, until until.
func (s *session) holdFlux(id string, paths []string, until time.Time) {
	s.mu.Lock()
	s.flux = append(s.flux, fluxHold{id: id, paths: slices.Clone(paths), until: until})
	s.mu.Unlock()
}

// endFlux ends the hold of the verdict id; it reports whether there was one.
func (s *session) endFlux(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.flux)
	s.flux = slices.DeleteFunc(s.flux, func(h fluxHold) bool { return h.id == id })
	return len(s.flux) != n
}

// backgroundHeld is what an allowed background call holds in flux: the
// writes its line names, and the whole workspace while code admit runs
// confined goes on (admit run, or a rewritten call): that code reaches
// nothing outside, but a symlink it leaves can lead a later read out.
// Code the host runs unconfined, which a person let run, holds only what
// it names: it already has every power such a link would give.
func backgroundHeld(p CheckParams, d policy.Decision, env *policy.Env, rewritten bool) []string {
	if !d.Background {
		return nil
	}
	if len(d.RunsCode) > 0 && env != nil && (rewritten || p.Tool == runTool) {
		return env.Roots
	}
	return d.BackgroundWrites
}

// backgroundHold is how long a background call's paths stay in flux.
func backgroundHold(timeoutMs int64) time.Duration {
	if timeoutMs <= 0 {
		return DefaultBackgroundTimeout
	}
	if d := time.Duration(timeoutMs) * time.Millisecond; d < maxBackgroundTimeout {
		return d
	}
	return maxBackgroundTimeout
}

// Ended tells the gate that the background command a verdict admitted
// has ended (the host saw it exit): its paths are no longer in flux.
// An unknown session is a ParamError; an id with no hold is not an error
// (the hold may have run out already).
func (g *Gate) Ended(session, id string) error {
	s, err := g.session(session)
	if err != nil {
		return err
	}
	if id == "" {
		return &ParamError{"id", "name the verdict id of the background call that ended"}
	}
	s.endFlux(id)
	return nil
}
