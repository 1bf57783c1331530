package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"admit/policy"
)

// OpenSessionParams opens a session with its own capability set.
type OpenSessionParams struct {
	policy.CapsSpec
	Effects string           `json:"effects,omitempty"`
	Cwd     string           `json:"cwd,omitempty"`
	Bounds  map[string]int64 `json:"bounds,omitempty"`
	// LongLived opens a session that lasts as long as its client (an MCP
	// gateway, an MCP server of admit's own) rather than one task: no
	// step total (maxSteps) and no wall time (timeoutMs), while the rate
	// (maxStepsPerMinute) and the retry bound (maxRetries) hold. The
	// editor's default session, which any peer may use, has no step
	// budget at all, so this widens nothing.
	LongLived bool `json:"longLived,omitempty"`
}

// OpenSession builds a session's capability set. Its write roots must lie
// inside the workspace roots; none given means the workspace roots.
func (g *Gate) OpenSession(_ context.Context, p OpenSessionParams) (string, error) {
	if p.Label == "" {
		return "", &ParamError{"label", "a session needs a label, so its refusals are legible"}
	}
	if p.Effects != "" {
		if err := policy.CheckEffects("effects", p.Effects); err != nil {
			return "", &ParamError{"effects", err.Error()}
		}
	}
	base := g.cfg.Bounds
	if lp := g.loadPolicy(g.cfg.Roots.List()); lp.file != nil {
		// The policy file's bounds, as they take effect under its trust.
		if b, err := base.Override(lp.file.Bounds); err == nil {
			base = b
		}
	}
	bounds, err := base.Override(p.Bounds)
	if err != nil {
		return "", &ParamError{"bounds", err.Error()}
	}
	roots := g.cfg.Roots.List()
	spec := p.CapsSpec
	if len(spec.WriteRoots) == 0 {
		spec.WriteRoots = roots
	}
	caps, err := policy.NewCaps(spec, func(dir string) (string, error) {
		r, err := g.cfg.Resolver.Resolve(dir)
		if err != nil {
			return "", err
		}
		if !g.cfg.Roots.Contains(r.Path) {
			return "", fmt.Errorf("resolves to %q, outside the workspace roots %v", r.Path, roots)
		}
		return r.Path, nil
	})
	if err != nil {
		return "", &ParamError{"", err.Error()} // NewCaps names the field
	}
	// A session names its tools, but never takes a default away: what the
	// built-in policy counts as a mutator, or as needing a person, stays so.
	def := policy.DefaultFile()
	caps.Allow = withBuiltins(caps.Allow, builtinTools)
	caps.Mutators = withBuiltins(withBuiltins(caps.Mutators, builtinMutators), def.Mutators)
	caps.NeedsHuman = withBuiltins(caps.NeedsHuman, def.NeedsHuman)
	caps.Index()
	g.mu.Lock()
	g.sessionSeq++
	id := "s" + strconv.FormatInt(g.sessionSeq, 10) + "-" + g.idPrefix
	g.mu.Unlock()
	s := newSession(id, p.Label, g.cfg.Now())
	s.caps, s.effects, s.bounds, s.budgeted, s.longLived = caps, p.Effects, bounds, true, p.LongLived
	if p.Cwd != "" {
		cwd, err := g.cwd(s, filepath.Clean(p.Cwd), roots)
		if err != nil {
			return "", &ParamError{"cwd", err.Error()}
		}
		s.cwd = cwd
	}
	g.mu.Lock()
	g.sessions[id] = s
	g.mu.Unlock()
	g.stateChanged()
	return id, nil
}

// CloseSession ends a session: its observations, grants and pending
// questions go with it.
func (g *Gate) CloseSession(_ context.Context, id string) error {
	if id == "" || id == defaultSession {
		return &ParamError{"session", fmt.Sprintf("%q cannot be closed", id)}
	}
	g.mu.Lock()
	_, ok := g.sessions[id]
	delete(g.sessions, id)
	g.mu.Unlock()
	if !ok {
		return &ParamError{"session", fmt.Sprintf("unknown session %q", id)}
	}
	if b := g.cfg.Approvals; b != nil {
		b.CloseSession(id)
	}
	g.stateChanged()
	return nil
}

// ObserveParams records what an agent has seen outside the gate's own tools.
type ObserveParams struct {
	Session string   `json:"session,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	Dirs    []string `json:"dirs,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
}

// Observe records files read and folders listed; paths outside the roots
// are refused, since nothing there can be changed anyway.
func (g *Gate) Observe(p ObserveParams) (int, error) {
	s, err := g.session(p.Session)
	if err != nil {
		return 0, err
	}
	roots := g.cfg.Roots.List()
	cwd, err := g.cwd(s, p.Cwd, roots)
	if err != nil {
		return 0, &ParamError{"cwd", err.Error()}
	}
	n := 0
	for i, list := range [][]string{p.Paths, p.Dirs} {
		field := [...]string{"paths", "dirs"}[i]
		for j, raw := range list {
			abs := raw
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(cwd, abs)
			}
			r, err := g.cfg.Resolver.Resolve(filepath.Clean(abs))
			if err != nil || !g.cfg.Roots.Contains(r.Path) {
				return n, &ParamError{fmt.Sprintf("%s[%d]", field, j), fmt.Sprintf("%q is outside the workspace roots", raw)}
			}
			if i == 0 {
				s.obs.RecordFile(r.Path)
			} else {
				s.obs.RecordDir(r.Path)
			}
			n++
		}
	}
	s.forgetRefusals()
	return n, nil
}

// Revoke removes a session's grants from approvals ("" revokes all).
func (g *Gate) Revoke(sessionID, grant string) (int, error) {
	if _, err := g.session(sessionID); err != nil {
		return 0, err
	}
	if sessionID == "" {
		sessionID = defaultSession
	}
	n := 0
	if b := g.cfg.Approvals; b != nil {
		n = b.Revoke(sessionID, grant)
	}
	g.stateChanged()
	return n, nil
}
