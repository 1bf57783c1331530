package command

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"admit/policy/rule"
	"admit/policy/rules"
	"admit/policy/shell"
)

// maxCwds bounds how many working folders a script's later commands are
// judged in (each cd after a ";" adds one); more is not a script a person
// could follow either.
const maxCwds = 8

// maxWrapperDepth bounds wrappers inside wrappers (timeout nice timeout ...).
const maxWrapperDepth = 4

// Context is what one decision depends on besides the command itself.
type Context struct {
	Roots   []string      // resolved absolute workspace roots
	Effects Effects       // "" is read-only
	Profile shell.Profile // "" means analyze
	Home    string        // the home directory "~" stands for
	FS      FS            // nil: every path is refused, nothing can be resolved
	// Now is the clock that bounds the time a line's patterns take to
	// expand (shell.MaxWalkTime); nil: only their entries are bounded.
	Now func() time.Time
	Obs Observations // nil means nothing observed
	// Personal are the person's own places (NewPersonal of
	// PersonalPlaces), refused as write targets wherever they are; nil:
	// Policy.Personal(Home), the places under Home.
	Personal *Personal
	// Background: the host runs the line in the background (Claude
	// Code's run_in_background, VS Code's isBackground): the Decision
	// says what it may write while it runs (BackgroundWrites).
	Background bool
	// InFlux are the paths (resolved, absolute) that a background
	// command of the session may still change: every access at, under
	// or above one is refused (path-in-flux), a pattern that would list
	// a folder holding one is refused, and git and PATH lookups count
	// them as writes made before the line (flux.go).
	InFlux []string
	// Terminal: the line is typed into a terminal that keeps the folder
	// it leaves the shell in for the next line (VS Code's
	// run_in_terminal). A cd whose effect cannot be followed for certain
	// is refused (cwd.go), and so the Decision's FinalCwd is known for
	// every line it admits.
	Terminal bool
	// Path are the folders of the PATH the command runs with, in order
	// (the variable split at ":"; "" is the working folder). A program
	// name is resolved on it (path.go): one that resolves inside the
	// workspace is a workspace program. nil: the PATH is not known, and
	// a name is taken as the table's program of that name.
	Path []string
	// SecretValues are the names of the variables of the environment
	// the command runs with whose values are credentials by their shape
	// (SecretValueNames): printed (echo $NAME, printenv NAME), each is
	// refused as a variable whose name means a secret is. The values
	// never reach the policy. nil: the environment is not known.
	SecretValues []string
	// Rules are the person's rules, with the repository's ask and deny
	// rules (rules.Merge). Each simple command is matched on its own,
	// wrappers seen through: a deny rule refuses it (rule-denies), an ask
	// rule asks (rule-asks), an allow rule answers only the questions
	// admit asks because it cannot judge what runs (runs-code, network,
	// unsupported-program, git-subcommand: see Decision.Asks), never a
	// refusal. nil: no rules.
	Rules *rules.Set
	// Secrets are the files whose reading asks a person (secret-read);
	// nil: DefaultSecrets.
	Secrets *Secrets
	// Substitutions: admit runs the line itself, under a runner that
	// judges each command again once its words are known, so a command
	// substitution of a judged command that prints names is accepted in
	// an argument (substitute.go); nil elsewhere: dynamic-word.
	Substitutions bool
	// AdmitRuns: admit runs the line itself, confined (admit run, admit/run,
	// a rewritten hook call), so a secret a walk would read is hidden from
	// the run (Decision.Hidden) instead of asked.
	AdmitRuns bool
}

