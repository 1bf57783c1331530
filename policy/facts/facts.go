// Package facts keeps what one decision rested on besides the policy and
// the person's rules: the settings it was taken under (roots, effect mode,
// shell profile, home, working folder, PATH), the state of the session
// (budget, paths in flux, a taint) and every answer the file system and
// the session's observations gave the policy. The gate records them with
// each decision on the tape (Recorder wraps its command.FS and
// command.Observations); admit tape replay judges the call again from
// them (Replay answers as the FS and the observations did), never from
// the live file system. A question the record holds no answer for is a
// missing fact, and Replay says which.
//
// Start at Facts (what a record holds) and Recorder.
package facts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"admit/policy/command"
)

// Version is the facts' format; a record of another version is replayed
// as one without facts.
const Version = 1

// Facts are one decision's recorded facts. The json names are short: they
// are on every line of the tape.
type Facts struct {
	V       int      `json:"v"`
	Roots   []string `json:"roots"`
	Effects string   `json:"effects"`
	Profile string   `json:"profile"`
	Home    string   `json:"home,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	// Argv is the call's literal words when it gave them in place of a
	// line (the tape's command joins them, which loses their bounds);
	// Line: the call gave its command line beside its arguments.
	Argv      []string `json:"argv,omitempty"`
	Line      bool     `json:"line,omitempty"`
	Path      []string `json:"path,omitempty"`
	PathKnown bool     `json:"pathKnown,omitempty"` // Path was given (an empty PATH is a PATH)
	// SecretValues name the variables whose values were credentials
	// (policy.Call.SecretValues): names only, never a value.
	SecretValues []string `json:"secretValues,omitempty"`
	Background   bool     `json:"background,omitempty"`
	Terminal     bool     `json:"terminal,omitempty"`
	AdmitRuns    bool     `json:"admitRuns,omitempty"`
	// Session is the capability set of an opened session (JSON of
	// policy.Caps); empty for the default session, whose set the policy
	// file makes.
	Session         json.RawMessage `json:"session,omitempty"`
	MaxRequestChars int64           `json:"maxRequestChars,omitempty"`
	Budget          string          `json:"budget,omitempty"`
	InFlux          []string        `json:"inFlux,omitempty"`
	// Gate-level turns of the decision, taken again on replay: the
	// person's standing yes to confined runs, a session tainted by an
	// unexpected effect, a one-call gate's tracked terminal, and a file
	// tool's refusal of a change not bound to the bytes read.
	ConfinedOK bool   `json:"confinedOK,omitempty"`
	Tainted    string `json:"tainted,omitempty"`
	OneCall    bool   `json:"oneCall,omitempty"`
	Tracked    bool   `json:"tracked,omitempty"`
	Pinned     bool   `json:"pinned,omitempty"` // a shell the host keeps, whose folder is not followed
	AmendRule  string `json:"amendRule,omitempty"`
	AmendWhy   string `json:"amendWhy,omitempty"`
	// Rule and Outcome are the policy's answer (after the gate's turns,
	// before a person answered): what replay compares with.
	Rule    string `json:"rule"`
	Outcome string `json:"outcome"`
	// Before says the call was refused before the policy judged it, and
	// where: "cwd" (its working folder), "policy" (the policy file could
	// not be used); nothing else is recorded then.
	Before string `json:"before,omitempty"`

	// The answers, keyed by the path asked about.
	Resolve    map[string]Resolved  `json:"resolve,omitempty"`
	Links      map[string][]string  `json:"links,omitempty"`
	Split      map[string][]string  `json:"split,omitempty"`
	Options    map[string][]string  `json:"options,omitempty"` // OptionNames' answers
	GitExec    map[string]string    `json:"gitExec,omitempty"`
	GitConfig  map[string][]string  `json:"gitConfig,omitempty"`
	CargoExec  map[string]string    `json:"cargoExec,omitempty"`
	ReadDir    map[string]Dir       `json:"readDir,omitempty"`
	Remotes    map[string]*[]string `json:"remotes,omitempty"`        // nil: could not be read
	WriteExec  map[string]string    `json:"writeExec,omitempty"`      // key: dir NUL hooks joined by NUL
	Creds      map[string]*[]string `json:"gitCredentials,omitempty"` // nil: could not be read
	GitTracked map[string]*[]string `json:"gitTracked,omitempty"`     // GitTracked's secret files; nil: the index could not be read
	Holds      map[string]bool      `json:"holds,omitempty"`          // MayHold's answers; key: file NUL words joined by NUL
	ObsFile    map[string]ObsAnswer `json:"obsFile,omitempty"`
	ObsDir     map[string]bool      `json:"obsDir,omitempty"`
	GitHead    map[string]GitHead   `json:"gitHead,omitempty"`
	// PathDirs are the PATH folders a one-call search resolved
	// (SearchPath), each with its resolution; the name's answer is in
	// Resolve under that resolution, as ResolveIn's is.
	PathDirs map[string]string `json:"pathDirs,omitempty"`
}

// GitHead is a command.GitHead as recorded.
type GitHead struct {
	Top      string `json:"t,omitempty"`
	Branch   string `json:"b,omitempty"`
	Commit   string `json:"c,omitempty"`
	OnBranch bool   `json:"on,omitempty"`
	Detached bool   `json:"det,omitempty"`
}

// ObsAnswer is an observation's state as recorded.
type ObsAnswer = int

// Resolved is a command.Resolved, or the error resolving gave.
type Resolved struct {
	Path   string `json:"p,omitempty"`
	Exists bool   `json:"e,omitempty"`
	Dir    bool   `json:"d,omitempty"`
	Mode   uint32 `json:"m,omitempty"`
	Links  uint64 `json:"l,omitempty"`
	// Foreign: owned by another user than the gate's (command.Resolved).
	Foreign bool   `json:"o,omitempty"`
	Err     string `json:"err,omitempty"`
}

// Dir is a folder's listing, or the error reading it gave.
type Dir struct {
	Names []string `json:"n,omitempty"`
	Modes []uint32 `json:"m,omitempty"` // type bits, one per name
	Err   string   `json:"err,omitempty"`
	// Kind classes the error, so replay returns one the policy reads
	// the same way: "notexist", "notdir" or "" (any other).
	Kind string `json:"k,omitempty"`
}

// Recorder is the FS and the observations one decision sees, answering
// through the live ones and keeping every answer. It is made for one
// decision; its methods are safe for concurrent use.
type Recorder struct {
	fs  command.FS
	obs command.Observations

	// mu guards f.
	mu sync.Mutex
	f  answers
}

// answers are the answers a Recorder keeps, by kind, as Facts' maps hold
// them.
type answers struct {
	Resolve    answered[Resolved]
	Links      answered[[]string]
	Split      answered[[]string]
	Options    answered[[]string]
	GitExec    answered[string]
	GitConfig  answered[[]string]
	CargoExec  answered[string]
	ReadDir    answered[Dir]
	Remotes    answered[*[]string]
	WriteExec  answered[string]
	Creds      answered[*[]string]
	GitTracked answered[*[]string]
	Holds      answered[bool]
	ObsFile    answered[ObsAnswer]
	ObsDir     answered[bool]
	GitHead    answered[GitHead]
	PathDirs   answered[string]
}

// answered is one kind of answer, keyed by what was asked, the first
// answer to each key kept. It is a list, not a map: most decisions ask a
// few questions of a kind, and a map is two allocations and a bucket of
// eight; past smallAnswered keys an index finds them.
type answered[V any] struct {
	list []entry[V]
	idx  map[string]int // nil up to smallAnswered keys
}

type entry[V any] struct {
	k string
	v V
}

const smallAnswered = 8

// keep puts the first answer to k.
func (a *answered[V]) keep(k string, v V) {
	if a.idx != nil {
		if _, ok := a.idx[k]; ok {
			return
		}
	} else if slices.ContainsFunc(a.list, func(e entry[V]) bool { return e.k == k }) {
		return
	}
	a.list = append(a.list, entry[V]{k, v})
	switch {
	case a.idx != nil:
		a.idx[k] = len(a.list) - 1
	case len(a.list) > smallAnswered:
		a.reindex()
	}
}

func (a *answered[V]) reindex() {
	a.idx = make(map[string]int, 2*len(a.list))
	for i, e := range a.list {
		a.idx[e.k] = i
	}
}

// asMap is the answers as Facts holds them: nil for none.
func (a *answered[V]) asMap() map[string]V {
	if len(a.list) == 0 {
		return nil
	}
	m := make(map[string]V, len(a.list))
	for _, e := range a.list {
		m[e.k] = e.v
	}
	return m
}

// sorted is the answers in the order of their keys, as json.Marshal
// writes a map; the list is sorted in place.
func (a *answered[V]) sorted() []entry[V] {
	if !slices.IsSortedFunc(a.list, compareEntries) {
		slices.SortFunc(a.list, compareEntries)
		if a.idx != nil {
			a.reindex()
		}
	}
	return a.list
}

func compareEntries[V any](a, b entry[V]) int { return strings.Compare(a.k, b.k) }

// sortedOf is m's entries in the order of their keys.
func sortedOf[V any](m map[string]V) []entry[V] {
	out := make([]entry[V], 0, len(m))
	for k, v := range m {
		out = append(out, entry[V]{k, v})
	}
	slices.SortFunc(out, compareEntries)
	return out
}

// NewRecorder wraps the live FS and observations (obs may be nil).
func NewRecorder(fsys command.FS, obs command.Observations) *Recorder {
	r := &Recorder{}
	r.Init(fsys, obs)
	return r
}

// Init readies a Recorder in place, zero or used, as NewRecorder makes
// one: the gate reuses a decision's recorder for the next, so it forgets
// what it was answered, keeping the room its lists took.
func (r *Recorder) Init(fsys command.FS, obs command.Observations) {
	r.fs, r.obs = fsys, obs
	f := &r.f
	forget(&f.Resolve)
	forget(&f.Links)
	forget(&f.Split)
	forget(&f.Options)
	forget(&f.GitExec)
	forget(&f.GitConfig)
	forget(&f.CargoExec)
	forget(&f.ReadDir)
	forget(&f.Remotes)
	forget(&f.WriteExec)
	forget(&f.Creds)
	forget(&f.GitTracked)
	forget(&f.Holds)
	forget(&f.ObsFile)
	forget(&f.ObsDir)
	forget(&f.GitHead)
	forget(&f.PathDirs)
}

// forget empties a, dropping what its answers point to.
func forget[V any](a *answered[V]) {
	clear(a.list)
	a.list, a.idx = a.list[:0], nil
}

// FS is the recording FS: it implements command.GitWrites (and resolves
// in a folder) exactly when the live FS does, so the policy takes the
// same paths through it.
func (r *Recorder) FS() command.FS {
	_, git := r.fs.(command.GitWrites)
	_, in := r.fs.(resolverIn)
	switch {
	case git && in:
		return recGitIn{recGit{recFS{r}}}
	case git:
		return recGit{recFS{r}}
	case in:
		return recIn{recFS{r}}
	}
	return recFS{r}
}

// Obs is the recording observations, or nil when there are none.
func (r *Recorder) Obs() command.Observations {
	if r.obs == nil {
		return nil
	}
	return recObs{r}
}

// Facts returns what was recorded, with base's settings: the caller fills
// base with what the decision was taken under.
func (r *Recorder) Facts(base Facts) Facts {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := &r.f
	base.V = Version
	base.Resolve, base.Links, base.Split, base.Options = f.Resolve.asMap(), f.Links.asMap(), f.Split.asMap(), f.Options.asMap()
	base.GitExec, base.GitConfig, base.ReadDir, base.Remotes = f.GitExec.asMap(), f.GitConfig.asMap(), f.ReadDir.asMap(), f.Remotes.asMap()
	base.WriteExec, base.ObsFile, base.ObsDir = f.WriteExec.asMap(), f.ObsFile.asMap(), f.ObsDir.asMap()
	base.GitHead = f.GitHead.asMap()
	base.CargoExec = f.CargoExec.asMap()
	base.PathDirs = f.PathDirs.asMap()
	base.Creds = f.Creds.asMap()
	base.GitTracked = f.GitTracked.asMap()
	base.Holds = f.Holds.asMap()
	return base
}

// AppendJSON appends what Facts(base) returns as json.Marshal encodes it
// (Facts.AppendJSON), without making its maps: the gate encodes a
// decision's facts so. base's own answers are not written.
func (r *Recorder) AppendJSON(b []byte, base *Facts) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, err := base.appendSettings(b, Version)
	if err != nil {
		return b, err
	}
	return r.f.appendJSON(b), nil
}

// resolverIn mirrors command's optional fast path (ResolveIn): the same
// answer as Resolve(dir + "/" + name).
type resolverIn interface {
	ResolveIn(dir, name string) (command.Resolved, error)
}

// pathSearcher mirrors command's one-call PATH search (SearchPath): the
// answers of Resolve(dir).Path and ResolveIn in it, or ok false.
type pathSearcher interface {
	SearchPath(dir, name string) (canon string, r command.Resolved, ok bool)
}

type recFS struct{ r *Recorder }

func (x recFS) Resolve(p string) (command.Resolved, error) {
	res, err := x.r.fs.Resolve(p)
	x.r.keepResolved(p, res, err)
	return res, err
}

func (r *Recorder) keepResolved(p string, res command.Resolved, err error) {
	rec := Resolved{Path: res.Path, Exists: res.Exists, Dir: res.Dir, Mode: uint32(res.Mode), Links: res.Links, Foreign: res.Foreign}
	if err != nil {
		rec = Resolved{Err: err.Error()}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f.Resolve.keep(p, rec)
}

func (x recFS) LinksOutside(dir string) []string {
	out := x.r.fs.LinksOutside(dir)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.Links.keep(dir, out)
	return out
}

func (x recFS) SplitNames(dir string) []string {
	out := x.r.fs.SplitNames(dir)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.Split.keep(dir, out)
	return out
}

func (x recFS) OptionNames(dir string) []string {
	out := x.r.fs.OptionNames(dir)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.Options.keep(dir, out)
	return out
}

func (x recFS) GitExec(dir string) string {
	out := x.r.fs.GitExec(dir)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.GitExec.keep(dir, out)
	return out
}

func (x recFS) GitConfigFiles(dir string) []string {
	out := x.r.fs.GitConfigFiles(dir)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.GitConfig.keep(dir, out)
	return out
}

func (x recFS) CargoExec(dir string) string {
	out := x.r.fs.CargoExec(dir)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.CargoExec.keep(dir, out)
	return out
}

func (x recFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	ents, err := x.r.fs.ReadDir(dir)
	x.r.keepDir(dir, ents, err)
	return ents, err
}

// ListResolved answers as the live FS's ListResolved (or ReadDir), kept
// as ReadDir's answer for dir: replay lists it by ReadDir.
func (x recFS) ListResolved(dir string) ([]fs.DirEntry, error) {
	var ents []fs.DirEntry
	var err error
	if rl, ok := x.r.fs.(command.ResolvedLister); ok {
		ents, err = rl.ListResolved(dir)
	} else {
		ents, err = x.r.fs.ReadDir(dir)
	}
	x.r.keepDir(dir, ents, err)
	return ents, err
}

// keepDir keeps a listing of dir for replay.
func (r *Recorder) keepDir(dir string, ents []fs.DirEntry, err error) {
	d := Dir{}
	if err != nil {
		d.Err = err.Error()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			d.Kind = "notexist"
		case errors.Is(err, syscall.ENOTDIR):
			d.Kind = "notdir"
		}
	} else {
		d.Names, d.Modes = make([]string, len(ents)), make([]uint32, len(ents))
		for i, e := range ents {
			d.Names[i], d.Modes[i] = e.Name(), uint32(e.Type())
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f.ReadDir.keep(dir, d)
}

// GitHead answers as the live FS does, or as an FS that cannot read a
// repository's HEAD (nothing known) when it has no such answer.
func (x recFS) GitHead(dir string) command.GitHead {
	var out command.GitHead
	if h, ok := x.r.fs.(command.GitHeads); ok {
		out = h.GitHead(dir)
	}
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.GitHead.keep(dir, GitHead(out))
	return out
}

type recIn struct{ recFS }

func (x recIn) ResolveIn(dir, name string) (command.Resolved, error) {
	res, err := x.r.fs.(resolverIn).ResolveIn(dir, name)
	x.r.keepResolved(dir+"/"+name, res, err)
	return res, err
}

// SearchPath answers as the live FS does, or declines when it has no
// such search; what it answered is kept for replay (repFS.SearchPath).
func (x recIn) SearchPath(dir, name string) (string, command.Resolved, bool) {
	s, ok := x.r.fs.(pathSearcher)
	if !ok {
		return "", command.Resolved{}, false
	}
	canon, res, ok := s.SearchPath(dir, name)
	if ok {
		x.r.keepResolved(canon+"/"+name, res, nil)
		x.r.mu.Lock()
		x.r.f.PathDirs.keep(dir, canon)
		x.r.mu.Unlock()
	}
	return canon, res, ok
}

type recGit struct{ recFS }

func (x recGit) GitRemotes(dir string) ([]string, bool) {
	out, ok := x.r.fs.(command.GitWrites).GitRemotes(dir)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.Remotes.keep(dir, listAnswer(out, ok))
	return out, ok
}

// listAnswer is a list answer as recorded: a copy, empty rather than nil
// when known, and nil when it could not be read.
func listAnswer(out []string, ok bool) *[]string {
	if !ok {
		return nil
	}
	c := slices.Clone(out)
	if c == nil {
		c = []string{}
	}
	return &c
}

func (x recGit) GitWriteExec(dir string, hooks []string) string {
	out := x.r.fs.(command.GitWrites).GitWriteExec(dir, hooks)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.WriteExec.keep(listKey(dir, hooks), out)
	return out
}

func (x recGit) GitCredentials(dir string) ([]string, bool) {
	out, ok := x.r.fs.(command.GitWrites).GitCredentials(dir)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.Creds.keep(dir, listAnswer(out, ok))
	return out, ok
}

// GitTracked answers as the live FS does (command.GitIndex), or as an
// index that cannot be read; the answer is kept by dir (its want names
// the secrets, the same for the whole decision).
func (x recGit) GitTracked(dir string, want func(string) bool) ([]string, bool) {
	var out []string
	ok := false
	if gi, is := x.r.fs.(command.GitIndex); is {
		out, ok = gi.GitTracked(dir, want)
	}
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.GitTracked.keep(dir, listAnswer(out, ok))
	return out, ok
}

// MayHold answers as the live FS does (command.TextHolder), or as a
// file that may hold anything.
func (x recGit) MayHold(file string, words []string) bool {
	out := true
	if th, is := x.r.fs.(command.TextHolder); is {
		out = th.MayHold(file, words)
	}
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.Holds.keep(listKey(file, words), out)
	return out
}

type recGitIn struct{ recGit }

func (x recGitIn) ResolveIn(dir, name string) (command.Resolved, error) {
	return recIn{x.recFS}.ResolveIn(dir, name)
}

func (x recGitIn) SearchPath(dir, name string) (string, command.Resolved, bool) {
	return recIn{x.recFS}.SearchPath(dir, name)
}

// listKey is the key of an answer to a question of a name and a list
// (a folder and its hooks, a file and the words looked for).
func listKey(name string, list []string) string {
	return name + "\x00" + strings.Join(list, "\x00")
}

type recObs struct{ r *Recorder }

func (x recObs) File(p string) command.ObsState {
	s := x.r.obs.File(p)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.ObsFile.keep(p, int(s))
	return s
}

func (x recObs) Dir(p string) bool {
	s := x.r.obs.Dir(p)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.f.ObsDir.keep(p, s)
	return s
}

// Replay answers the policy's questions from recorded facts. A question
// the facts hold no answer to is answered as the FS answers what it
// cannot see (an error, nothing there, unobserved), which the policy
// fails closed on, and named in Missing.
type Replay struct {
	f *Facts

	// mu guards missing.
	mu      sync.Mutex
	missing []string
}

// NewReplay answers from f.
func NewReplay(f *Facts) *Replay { return &Replay{f: f} }

// FS is the replaying FS (with GitWrites, since the live gate's has it).
func (r *Replay) FS() command.FS { return repFS{r} }

// Obs is the replaying observations.
func (r *Replay) Obs() command.Observations { return repObs{r} }

// Missing lists the questions the facts held no answer to, in the order
// asked, each once.
func (r *Replay) Missing() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.missing)
}

func (r *Replay) miss(what, p string) {
	s := what + " " + strconv.Quote(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.missing, s) {
		r.missing = append(r.missing, s)
	}
}

// errMissing is a recorded answer that is not there.
var errMissing = errors.New("not recorded: the tape holds no answer to this question")

type repFS struct{ r *Replay }

func (x repFS) Resolve(p string) (command.Resolved, error) {
	v, ok := x.r.f.Resolve[p]
	if !ok {
		x.r.miss("resolve", p)
		return command.Resolved{}, fmt.Errorf("%s: %w", p, errMissing)
	}
	if v.Err != "" {
		return command.Resolved{}, errors.New(v.Err)
	}
	return command.Resolved{Path: v.Path, Exists: v.Exists, Dir: v.Dir, Mode: fs.FileMode(v.Mode), Links: v.Links, Foreign: v.Foreign}, nil
}

// SearchPath answers from a recorded search of dir; a record without one
// (a search declined, or a tape from before searches) declines, and the
// policy resolves dir and the name from Resolve's answers.
func (x repFS) SearchPath(dir, name string) (string, command.Resolved, bool) {
	canon, ok := x.r.f.PathDirs[dir]
	if !ok {
		return "", command.Resolved{}, false
	}
	if v, ok := x.r.f.Resolve[canon+"/"+name]; !ok || v.Err != "" {
		return "", command.Resolved{}, false
	}
	res, err := x.Resolve(canon + "/" + name)
	return canon, res, err == nil
}

// recorded is the taped answer of m to key, or unknown (and the fact named
// as missing) when the tape holds none. unknown is always the answer that
// refuses or asks: a fact nobody saw never admits a call.
func recorded[V any](r *Replay, m map[string]V, key, what, name string, unknown V) V {
	v, ok := m[key]
	if !ok {
		r.miss(what, name)
		return unknown
	}
	return v
}

// LinksOutside, unknown, assumes a link leading outside, so a recursive
// read is refused rather than admitted on a fact nobody saw.
func (x repFS) LinksOutside(dir string) []string {
	return recorded(x.r, x.r.f.Links, dir, "links under", dir, []string{dir + "/…(not recorded)"})
}

func (x repFS) OptionNames(dir string) []string {
	return recorded(x.r, x.r.f.Options, dir, "names under", dir, []string{dir + "/…(not recorded)"})
}

func (x repFS) SplitNames(dir string) []string {
	return recorded(x.r, x.r.f.Split, dir, "names under", dir, []string{dir + "/…(not recorded)"})
}

func (x repFS) GitExec(dir string) string {
	return recorded(x.r, x.r.f.GitExec, dir, "git configuration of", dir, "the repository's configuration (not recorded)")
}

func (x repFS) GitConfigFiles(dir string) []string {
	return recorded(x.r, x.r.f.GitConfig, dir, "git configuration files of", dir, nil)
}

func (x repFS) CargoExec(dir string) string {
	return recorded(x.r, x.r.f.CargoExec, dir, "cargo configuration of", dir, "cargo's configuration (not recorded)")
}

func (x repFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	v, ok := x.r.f.ReadDir[dir]
	if !ok {
		x.r.miss("listing of", dir)
		return nil, fmt.Errorf("%s: %w", dir, errMissing)
	}
	if v.Err != "" {
		switch v.Kind {
		case "notexist":
			return nil, fmt.Errorf("%s: %w", v.Err, fs.ErrNotExist)
		case "notdir":
			return nil, fmt.Errorf("%s: %w", v.Err, syscall.ENOTDIR)
		}
		return nil, errors.New(v.Err)
	}
	out := make([]fs.DirEntry, len(v.Names))
	for i, n := range v.Names {
		var m uint32
		if i < len(v.Modes) {
			m = v.Modes[i]
		}
		out[i] = dirEntry{name: n, mode: fs.FileMode(m)}
	}
	return out, nil
}

// recordedList answers a list fact: unknown when not recorded or
// recorded as unreadable (nil).
func recordedList(r *Replay, m map[string]*[]string, dir, what string) ([]string, bool) {
	v := recorded(r, m, dir, what, dir, nil)
	if v == nil {
		return nil, false
	}
	return *v, true
}

func (x repFS) GitRemotes(dir string) ([]string, bool) {
	return recordedList(x.r, x.r.f.Remotes, dir, "git remotes of")
}

func (x repFS) GitCredentials(dir string) ([]string, bool) {
	return recordedList(x.r, x.r.f.Creds, dir, "git credentials of")
}

func (x repFS) GitTracked(dir string, _ func(string) bool) ([]string, bool) {
	return recordedList(x.r, x.r.f.GitTracked, dir, "files git tracks under")
}

func (x repFS) MayHold(file string, words []string) bool {
	return recorded(x.r, x.r.f.Holds, listKey(file, words), "text of", file, true)
}

func (x repFS) GitWriteExec(dir string, hooks []string) string {
	return recorded(x.r, x.r.f.WriteExec, listKey(dir, hooks), "git hooks and settings of", dir, "the repository's hooks (not recorded)")
}

// GitHead, unknown, knows nothing of the repository: every git value is
// then unknown, as today.
func (x repFS) GitHead(dir string) command.GitHead {
	return command.GitHead(recorded(x.r, x.r.f.GitHead, dir, "git HEAD of", dir, GitHead{}))
}

type repObs struct{ r *Replay }

func (x repObs) File(p string) command.ObsState {
	return command.ObsState(recorded(x.r, x.r.f.ObsFile, p, "observation of", p, ObsAnswer(command.Unobserved)))
}

func (x repObs) Dir(p string) bool {
	return recorded(x.r, x.r.f.ObsDir, p, "observation of folder", p, false)
}

// dirEntry is a recorded name in a listing.
type dirEntry struct {
	name string
	mode fs.FileMode
}

func (d dirEntry) Name() string      { return d.name }
func (d dirEntry) IsDir() bool       { return d.mode.IsDir() }
func (d dirEntry) Type() fs.FileMode { return d.mode.Type() }
func (d dirEntry) Info() (fs.FileInfo, error) {
	return nil, fmt.Errorf("%s: %w", d.name, errMissing)
}
