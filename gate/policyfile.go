package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"admit/policy"
	"admit/policy/command"
	"admit/policy/rules"
	"admit/workspace"
)

// loadedPolicy is the workspace policy file as last read, keyed by its
// identity so a change is noticed at decision time without the watcher.
type loadedPolicy struct {
	path  string
	stamp workspace.Stamp
	file  *policy.File // as it takes effect: policy.File.Effective
	sum   string       // policy.Sum of path and content; "" for the built-in
	trust policy.Trust
	// widens is what the file would widen beyond the built-in policy.
	widens []string
	// rules are the repository's rules (ask and deny only), or nil.
	rules *rules.Set
	table *command.Policy // the file's programs merged over the built-in table, or nil
	// baseline is the built-in command policy a command must also pass
	// while an untrusted file redefines programs (policy.Env.Baseline).
	baseline *command.Policy
	hash     string // the tape's policy field: a short hash of the content
	err      error
	// shellTools are the tools whose calls carry a command line: the
	// built-in list, the file's, and admit.run.
	shellTools []string
}

// The gate's own tools: admit/read, admit/edit, admit/write and admit/run
// go through the door under these names, in every session.
const (
	readTool  = "admit.read"
	editTool  = "admit.edit"
	writeTool = "admit.write"
	runTool   = "admit.run"
)

var (
	builtinTools    = []string{readTool, editTool, writeTool, runTool}
	builtinMutators = []string{editTool, writeTool}
)