// Decision is the policy's answer about one command line or argv.
type Decision struct {
	Allowed bool
	// Ask is true when the command may run only if a person approves (a
	// repository whose config runs programs, a protected path that asks);
	// Allowed is false then, and Rule and Reason say why.
	Ask    bool
	Rule   rule.Rule // rule.Allowed, or the rule that refused or asks
	Reason string    // written for a model: the program, option, path, and what would be allowed
	Kind   string    // "write" when the command writes (or would, if refused), else "read"
	// Reads are the files whose contents the command reads, Writes the
	// paths it changes, Listed the folders whose listing it shows; all
	// resolved and absolute, for the gate to record observations.
	Reads, Writes, Listed []string
	Hint                  string        // what would be allowed instead, where the policy can tell
	Script                *shell.Script // the parsed line (nil for an argv or a line that did not parse)
	// Intents are what the admitted writes are meant to do, for the run's
	// readback, in the order they were judged.
	Intents []Intent
	// Background: the line, or a command of it (setsid, nohup), runs in
	// the background, and goes on after the call returns.
	Background bool
	// FinalCwd is the folder the line leaves the shell in (resolved),
	// when FinalCwdKnown: every cd of it takes effect for certain (cwd.go).
	FinalCwd      string
	FinalCwdKnown bool
	// BackgroundWrites are the paths (resolved) a background line may
	// change while it runs, for the session to hold as in flux: its
	// writes and the sources it moves, or the roots when a command of it
	// may write anywhere (a workspace program). Set only for a line that
	// is allowed or asked.
	BackgroundWrites []string
	// Asks are the argv (wrappers seen through, as written) of each simple
	// command that asks because admit cannot judge what it runs
	// (runs-code, network, unsupported-program, git-subcommand), in the
	// order judged: an allow rule of the person's over one of them would
	// answer its question. A command that asks for another reason (a
	// protected path, a secret, git's configuration, an ask rule) is not
	// here.
	Asks [][]string
	// AskEffects are the kinds of effect of each command of Asks, as the
	// person's allow rules are matched against them (effects.go).
	AskEffects []rules.Effects
	// Answerable is true when the line asks, and only for the commands in
	// Asks: allow rules for their prefixes would admit the line without a
	// person.
	Answerable bool
	// AllowedBy are the person's allow rules (their match) that answered
	// a question of the line, when Rule is rule-allows.
	AllowedBy []string
	// ShellOnly names what in the line only a shell runs as judged (a
	// loop, a background job, sh -c, a here-document's text as a word):
	// admit's own runner does not, so the host's shell must run it
	// (shell.Script.ShellOnly).
	ShellOnly []string
	// RunsCode are the argv of the simple commands that run code admit
	// cannot judge (toolchains, interpreters, workspace programs, programs
	// in no table, git's asked subcommands), asked or allowed by a rule:
	// a run confines them to the workspace, whatever else they write.
	RunsCode [][]string
	// Hidden are the secret files (resolved) a walk of the line would read
	// (grep -r beside a .env), when admit runs the line: the run reads an
	// empty read-only file in each one's place. A file a command of the
	// line reads by name is not hidden; its reading was judged as such.
	Hidden []string
}

// Policy judges commands against a program table. It is built once and
// is safe for concurrent use.
type Policy struct {
	progs   map[string]*Program
	git     map[string]*Program
	find    map[string]predicate
	gitw    map[string]*gitWrite       // git's subcommands that write (gitwrite.go)
	tools   map[string]*toolchain      // the toolchains (toolchains.go), by name
	toolSet *nameFilter                // tools' names (names.go)
	parsers sync.Pool                  // of *pooled: a parser and its decision's memo
	passes  sync.Pool                  // of *pass, finished
	memos   sync.Pool                  // of *resolveMemo, empty, for EvaluateArgv (memo.go; Evaluate uses its parser's)
	home    atomic.Pointer[homePlaces] // Personal's last answer
}

// homePlaces are the person's places under one home folder.
type homePlaces struct {
	home string
	ps   *Personal
}

// Personal is NewPersonal(PersonalPlaces(home, nil)): the person's places
// under home, without the XDG variables (the gate passes its own in
// Context.Personal). It is made once per home folder and shared.
func (p *Policy) Personal(home string) *Personal {
	if hp := p.home.Load(); hp != nil && hp.home == home {
		return hp.ps
	}
	ps := NewPersonal(PersonalPlaces(home, nil))
	p.home.Store(&homePlaces{home: home, ps: ps})
	return ps
}

