package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"admit/internal/strictjson"
	"admit/internal/sysfile"
	"admit/policy/rule"
	"admit/policy/rules"
	"admit/workspace"
)

// Rule scopes: where a person's rule is kept.
const (
	ScopeUser      = "user"      // every workspace
	ScopeWorkspace = "workspace" // this workspace only, kept outside it
)

// RuleStore keeps the person's rules in files of the person's, outside
// every workspace: one for all workspaces and one for this workspace (keyed
// by its first root). A tool call can never write them (policy/command's
// Protect names the folder). A rule the store writes (Add, Remove) is in
// force from the next decision; a file changed by anyone else (the editor,
// another admit) is read again when it changed, looked at no more than
// once every rulesRecheck.
type RuleStore struct {
	userPath, workspacePath string

	// mu guards the files as last read, when they were last looked at,
	// and the last merge of With.
	mu      sync.Mutex
	files   map[string]loadedRules
	checked time.Time // zero: look again at the next decision
	gen     uint64    // counts the store's writes: a read begun before one is not kept
	last    struct {
		set *rules.Set
		err error
	}
	merged struct{ person, repo, out *rules.Set }
	scopes struct {
		in  []*rules.Set
		out *rules.Set
	}
}

// rulesRecheck is how long the rules files as last looked at stand for the
// files on disk: two stats a decision cost a tenth of the gate's time, and
// a person's edit in the editor reaches the agent's next call well within
// it. The store's own writes need no wait.
const rulesRecheck = 100 * time.Millisecond

// loadedRules is one rules file as last read.
type loadedRules struct {
	stamp workspace.Stamp
	set   *rules.Set
	err   error
}

// DefaultRulesDir is $XDG_CONFIG_HOME/admit, else ~/.config/admit.
func DefaultRulesDir() (string, error) {
	base := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no folder for the person's rules: %w", err)
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "admit"), nil
}

// NewRuleStore keeps rules under dir: dir/rules.json for the person's
// rules everywhere, and dir/workspaces/<hash of root>/rules.json for the
// workspace whose first root is root ("" for none).
func NewRuleStore(dir, root string) *RuleStore {
	s := &RuleStore{userPath: filepath.Join(dir, "rules.json"), files: map[string]loadedRules{}}
	if root != "" {
		sum := sha256.Sum256([]byte(root))
		s.workspacePath = filepath.Join(dir, "workspaces", hex.EncodeToString(sum[:8]), "rules.json")
	}
	return s
}

// RuleFiles are where the rules are kept.
type RuleFiles struct {
	User      string `json:"user"`
	Workspace string `json:"workspace,omitempty"`
}

// Files says where the rules are kept.
func (s *RuleStore) Files() RuleFiles {
	return RuleFiles{User: s.userPath, Workspace: s.workspacePath}
}

func (s *RuleStore) path(scope string) (string, error) {
	switch {
	case scope == ScopeUser:
		return s.userPath, nil
	case scope == ScopeWorkspace && s.workspacePath != "":
		return s.workspacePath, nil
	case scope == ScopeWorkspace:
		return "", &ParamError{"scope", "this gate has no workspace to keep rules for"}
	}
	return "", &ParamError{"scope", fmt.Sprintf("must be user or workspace, got %q", scope)}
}

// Set is the person's rules in force: the user's and the workspace's. A
// file that cannot be used is an error naming it: the gate then decides
// as if no rule of the person's allowed anything (the error says why).
func (s *RuleStore) Set() (*rules.Set, error) {
	if s == nil {
		return nil, nil
	}
	now := time.Now()
	s.mu.Lock()
	if !s.checked.IsZero() && now.Sub(s.checked) < rulesRecheck {
		set, err := s.last.set, s.last.err
		s.mu.Unlock()
		return set, err
	}
	gen := s.gen
	s.mu.Unlock()
	set, err := s.read()
	s.mu.Lock()
	if s.gen == gen {
		s.last.set, s.last.err, s.checked = set, err, now
	}
	s.mu.Unlock()
	return set, err
}