func withBuiltins(list, add []string) []string {
	out := slices.Clone(list)
	for _, a := range add {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// loadPolicy reads .admit/policy.json from the first root that has one, or
// the policy given in the configuration, or the built-in. The file is
// stat'ed on every decision, unless the server's watcher vouches that no
// event came since the last stat, and re-read when it changed, so a
// decision never rests on a stale policy, nor on a trust given to other
// content.
func (g *Gate) loadPolicy(roots []string) *loadedPolicy {
	if g.cfg.Policy != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.file == nil {
			// The editor's own settings: the person's, so trusted.
			g.file = g.compilePolicy("initializationOptions.policy", g.cfg.Policy, nil, policy.Trusted)
		}
		return g.file
	}
	at := g.policyPaths(roots)
	var tok workspace.Token
	vouched := false
	if w := g.watcher.Load(); w != nil {
		// The token is taken before the stat: a change after it moves
		// the token, one before it is in what the stat sees.
		tok, vouched = w.Vouch(at.paths)
		if seen := g.policySeen.Load(); vouched && seen != nil && seen.at == at && seen.tok == tok {
			g.mu.Lock()
			cur := g.file
			g.mu.Unlock()
			if cur == seen.lp {
				return cur
			}
		}
	}
	path, stamp := "", workspace.Stamp{}
	for _, p := range at.paths {
		if st, ok := workspace.StampOf(p); ok {
			path, stamp = p, st
			break
		}
	}
	g.mu.Lock()
	cur := g.file
	g.mu.Unlock()
	if cur != nil && (cur.file != nil && cur.path == path && cur.stamp == stamp || cur.err != nil && cur.path == path && cur.stamp == stamp && path != "") {
		g.notePolicySeen(vouched, at, tok, cur)
		return cur
	}
	var lp *loadedPolicy
	if path == "" {
		lp = g.compilePolicy("built-in", policy.DefaultFile(), nil, policy.BuiltIn)
	} else if data, err := os.ReadFile(path); err != nil {
		lp = &loadedPolicy{err: fmt.Errorf("%s: %w", path, err)}
	} else if f, err := policy.ParseFile(path, data); err != nil {
		lp = &loadedPolicy{err: err}
	} else {
		sum := policy.Sum(path, data)
		widens := f.Widens(policy.DefaultFile(), g.cfg.Bounds)
		trust := policy.Untrusted
		switch {
		case len(widens) == 0:
			trust = policy.Tightening
		case g.cfg.Trust.Trusted(sum):
			trust = policy.Trusted
		}
		lp = g.compilePolicy(path, f, data, trust)
		lp.sum, lp.widens = sum, widens
	}
	lp.path, lp.stamp = path, stamp
	g.mu.Lock()
	g.file = lp
	g.mu.Unlock()
	g.notePolicySeen(vouched, at, tok, lp)
	switch {
	case lp.err != nil:
		g.cfg.Logger.Error("policy file unusable; the gate stays closed", "err", lp.err)
	case lp.trust == policy.Untrusted:
		g.cfg.Logger.Warn("policy file not trusted: only what it tightens takes effect", "path", path, "widens", lp.widens)
	}
	g.stateChanged()
	return lp
}

// policyPaths are where each root keeps its policy file, made again only
// when the roots change (every decision looks).
func (g *Gate) policyPaths(roots []string) *rootPolicyPaths {
	if c := g.policyAt.Load(); c != nil && slices.Equal(c.roots, roots) {
		return c
	}
	c := &rootPolicyPaths{roots: slices.Clone(roots), paths: make([]string, len(roots))}
	for i, r := range roots {
		c.paths[i] = r + "/.admit/policy.json" // roots are clean and absolute
	}
	g.policyAt.Store(c)
	return c
}

// policySeen is what a stat of the policy files at found, with the
// watcher's token taken before it.
type policySeen struct {
	at  *rootPolicyPaths
	tok workspace.Token
	lp  *loadedPolicy
}

// notePolicySeen keeps what the stat found while the watcher vouched, so
// the next decisions skip the stat until an event moves the token.
func (g *Gate) notePolicySeen(vouched bool, at *rootPolicyPaths, tok workspace.Token, lp *loadedPolicy) {
	if vouched {
		g.policySeen.Store(&policySeen{at: at, tok: tok, lp: lp})
	} else if g.policySeen.Load() != nil {
		g.policySeen.Store(nil)
	}
}

// rootPolicyPaths are roots and their policy files' paths, never changed
// once made.
type rootPolicyPaths struct{ roots, paths []string }

// forgetPolicy drops the loaded policy file, so the next decision reads
// it again (its trust changed).
func (g *Gate) forgetPolicy() {
	g.mu.Lock()
	g.file = nil
	g.mu.Unlock()
}

// compilePolicy prepares a policy file as it takes effect under trust.
func (g *Gate) compilePolicy(where string, f *policy.File, data []byte, trust policy.Trust) *loadedPolicy {
	if data == nil {
		data, _ = json.Marshal(f)
	}
	sum := sha256.Sum256(data)
	eff := f.Effective(policy.DefaultFile(), g.cfg.Bounds, trust != policy.Untrusted)
	lp := &loadedPolicy{file: eff, trust: trust, hash: hex.EncodeToString(sum[:8]), shellTools: withBuiltins(eff.ShellTools, []string{runTool})}
	if f.Rules != nil {
		set, err := f.Rules.Set("repository", false)
		if err != nil {
			return &loadedPolicy{err: fmt.Errorf("%s: %w", where, err), hash: lp.hash}
		}
		lp.rules = set
	}
	if len(f.Programs) > 0 {
		t, err := command.ParseTable(f.Programs)
		if err != nil {
			return &loadedPolicy{err: fmt.Errorf("%s: programs: %w", where, err), hash: lp.hash}
		}
		lp.table = command.New(t)
		if trust == policy.Untrusted {
			lp.baseline = g.commands
		}
	}
	return lp
}

// defaultCaps is the default session's capability set: the policy file's
// grants, with the workspace roots as write roots. It is built once per
// policy version and set of roots.
func (g *Gate) defaultCaps(lp *loadedPolicy, roots []string) *policy.Caps {
	key := strings.Join(roots, "\x00")
	g.mu.Lock()
	defer g.mu.Unlock()
	if d := &g.defaults; d.lp == lp && d.roots == key {
		return d.caps
	}
	f := lp.file
	c := &policy.Caps{
		Label: f.Label, Allow: withBuiltins(f.Allow, builtinTools), NeedsHuman: f.NeedsHuman,
		Mutators: withBuiltins(f.Mutators, builtinMutators), WriteRoots: roots,
	}
	c.Index()
	g.defaults.lp, g.defaults.roots, g.defaults.caps = lp, key, c
	return c
}