// pooled is a shell parser with the home directory it expands "~" to,
// and the resolve memo of the decision that holds it (empty in the pool):
// one pool, not two, for what every Evaluate takes.
type pooled struct {
	home   string
	p      *shell.Parser
	memo   resolveMemo
	values valueSource // the parser's shell.Values during a decision (values.go)
	// passes are the decision's first pass and the one judging the line
	// again (Evaluate); like the memo, they serve one decision at a time.
	passes [2]pass
	// The call in progress, for ExpandLoop: its folder and context, and
	// the walk its patterns share.
	cwd  string
	c    *Context
	walk *shell.Walk
}

// errNoLoopFolder is why a for loop's pattern is not expanded: no file
// system, or a folder outside the workspace.
var errNoLoopFolder = errors.New("the line's folder cannot be listed here")

// ExpandLoop expands the pattern of a for loop's words in the line's
// folder, as expand does a command's (shell.LoopExpander): a name that
// starts with "-" is refused, and the walk's bounds are the line's.
func (pp *pooled) ExpandLoop(value, pattern string) ([]string, error) {
	if pp.c == nil || pp.c.FS == nil || !inside(pp.cwd, pp.c.Roots) {
		return nil, errNoLoopFolder
	}
	if pp.walk == nil {
		pp.walk = &shell.Walk{ReadDir: fluxReadDir(pp.c, &pp.memo), Now: pp.c.Now}
	}
	cmd := shell.Command{Argv: []string{value}, Patterns: []shell.Pattern{{Index: 0, Word: pattern}}}
	if err := shell.ExpandPatterns(&cmd, pp.cwd, pp.walk); err != nil {
		return nil, err
	}
	return cmd.Argv, nil
}

// tables are what a Policy judges by. Nothing writes to them once built,
// so every Policy shares them.
type tables struct {
	progs   map[string]*Program
	git     map[string]*Program
	find    map[string]predicate
	gitw    map[string]*gitWrite
	tools   map[string]*toolchain
	toolSet *nameFilter
}

// builtin is the built-in table and the fixed tables, compiled once per
// process: a gate opened per call (every hook, every case of the corpus)
// compiled them each time.
var builtin = sync.OnceValue(buildTables)

// buildTables builds them; each program's options are indexed on its
// first lookup (optionIndex), which a one-shot process (a hook deciding
// alone, admit run) pays only for the programs of its line.
func buildTables() *tables {
	t := &tables{progs: DefaultTable().Programs, git: gitTable(), gitw: gitWriteTable(), find: findTable(), tools: toolchainTable()}
	t.toolSet = filterOf(t.tools)
	return t
}

// New returns a Policy over t; a nil t is the built-in table.
func New(t *Table) *Policy {
	b := builtin()
	progs := b.progs
	if t != nil {
		if err := t.compile(); err != nil {
			panic("command: " + err.Error()) // ParseTable returns compiled tables
		}
		progs = t.Programs
	}
	return &Policy{progs: progs, git: b.git, gitw: b.gitw, find: b.find, tools: b.tools, toolSet: b.toolSet}
}