// invalidate makes the next decision read the files again: the store has
// just written one.
func (s *RuleStore) invalidate() {
	s.mu.Lock()
	s.checked = time.Time{}
	s.gen++
	s.mu.Unlock()
}

// read is the rules of both files, each read again only when it changed.
func (s *RuleStore) read() (*rules.Set, error) {
	var sets []*rules.Set
	var errs []error
	for _, scope := range []string{ScopeUser, ScopeWorkspace} {
		path, err := s.path(scope)
		if err != nil {
			continue
		}
		set, err := s.load(path, scope)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sets = append(sets, set)
	}
	return s.merge(sets), errors.Join(errs...)
}

// merge is rules.Merge of the files' sets, kept while none changes.
func (s *RuleStore) merge(sets []*rules.Set) *rules.Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scopes.out != nil && slices.Equal(s.scopes.in, sets) {
		return s.scopes.out
	}
	out := rules.Merge(sets...)
	s.scopes.in, s.scopes.out = slices.Clone(sets), out
	return out
}

// With is the person's rules in force (Set) merged with the
// repository's, as the command policy matches them; the merge is kept
// while neither side changes, so a decision does not rebuild it.
func (s *RuleStore) With(repo *rules.Set) (*rules.Set, error) {
	person, err := s.Set()
	if s == nil {
		return rules.Merge(repo), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.merged; m.out != nil && m.person == person && m.repo == repo {
		return m.out, err
	}
	out := rules.Merge(person, repo)
	s.merged.person, s.merged.repo, s.merged.out = person, repo, out
	return out, err
}

// load reads one file, again only when it changed.
func (s *RuleStore) load(path, scope string) (*rules.Set, error) {
	st, exists := workspace.StampOf(path)
	s.mu.Lock()
	cur, ok := s.files[path]
	s.mu.Unlock()
	if ok && cur.stamp == st {
		return cur.set, cur.err
	}
	lr := loadedRules{stamp: st}
	if exists {
		data, err := os.ReadFile(path)
		if err != nil {
			lr.err = fmt.Errorf("rules %s: %w", path, err)
		} else {
			lr.set, lr.err = rules.Load(data, scope, true)
		}
	} else {
		lr.set = &rules.Set{}
	}
	s.mu.Lock()
	s.files[path] = lr
	s.mu.Unlock()
	return lr.set, lr.err
}

// file reads the rules file of scope as written, for a change.
func (s *RuleStore) file(scope string) (string, rules.File, error) {
	path, err := s.path(scope)
	if err != nil {
		return "", rules.File{}, err
	}
	var f rules.File
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return path, f, nil
	case err != nil:
		return "", f, err
	}
	if err := strictjson.Decode(data, &f); err != nil {
		return "", f, fmt.Errorf("rules %s: %w (fix the file before adding to it)", path, err)
	}
	return path, f, nil
}

// Add keeps r in scope. The rule must load: its match must parse and its
// examples must hold, or the error names what is wrong.
func (s *RuleStore) Add(scope string, r rules.Rule) error {
	if _, err := rules.NewSet([]rules.Rule{r}); err != nil {
		return &ParamError{"match", err.Error()}
	}
	path, f, err := s.file(scope)
	if err != nil {
		return err
	}
	for _, old := range f.Rules {
		if old.Match == r.Match && old.Decision == r.Decision && sameEffects(old.Effects, r.Effects) {
			return nil // already kept
		}
	}
	r.Source = ""
	f.Rules = append(f.Rules, r)
	return s.write(path, f)
}

// sameEffects reports whether two rules cover the same kinds of effect.
func sameEffects(a, b *rules.Effects) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := a.Sorted(), b.Sorted()
	return slices.Equal(x.Reads, y.Reads) && slices.Equal(x.Code, y.Code) && slices.Equal(x.Hosts, y.Hosts) && slices.Equal(x.Sends, y.Sends)
}