// Evaluate judges a command line run in cwd (absolute, resolved).
func (p *Policy) Evaluate(line, cwd string, c *Context) (d Decision) {
	if c == nil {
		c = &Context{}
	}
	pp, _ := p.parsers.Get().(*pooled)
	if pp == nil || pp.home != c.Home {
		pp = &pooled{home: c.Home, p: shell.NewParser(c.Home), memo: resolveMemo{seen: make([]memoEntry, 0, maxMemo)}}
	}
	defer p.doneParser(pp)
	pp.p.Substitutions, pp.p.Lists = c.Substitutions, true
	pp.values.reset(cwd, c)
	pp.p.Values = &pp.values
	pp.cwd, pp.c, pp.walk = cwd, c, nil
	pp.p.Loops = pp
	script, prob := pp.p.Parse(line, c.Profile)
	pp.p.Substitutions, pp.p.Lists, pp.p.Values, pp.p.Loops = false, false, nil, nil
	pp.values.reset("", nil)
	if prob != nil {
		r := prob.Rule
		if r == "" {
			r = rule.ShellSyntax
		}
		return Decision{Rule: r, Reason: prob.Reason, Hint: prob.Hint}
	}
	if script == nil || len(script.Commands) == 0 {
		return Decision{Rule: rule.EmptyCommand, Reason: "the command line has no command", Script: script}
	}
	if c.Profile != shell.Refuse {
		if script, prob = p.unwrapShells(script, c, 0); prob != nil {
			return Decision{Rule: prob.Rule, Reason: prob.Reason, Hint: prob.Hint}
		}
	}
	if c.Profile == shell.Refuse && len(script.Commands) != 1 {
		return Decision{Rule: rule.ShellSyntax, Reason: "the refuse profile accepts one simple command only", Script: script}
	}
	if !inside(cwd, c.Roots) {
		return outsideCwd(cwd, c, script)
	}
	memo := &pp.memo
	walk := pp.walk // made only for a line with patterns to expand; a for loop's made it already
	if walk == nil && c.FS != nil && slices.ContainsFunc(script.Commands, func(cmd shell.Command) bool { return len(cmd.Patterns) > 0 || len(cmd.ZshPatterns) > 0 }) {
		walk = &shell.Walk{ReadDir: fluxReadDir(c, memo), Now: c.Now}
	}
	// The passes live in pp: no pool round trip per pass, and each accum
	// is built where it is used rather than copied in.
	pa := &pp.passes[0]
	pa.start(p, c)
	// Cleared, then set: a 544-byte literal is built aside and copied in.
	pa.acc = accum{}
	pa.acc.memo, pa.acc.walk, pa.acc.written, pa.acc.gitInputs = memo, walk, fluxWrites(c), fluxGitInputs(c)
	p.judgeScript(pa, script, cwd)
	acc := &pa.acc
	acc.patternsRace()
	acc.loopsRace(script.Expanded)
	if !acc.refused && (len(acc.relinked) > 0 || len(acc.gitInputs) > 0 || len(acc.treeChanged) > 0 || acc.readsWrites && len(acc.written) > 0) && len(script.Commands) > 1 {
		// A command that moves or copies links changes where paths lead
		// for the commands of the same line, and one that writes what git
		// reads as configuration changes what git runs; those before it
		// in a pipeline run at the same time. Judge the line again with
		// every such change known from the start.
		// PATH's folders, resolved for this decision, are not resolved again.
		again := &pp.passes[1]
		again.start(p, c)
		again.acc = accum{}
		a := &again.acc
		a.memo, a.relinked, a.gitInputs, a.treeChanged, a.patterns, a.walk, a.written, a.pathDirs = memo, acc.relinked, acc.gitInputs, acc.treeChanged, acc.patterns, walk, acc.written, acc.pathDirs
		p.judgeScript(again, script, cwd)
		pa, acc = again, &again.acc
		acc.patternsRace()
		acc.loopsRace(script.Expanded)
	}
	acc.decide(&d)
	d.Script = script
	d.ShellOnly = script.ShellOnly
	backgroundWrites(&d, acc, c)
	p.finalCwd(&d, acc, cwd, c)
	return d
}

// doneParser empties pp's memo, ending what it knows with its decision,
// and returns pp to the pool.
func (p *Policy) doneParser(pp *pooled) {
	pp.memo.empty()
	pp.c, pp.walk = nil, nil
	p.parsers.Put(pp)
}

// judgeScript judges every command of script, starting in cwd, in the
// pass pa, started and seeded by the caller (relinked: destinations known
// to be moved or copied links, from a first pass). The caller reads the
// pass's accum where it is (not a 600-byte copy per pass).
func (p *Policy) judgeScript(pa *pass, script *shell.Script, cwd string) {
	c := pa.j.c
	pa.j.line = script.Commands
	acc := &pa.acc
	cur := []string{cwd}
	var fallback []string
	acc.final, acc.finalKnown, acc.certainCd = cwd, true, -1
	acc.dirs, acc.seen, acc.stackUnknown = nil, []string{cwd}, false
	for i := range script.Commands {
		cmd := &script.Commands[i]
		switch cmd.Joiner {
		case ";", "||":
			cur = union(cur, fallback)
			fallback = nil
		}
		if len(cur) > maxCwds {
			acc.refuse(rule.ShellSyntax, fmt.Sprintf("the script changes folder too often to follow (more than %d possible working folders); run fewer cd commands", maxCwds), "")
			break
		}
		if !p.expand(cmd, i, cur, c, acc) {
			break
		}
		if cmd.FishArgv != nil && (cmd.Valued != nil || cmd.Read != nil || special(cmd) || len(cmd.Substitutions) > 0 || movesFolder(cmd.Argv[0])) {
			acc.refuse(rule.ShellSyntax, fmt.Sprintf("fish passes the names a pattern of %s matches in another order than bash, and the command is judged in one order only", cmd.Argv[0]), "name the files instead of a pattern")
			break
		}
		var next []string
		for _, dir := range cur {
			j := pa.judge(dir, i, cmd.GlobOptions)
			switch {
			case cmd.Valued != nil && !j.varyingOK(cmd, dir):
			case !j.printedParams(cmd.ParamNames):
			case cmd.Read != nil:
				j.readLoop(cmd)
			case special(cmd):
				j.ordinary(cmd)
			case len(cmd.Substitutions) > 0:
				j.substituted(cmd)
			default:
				j.command(cmd.Argv, cmd.Redirects, 0)
				if cmd.FishArgv != nil && !acc.refused {
					j.command(cmd.FishArgv, cmd.Redirects, 0) // fish passes the names in its own order
				}
			}
			if j.newCwd != "" {
				next = append(next, j.newCwd)
			}
		}
		if acc.refused {
			break
		}
		if len(cmd.Argv) > 0 && movesFolder(cmd.Argv[0]) {
			if cmd.Argv[0] != "popd" {
				p.trackCd(script, i, next, c, acc)
			}
			if !acc.refused {
				if to := p.trackDirs(script, i, cur, next, c, acc); to != nil {
					next = to
				}
			}
			if acc.refused {
				break
			}
		}
		if next != nil {
			if cmd.Subshell {
				// A cd inside ( ) or a pipeline may or may not reach the
				// commands after it: judge them in both folders.
				cur = union(cur, next)
			} else {
				fallback = union(fallback, cur)
				cur = union(nil, next)
			}
		}
	}
}

// expand replaces the patterns of command i (ls *.go) with the names they
// match in the folder it runs in, as bash would, so that the names are
// judged like any other words. It refuses when that folder is not known
// for certain or the expansion cannot be done (see shell.ExpandPatterns).
func (p *Policy) expand(cmd *shell.Command, i int, cwds []string, c *Context, acc *accum) bool {
	if len(cmd.ZshPatterns) > 0 && !zshMatches(cmd, cwds, c, acc) {
		return false
	}
	if len(cmd.Patterns) == 0 {
		return true
	}
	word := cmd.Argv[cmd.Patterns[0].Index]
	if len(cwds) != 1 || c.FS == nil || acc.walk == nil {
		acc.refuse(rule.DynamicWord, fmt.Sprintf("the pattern %q would be expanded in a folder that depends on an earlier cd", word), "name the files instead of a pattern")
		return false
	}
	if err := shell.ExpandPatterns(cmd, cwds[0], acc.walk); err != nil {
		r, hint := rule.DynamicWord, "name the files instead of a pattern"
		if errors.Is(err, errInFlux) {
			r, hint = rule.PathInFlux, "wait until the background command has ended, or name the files"
		} else if errors.Is(err, shell.ErrUnreadable) {
			// bash would follow a link out of the workspace, or read a
			// folder the gate may not list: refused as a path would be.
			r, hint = rule.OutsideWorkspace, "name files inside the workspace instead of a pattern that reaches through a link leading out"
		}
		acc.refuse(r, fmt.Sprintf("the pattern %q cannot be expanded here: %v", word, err), hint)
		return false
	}
	acc.patterns = append(acc.patterns, i)
	return true
}