// Remove drops the rules of scope with this match and decision, from the
// file's lists and its rules.
func (s *RuleStore) Remove(scope, match string, decision rule.Outcome) error {
	path, f, err := s.file(scope)
	if err != nil {
		return err
	}
	n := len(f.Allow) + len(f.Ask) + len(f.Deny) + len(f.Rules)
	drop := func(list []string, d rule.Outcome) []string {
		if d != decision {
			return list
		}
		return slices.DeleteFunc(list, func(m string) bool { return m == match })
	}
	f.Allow, f.Ask, f.Deny = drop(f.Allow, rule.OutcomeAllow), drop(f.Ask, rule.OutcomeAsk), drop(f.Deny, rule.OutcomeDeny)
	f.Rules = slices.DeleteFunc(f.Rules, func(r rules.Rule) bool { return r.Match == match && r.Decision == decision })
	if len(f.Allow)+len(f.Ask)+len(f.Deny)+len(f.Rules) == n {
		return &ParamError{"match", fmt.Sprintf("no %s rule %q in the %s rules", decision, match, scope)}
	}
	return s.write(path, f)
}

// write replaces a rules file atomically, in a folder only the person can
// enter.
func (s *RuleStore) write(path string, f rules.File) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("rules: %w", err)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	err = sysfile.WriteAtomic(path, append(data, '\n'), 0o600)
	s.invalidate()
	if err != nil {
		return fmt.Errorf("rules: %w", err)
	}
	return nil
}

// RulesList is what admit/rules answers: every rule in force, with where it
// is kept.
type RulesList struct {
	Rules []rules.Rule `json:"rules"`
	Files RuleFiles    `json:"files"`
	// Error says why a rules file cannot be used, when one cannot.
	Error string `json:"error,omitempty"`
}

// RuleParams name one of the person's rules: admit/addRule and
// admit/removeRule.
type RuleParams struct {
	Match       string       `json:"match"`
	Decision    rule.Outcome `json:"decision"`
	Scope       string       `json:"scope"`
	Note        string       `json:"note,omitempty"`
	Examples    []string     `json:"examples,omitempty"`
	NotExamples []string     `json:"notExamples,omitempty"`
	// Effects limit an allow rule to these kinds of effect (a suggestion's,
	// admit/suggestRules); with them, match names what runs.
	Effects *rules.Effects `json:"effects,omitempty"`
}

// Rules lists the person's rules and the repository's (ask and deny only).
func (g *Gate) Rules() RulesList {
	out := RulesList{Rules: []rules.Rule{}}
	if g.cfg.Rules == nil {
		return out
	}
	out.Files = g.cfg.Rules.Files()
	set, err := g.cfg.Rules.Set()
	if err != nil {
		out.Error = err.Error()
	}
	out.Rules = append(out.Rules, set.Rules()...)
	if lp := g.loadPolicy(g.cfg.Roots.List()); lp.rules != nil {
		out.Rules = append(out.Rules, lp.rules.Rules()...)
	}
	return out
}

// AddRule keeps one of the person's rules, checked first: its match must
// parse and its examples must hold.
func (g *Gate) AddRule(p RuleParams) error {
	if g.cfg.Rules == nil {
		return &ParamError{"scope", "this gate keeps no rules of the person's"}
	}
	r, err := rules.Parse(p.Match, p.Decision)
	if err != nil {
		field := "match"
		if strings.Contains(err.Error(), "decision") {
			field = "decision"
		}
		return &ParamError{field, err.Error()}
	}
	r.Note, r.Examples, r.NotExamples, r.Effects = p.Note, p.Examples, p.NotExamples, p.Effects
	if err := g.managedForbids(r); err != nil {
		return err
	}
	if err := g.cfg.Rules.Add(p.Scope, r); err != nil {
		return err
	}
	g.stateChanged()
	return nil
}

// RemoveRule drops one of the person's rules.
func (g *Gate) RemoveRule(p RuleParams) error {
	if g.cfg.Rules == nil {
		return &ParamError{"scope", "this gate keeps no rules of the person's"}
	}
	if err := g.cfg.Rules.Remove(p.Scope, p.Match, p.Decision); err != nil {
		return err
	}
	g.stateChanged()
	return nil
}