// zshMatches refuses a command with a word zsh's extendedglob option
// reads as a pattern (cmd.ZshPatterns: cat .en^ reads .env, ^x every
// name but x) where that pattern matches a name in a folder the command
// may run in: zsh would pass names that bash, and the gate, did not see.
// A word that matches nothing makes zsh fail the command, and stays.
func zshMatches(cmd *shell.Command, cwds []string, c *Context, acc *accum) bool {
	for _, zp := range cmd.ZshPatterns {
		word := cmd.Argv[zp.Index]
		if c.FS == nil || acc.walk == nil {
			acc.refuse(rule.ShellSyntax, fmt.Sprintf("zsh with the common extendedglob option reads %q as a pattern, and the folder cannot be listed here", word), hintZshOps)
			return false
		}
		for _, dir := range cwds {
			// bash passes a pattern that matches nothing as written.
			unmatched := unescapeWord(zp.Word)
			probe := shell.Command{Argv: []string{unmatched}, Patterns: []shell.Pattern{{Index: 0, Word: zp.Word}}}
			err := shell.ExpandPatterns(&probe, dir, acc.walk)
			if err == nil && len(probe.Argv) == 1 && probe.Argv[0] == unmatched {
				continue // no name matches
			}
			what := "matches " + strings.Join(probe.Argv[:min(len(probe.Argv), 3)], " ")
			if err != nil {
				what = "cannot be expanded here: " + err.Error()
			}
			acc.refuse(rule.ShellSyntax, fmt.Sprintf("zsh with the common extendedglob option reads %q as a pattern, which %s", word, what), hintZshOps)
			return false
		}
	}
	return true
}

// unescapeWord removes the backslashes of a pattern word.
func unescapeWord(w string) string {
	if !strings.Contains(w, `\`) {
		return w
	}
	b := make([]byte, 0, len(w))
	for i := 0; i < len(w); i++ {
		if w[i] == '\\' && i+1 < len(w) {
			i++
		}
		b = append(b, w[i])
	}
	return string(b)
}

// hintZshOps is what to write instead of an unquoted ^ or # in a word.
const hintZshOps = "quote the ^ and # ('HEAD^'), or name the files"

// patternsRace refuses a line where a command's patterns were expanded
// and another command changes files: bash expands each pattern only when
// its command starts, after the commands before it ran (or while those
// beside it in a pipeline run), so the names could differ from the ones
// judged.
func (a *accum) patternsRace() {
	for _, i := range a.patterns {
		for _, w := range a.writers {
			if w != i {
				a.refuse(rule.DynamicWord, "a pattern is expanded in a line where another command changes files, so it could match other names when it runs", "run the command with the pattern on its own line")
				return
			}
		}
	}
}

// loopsRace refuses a line where a for loop's words came from a pattern
// and a command outside the loop changes files: bash takes the names
// when the loop starts, after the commands before it ran (or while those
// beside it in a pipeline run). The loop's own commands run after.
func (a *accum) loopsRace(loops []shell.Span) {
	for _, l := range loops {
		for _, w := range a.writers {
			if w < l.Start || w >= l.End {
				a.refuse(rule.DynamicWord, "a for loop's pattern is expanded in a line where another command changes files, so it could match other names when it runs", "run the loop on its own line")
				return
			}
		}
	}
}

// EvaluateArgv judges one argv run without a shell in cwd (absolute,
// resolved): every word is literal, except that a leading "~" or "~/"
// stands for the home directory in a path.
func (p *Policy) EvaluateArgv(argv []string, cwd string, c *Context) (d Decision) {
	if c == nil {
		c = &Context{}
	}
	if len(argv) == 0 || argv[0] == "" {
		return Decision{Rule: rule.EmptyCommand, Reason: "the argv has no program"}
	}
	if !inside(cwd, c.Roots) {
		return outsideCwd(cwd, c, nil)
	}
	memo := p.newMemo()
	defer p.doneMemo(memo)
	pa := p.newPass(c, &accum{memo: memo, written: fluxWrites(c), gitInputs: fluxGitInputs(c)})
	j := pa.judge(cwd, 0, nil)
	j.argv = true
	j.command(argv, nil, 0)
	pa.acc.decide(&d)
	backgroundWrites(&d, &pa.acc, c)
	d.FinalCwd, d.FinalCwdKnown = cwd, true // an argv runs no cd
	p.done(pa)
	return d
}

// pass is one judging of a line: what it gathers, and the judge that
// judges each of its commands in turn. The rules are called through the
// dispatch tables (rules.go), so the judge they are handed lives on the
// heap: one judge serves every command of a pass, and a finished pass is
// reused (Policy.passes for EvaluateArgv, pooled.passes for Evaluate).
type pass struct {
	acc accum
	j   judge
}

func (p *Policy) newPass(c *Context, seed *accum) *pass {
	pa, _ := p.passes.Get().(*pass)
	if pa == nil {
		pa = new(pass)
	}
	pa.acc = *seed
	pa.start(p, c)
	return pa
}

// start readies pa's judge for a pass of p under c; the caller sets its
// accum whole.
func (pa *pass) start(p *Policy, c *Context) {
	// A folder found clean stays so: it is compared by its text. The
	// accesses' array is reused (judgeParsed).
	clean, acs := pa.j.cleanCwd, pa.j.words.acs[:0]
	pa.j = judge{}
	pa.j.p, pa.j.c, pa.j.acc, pa.j.cleanCwd, pa.j.words.acs = p, c, &pa.acc, clean, acs
}

// done returns a finished pass, whose accum the caller is done reading;
// none of the accum's slices point into the pass, so a Decision made from
// it outlives it. It is not cleared here:
// newPass sets both its fields whole before any use, and clearing 1 KB
// of pointers twice per pass was 1.5% of a decision (the pool lets go of
// what it holds within two collections).
func (p *Policy) done(pa *pass) {
	p.passes.Put(pa)
}

// judge readies the pass's judge for command cmd in the folder cwd.
func (pa *pass) judge(cwd string, cmd int, globs []int) *judge {
	j := &pa.j
	j.cwd, j.cmd, j.globs, j.newCwd, j.argv, j.inGit = cwd, cmd, globs, "", false, false
	return j
}

// outsideCwd refuses a command run from a folder outside the roots: even
// a command that names no path (git status, ls) would look there.
func outsideCwd(cwd string, c *Context, script *shell.Script) Decision {
	return Decision{Rule: rule.OutsideWorkspace, Kind: "read", Script: script,
		Reason: fmt.Sprintf("the working folder %q is outside the workspace (%s)", cwd, strings.Join(c.Roots, ", ")),
		Hint:   "run the command from a folder inside the workspace"}
}

// accum gathers the judgement of every part of a script: the first
// refusal wins; an ask stands unless something refuses.
type accum struct {
	// memo is the decision's answers of FS.Resolve (memo.go), shared by
	// its passes.
	memo *resolveMemo
	// relinked are the paths earlier commands of the line move or copy
	// links (or folders that may hold links) to; see judge.relinks.
	relinked []relink
	// gitInputs are writes to files git may read as configuration or
	// repository shape, by command index; see judge.noteGitInput.
	gitInputs []gitInput
	walk      *shell.Walk // the line's pattern expansion and its bound
	written   []lineWrite // every admitted write, by command (path.go)
	// readsWrites: a command's judgment depends on written (git, a PATH
	// lookup): judge the line again.
	readsWrites    bool
	pathDirs       []string // Context.Path's absolute folders, each resolved when a lookup reaches it (pathDir)
	writesAnywhere bool     // a command may write anywhere (a workspace program)
	background     bool     // a command runs in the background (setsid, nohup)
	final          string   // the folder the line leaves the shell in, when finalKnown (cwd.go)
	finalKnown     bool
	certainCd      int         // the index of the last cd whose effect is certain
	dirs           []pushedDir // the folders the line's pushd left, on its folder stack (cwd.go)
	seen           []string    // every folder the line may have been in
	stackUnknown   bool        // the folder stack may hold what the line did not push
	writers        []int       // the commands that change files, by index
	patterns       []int       // the commands whose patterns were expanded
	refused        bool
	ask            bool // a question no rule of the person's answers
	rule           rule.Rule
	reason, hint   string
	// code is the first question asked because admit cannot judge what
	// runs (see judge.asksCode); an allow rule of the person's would
	// answer it. codeArgv are the commands that asked so, allowedBy the
	// allow rules that answered such a question.
	code                 bool
	codeRule             rule.Rule
	codeReason, codeHint string
	codeArgv             [][]string
	codeEffects          []rules.Effects // each codeArgv's kinds of effect (effects.go)
	allowedBy            []string
	runsCode             [][]string
	// treeChanged are the working trees a git command of the line changes
	// (checkout, pull, stash pop, ...): see judge.treeChangedAt.
	treeChanged          []relink
	write                bool
	reads, writes, lists []string
	intents              []Intent
	hidden               []string // secret files a walk reads, for the run to hide (Decision.Hidden)
}

func (a *accum) refuse(r rule.Rule, reason, hint string) {
	if a.refused {
		return
	}
	a.refused, a.rule, a.reason, a.hint = true, r, reason, hint
}

func (a *accum) asks(r rule.Rule, reason, hint string) {
	if a.refused || a.ask {
		return
	}
	a.ask, a.rule, a.reason, a.hint = true, r, reason, hint
}

// asksCode records a question that an allow rule over argv would answer.
func (a *accum) asksCode(r rule.Rule, argv []string, eff rules.Effects, reason, hint string) {
	if a.refused {
		return
	}
	if k := slices.IndexFunc(a.codeArgv, func(have []string) bool { return slices.Equal(have, argv) }); k >= 0 {
		// Asked again (a runner and what it runs): one question, with
		// the effects of both.
		a.codeEffects[k] = mergeEffects(a.codeEffects[k], eff)
	} else {
		a.codeArgv = append(a.codeArgv, slices.Clone(argv))
		a.codeEffects = append(a.codeEffects, eff)
	}
	if a.code {
		return
	}
	a.code, a.codeRule, a.codeReason, a.codeHint = true, r, reason, hint
}

// answered records that the allow rule match answered a question.
func (a *accum) answered(match string) {
	if !slices.Contains(a.allowedBy, match) {
		a.allowedBy = append(a.allowedBy, match)
	}
}

func (a *accum) decision() Decision {
	var d Decision
	a.decide(&d)
	return d
}

// decide fills d (zero) with the decision: in place, since Evaluate
// returns it, not a copy of a 400-byte Decision made here.
func (a *accum) decide(d *Decision) {
	d.Kind, d.Reads, d.Writes, d.Listed, d.RunsCode = "read", a.reads, a.writes, a.lists, a.runsCode
	if len(a.intents) > 0 {
		d.Intents = a.intents
	}
	for _, h := range a.hidden {
		if !slices.Contains(a.reads, h) {
			d.Hidden = append(d.Hidden, h)
		}
	}
	if a.write {
		d.Kind = "write"
	}
	switch {
	case a.refused:
		d.Rule, d.Reason, d.Hint = a.rule, a.reason, a.hint
	case a.ask:
		d.Ask, d.Rule, d.Reason, d.Hint = true, a.rule, a.reason, a.hint
		d.Asks, d.AskEffects = a.codeArgv, a.codeEffects
	case a.code:
		d.Ask, d.Rule, d.Reason, d.Hint = true, a.codeRule, a.codeReason, a.codeHint
		d.Asks, d.AskEffects, d.Answerable = a.codeArgv, a.codeEffects, true
	case len(a.allowedBy) > 0:
		d.Allowed, d.Rule, d.AllowedBy = true, rule.RuleAllows, a.allowedBy
		d.Reason = "every command and redirection is allowed; what admit cannot judge, the person's rules allow (" + strings.Join(quoteAll(a.allowedBy), ", ") + ")"
	default:
		d.Allowed, d.Rule = true, rule.Allowed
		d.Reason = "every command and redirection is allowed"
	}
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func addPath(list []string, p string) []string {
	if slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}

func union(a, b []string) []string {
	out := a[:len(a):len(a)]
	for _, s := range b {
		out = addPath(out, s)
	}
	return out
}