// Suggestion is a rule the tape says the person keeps being asked about:
// what runs and the kinds of effect it is limited to (rules.Offer), the
// questions of the tape it answers, and the nearest it would not.
type Suggestion struct {
	Match    string         `json:"match"`
	Decision rule.Outcome   `json:"decision"`
	Effects  *rules.Effects `json:"effects,omitempty"`
	// Covers says what the rule covers, in words.
	Covers   string   `json:"covers,omitempty"`
	Count    int      `json:"count"`
	Examples []string `json:"examples"`
	// NotCovered are questions of the tape about the same program that
	// the rule would still ask (an upload, another host, another script).
	NotCovered []string `json:"notCovered,omitempty"`
}

// maxSuggestionExamples bounds the examples a suggestion carries.
const maxSuggestionExamples = 3

// asked is one question of the tape, judged again: the command that
// asked, its kinds of effect, and the rule that would answer it.
type asked struct {
	line  string
	argv  []string
	eff   rules.Effects
	offer *rules.Rule
}

// SuggestRules reads the tape's questions (asked, or refused because
// nobody could be asked), judges each line again as it stands now (in the
// session's folder: the tape keeps no folder) and proposes the rules that
// would answer them, as "always allow" would offer them: what runs and the
// kinds of effect it had, each checked to load, with the lines it answers
// (most frequent first) and the nearest it would not.
func (g *Gate) SuggestRules(p TapeParams) ([]Suggestion, error) {
	recs, err := g.Tape(p)
	if err != nil {
		return nil, err
	}
	var all []asked
	judged := map[string]int{} // a line judged once, by its text
	for _, rec := range recs {
		if rec.Command == "" || !(rec.DecidedBy == rule.ByPerson || rec.DecidedBy == rule.ByHeadless || rec.DecidedBy == rule.ByTimeout) {
			continue
		}
		if i, ok := judged[rec.Command]; ok {
			if i >= 0 {
				all = append(all, all[i])
			}
			continue
		}
		judged[rec.Command] = -1
		d, err := g.Decide(context.Background(), CheckParams{Session: rec.Session, Tool: "bash", Command: rec.Command, DryRun: true}, nil)
		if err != nil || !d.Decision.Ask || !d.Decision.Answerable || len(d.Decision.Asks) != 1 || len(d.Decision.AskEffects) != 1 {
			continue // no one rule answers it (docs/rules-person.md)
		}
		a := asked{line: rec.Command, argv: d.Decision.Asks[0], eff: d.Decision.AskEffects[0]}
		if r, why := rules.Offer(a.argv, a.eff); why == "" {
			a.offer = &r
		}
		judged[rec.Command] = len(all)
		all = append(all, a)
	}
	byKey := map[string]*Suggestion{}
	rulesOf := map[string]*rules.Rule{}
	var order []string
	for _, a := range all {
		if a.offer == nil {
			continue
		}
		key := a.offer.Match + "\x00" + fmt.Sprint(*a.offer.Effects)
		s := byKey[key]
		if s == nil {
			s = &Suggestion{Match: a.offer.Match, Decision: rule.OutcomeAllow, Effects: a.offer.Effects, Covers: a.offer.Explain()}
			byKey[key], rulesOf[key] = s, a.offer
			order = append(order, key)
		}
		s.Count++
		if ex := rules.Quote(a.argv); len(s.Examples) < maxSuggestionExamples && !slices.Contains(s.Examples, ex) {
			s.Examples = append(s.Examples, ex)
		}
	}
	out := []Suggestion{}
	for _, k := range order {
		s, r := byKey[k], *rulesOf[k]
		r.Examples = s.Examples
		if _, err := rules.NewSet([]rules.Rule{r}); err != nil {
			continue // only rules that load are proposed
		}
		for _, a := range all {
			if len(s.NotCovered) == maxSuggestionExamples {
				break
			}
			if a.argv[0] == r.Words()[0] && !r.Covers(a.argv, a.eff) && !slices.Contains(s.NotCovered, a.line) {
				s.NotCovered = append(s.NotCovered, a.line)
			}
		}
		out = append(out, *s)
	}
	slices.SortStableFunc(out, func(a, b Suggestion) int { return b.Count - a.Count })
	return out, nil
}
