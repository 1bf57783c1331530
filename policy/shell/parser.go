package shell

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxBraceWords caps what one word may brace-expand to. Agents write
// src/{a,b} or {1..3}; a word that expands to hundreds of arguments is not
// something a person can review in an approval prompt, and {1..100000} is
// a cheap way to make the gate allocate.
const maxBraceWords = 256

// maxLineBraceWords caps the words all brace expansions of one line may
// add, so a line of many small expansions cannot build a huge argv.
const maxLineBraceWords = 1024

// maxBraces caps the "{" of one word. Real commands use one or two; the
// cost of expanding nested braces grows with the cube of their number.
const maxBraces = 32

// Parser reduces command lines to Scripts. It keeps one syntax.Parser and
// scratch buffers between calls, so it is not safe for concurrent use:
// callers pool Parsers, one per goroutine.
type Parser struct {
	// Substitutions keeps a command substitution that is a whole word of a
	// command's arguments, $(INNER) with INNER one simple command of
	// literal words, as a Substitution instead of refusing it; analyze
	// profile only. Set it only where the line runs under a runner that
	// judges each command again once its words are known (admit's own):
	// the shape is all that is known before.
	Substitutions bool
	// Lists keeps a command substitution that is a whole unquoted word of
	// a command's arguments, or a for loop's only word, $(LIST) with LIST
	// one simple command, in every profile but the refuse one, where the
	// host's shell runs the line: LIST becomes a command of the line
	// before it, as the left side of a pipe, and the word ReadValue, its
	// Command.Read saying LIST gives the names (Split). The command policy
	// judges it as LIST | xargs COMMAND (lists.go). Substitutions, where
	// set, comes first.
	Lists bool
	// Values, when set, gives the output of the $(COMMAND) words whose
	// output the caller knows when the line is judged (values.go); every
	// other command substitution is a dynamic word. Set per call: its
	// answers hold for one working folder and one moment.
	Values Values
	// Loops expands the patterns of a for loop's words (for f in *.go);
	// nil refuses such a loop. It is called during Parse.
	Loops LoopExpander

	home string
	sp   *syntax.Parser
	rd   strings.Reader

	// State of the call in progress; reset by Parse.
	line        string
	prof        Profile // the profile of the call; "" is Analyze
	inter       bool    // prof.interactive(), asked per word: kept beside prof
	strict      bool    // the refuse profile's check: name what analyze would accept
	ps          problems
	hints       []string     // what to write instead, one per kind of refusal that has one
	pipeLeft    int          // how many pipelines' left sides the walk is in
	pipeLast    bool         // in the last element of a pipeline
	groupDepth  int          // how many ( ) and { } groups the walk is in
	braceWord   *syntax.Word // the word being brace-expanded, if any
	braceWords  int          // words brace expansion added in this call
	cmds        []Command
	argvSlab    []string     // room for the argvs of analyze's line, counted by commandsOf
	inArgs      bool         // judging a command's arguments, not a redirection
	globWord    bool         // the last word literal accepted was an option-value glob
	globs       []int        // argv indexes of such words in the call in progress
	patWord     string       // the last word literal accepted was this pattern
	patterns    []Pattern    // the pattern words of the call in progress
	feed        int          // the command whose output feeds the pipeline's next element, or -1 (readloop.go)
	loopStmt    *syntax.Stmt // the statement of the compound command loop is flattening
	fedStmt     *syntax.Stmt // the loop statement whose < <(LIST) is judged as LIST | loop (fedLoop)
	loopList    bool         // judging a for loop's words, where a pattern is expanded by Loops
	expanded    []Span       // the commands of for loops over a pattern (Script.Expanded)
	zshPatWord  string       // the last word literal accepted is a pattern by zsh's ^ or # alone (zshOperators)
	zshPats     []Pattern    // such words of the call in progress
	textPattern bool         // judging a pattern matched against text ([[ x == *.go ]], case): not a name on disk
	textRegex   bool         // that pattern is a regular expression (=~)
	hereWord    bool         // judging a here-string's word: no pathname expansion applies
	printing    bool         // in an argument of echo or printf, where a plain $NAME is kept
	params      []string     // the names of the $NAME kept in the call in progress
	inDouble    bool         // judging the parts of a double-quoted string
	feeders     [][]string   // the cat commands of literal $(cat <<'EOF') words in the call in progress
	bound       []binding    // the loop variables in scope, innermost last (loops.go)
	loopAdded   int          // commands the loops of this call added (loops.go)
	shellOnly   []string     // constructs only a shell runs (Script.ShellOnly)
	exported    []string     // NAME=value of the export builtins in scope: the later commands' environment (export.go)
	known       []knownSub   // the substitutions of the call in progress whose value Values gave (values.go)
	valued      [][]string   // their commands
	varyWord    *Varying     // the last word literal accepted holds a value with a Shape
	varying     []Varying    // such words of the call in progress
	pieces      []piece
	val         []byte
	pat         []byte
}

// piece is a run of one word after quotes are resolved: raw is unquoted
// shell text with its backslashes still in it, otherwise s is literal.
type piece struct {
	s     string
	raw   bool
	shape func(string) bool // a known command output that may change before the line runs (values.go)
}

// NewParser returns a Parser. home is the home directory a leading "~"
// expands to; with home empty, every tilde expansion is a dynamic word.
func NewParser(home string) *Parser {
	return &Parser{
		home: home,
		// Comments are not kept: analyze ignores them and refuse finds
		// them in the tokenizer, before the syntax tree is built.
		sp: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)),
	}
}

// Parse reduces line to the simple commands it would run, or says why it
// cannot. The zero Profile is Analyze; an unknown one is refused, since a
// caller that names a profile this package does not know expects something
// stricter than the default, or made a mistake.
func (p *Parser) Parse(line string, profile Profile) (*Script, *Problem) {
	if profile == Portable {
		return p.portable(line)
	}
	p.ps.reset()
	p.hints = p.hints[:0]
	p.line = line
	p.cmds = nil
	p.strict = false
	p.braceWords = 0
	p.prof, p.inter = profile, profile.interactive()
	p.pipeLeft, p.pipeLast, p.groupDepth, p.feed, p.loopStmt = 0, false, 0, -1, nil
	p.inDouble, p.feeders, p.bound, p.loopAdded, p.shellOnly, p.exported, p.expanded = false, nil, nil, 0, nil, nil, nil
	var (
		script *Script
		prob   *Problem
	)
	switch profile {
	case Analyze, "":
		p.prof, p.inter = Analyze, false
		script, prob = p.analyze(line)
	case Refuse:
		script, prob = p.refuse(line)
	case BashInteractive, Zsh, Fish:
		// What the terminal and the shell's history do to the typed
		// text comes first; the line is then judged as bash -c reads it,
		// with the shell's own differences checked on the way.
		p.scanTyped(line)
		script, prob = p.analyze(line)
	default:
		p.ps.add(classSyntax, "unknown shell profile", string(profile))
		prob = p.ps.problem()
	}
	if prob != nil {
		prob.Hint = p.hint()
	}
	return script, prob
}

// portable admits line only if every shell of portableShells does, each
// judging it as bash -c reads it plus its own differences; the Script is
// the first one's (the walk is analyze's, the same for all three). A
// refusal names the items of every shell that refused, each saying which
// shell it is, so the model learns every construct to leave out at once.
func (p *Parser) portable(line string) (*Script, *Problem) {
	var (
		first  *Script
		merged *Problem
		seen   map[string]bool // merged's items; made on the first refusal
	)
	for _, prof := range portableShells {
		script, prob := p.Parse(line, prof)
		if prob == nil {
			// zsh alone may read a word as a pattern (^ or #): its script
			// has that word's Pattern, so the names are judged.
			if first == nil || prof == Zsh && zshPatterns(script) {
				first = script
			}
			continue
		}
		if merged == nil {
			merged, seen = prob, make(map[string]bool, len(prob.Items))
			for _, it := range prob.Items {
				seen[it] = true
			}
			continue
		}
		// The first refusal's rule stands unless a later one is worse:
		// syntax outranks a dynamic word, which outranks an empty line.
		if rank(prob.Rule) < rank(merged.Rule) {
			merged.Rule = prob.Rule
		}
		added := false
		for _, it := range prob.Items {
			if !seen[it] && len(merged.Items) < maxItems {
				seen[it] = true
				merged.Items = append(merged.Items, it)
				added = true
			}
		}
		if added {
			merged.Reason = leadOf(merged.Rule) + strings.Join(merged.Items, ", ")
		}
		if prob.Hint != hintPlain && !strings.Contains(merged.Hint, prob.Hint) {
			if merged.Hint == hintPlain {
				merged.Hint = prob.Hint
			} else {
				merged.Hint += "; " + prob.Hint
			}
		}
	}
	if merged != nil {
		return nil, merged
	}
	for i := range first.Commands {
		first.Commands[i].SortedByFish = len(first.Commands[i].Patterns) > 0 // as fish's script has it
	}
	return first, nil
}

// refuse accepts one simple command of literal words. The POSIX tokenizer
// (refuse.go) decides first, so its refusals name the character; a line it lets through is
// then parsed as bash would, and anything bash reads differently from the
// tokenizer (a reserved word, an assignment prefix, a "!") is refused too.
func (p *Parser) refuse(line string) (*Script, *Problem) {
	tokens := tokenize(line, &p.ps)
	if !p.ps.empty() {
		return nil, p.ps.problem()
	}
	if len(tokens) == 0 {
		p.ps.add(classEmpty, "the line is empty", "")
		return nil, p.ps.problem()
	}
	p.strict = true
	script, prob := p.analyze(line)
	if prob != nil {
		return nil, prob
	}
	if len(script.Commands) != 1 || !slices.Equal(script.Commands[0].Argv, tokens) ||
		len(script.Commands[0].Redirects) != 0 {
		p.ps.add(classSyntax, "words the shell reads differently from their text", line)
		return nil, p.ps.problem()
	}
	return script, nil
}

// lastOfPipe is the last element of the pipeline s is, or s.
func lastOfPipe(s *syntax.Stmt) *syntax.Stmt {
	for {
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			return s
		}
		s = b.Y
	}
}

// maxPresized bounds commandsOf's count: a longer line grows its
// commands by append, as it would without the count.
const maxPresized = 8

// commandsOf counts the simple commands of list's and-or lists, pipelines
// and groups (any other compound command counts one), n counted before,
// up to maxPresized: the commands are then one allocation for most lines,
// not one per doubling of a 300-byte Command. The tree is at hand, so
// this is a few type switches where scanning the line's bytes was 2% of
// a decision. args counts the words of the simple commands counted, so
// that their argvs are one allocation too (argvSlab).
func commandsOf(list []*syntax.Stmt, n int, args *int) int {
	for _, s := range list {
		n = commandsOfCmd(s.Cmd, n, args)
	}
	return n
}

func commandsOfCmd(c syntax.Command, n int, args *int) int {
	if n >= maxPresized {
		return n
	}
	switch c := c.(type) {
	case *syntax.BinaryCmd:
		return commandsOfCmd(c.Y.Cmd, commandsOfCmd(c.X.Cmd, n, args), args)
	case *syntax.Subshell:
		return commandsOf(c.Stmts, n, args)
	case *syntax.Block:
		return commandsOf(c.Stmts, n, args)
	case *syntax.CallExpr:
		*args += len(c.Args)
	}
	return n + 1
}

// scriptOf1 is a Script and its one command, made together for the
// common line of one simple command.
type scriptOf1 struct {
	s   Script
	one [1]Command
}

func (p *Parser) analyze(line string) (*Script, *Problem) {
	// mvdan's lexer drops NUL bytes and reads a carriage return as a blank;
	// bash keeps a carriage return inside the word, and no argv can carry a
	// NUL. Either way the tree would not be what runs, so stop here.
	nul, cr := strings.IndexByte(line, 0) >= 0, strings.IndexByte(line, '\r') >= 0
	if nul {
		p.ps.add(classSyntax, "NUL byte", "")
	}
	if cr {
		p.ps.add(classSyntax, "carriage return", "\r")
	}
	if nul || cr {
		return nil, p.ps.problem()
	}
	p.rd.Reset(line)
	f, err := p.sp.Parse(&p.rd, "")
	if err != nil {
		var pe syntax.ParseError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Error()
		}
		// The whole message, uncut: it carries the position.
		p.ps.addItem(classSyntax, "the line does not parse: "+msg)
		return nil, p.ps.problem()
	}
	if len(f.Stmts) == 0 {
		p.ps.add(classEmpty, "the line has only blanks or comments", "")
		return nil, p.ps.problem()
	}
	args := 0
	var script *Script
	if n := commandsOf(f.Stmts, 0, &args); n == 1 {
		b := new(scriptOf1)
		script, p.cmds = &b.s, b.one[:0:1]
	} else {
		script, p.cmds = new(Script), make([]Command, 0, n)
	}
	if args > 1 {
		p.argvSlab = make([]string, 0, args)
	}
	p.stmts(f.Stmts, "", false)
	p.argvSlab = nil
	if p.ps.empty() && len(p.cmds) == 0 {
		// Every statement ran nothing (a loop over no words): the same
		// Problem whatever the body was.
		p.ps.add(classEmpty, "the line runs no command", "")
	}
	if !p.ps.empty() {
		return nil, p.ps.problem()
	}
	*script = Script{Commands: p.cmds, ShellOnly: p.shellOnly, Expanded: p.expanded}
	return script, nil
}

// stmts flattens a list of statements; the first takes joiner, the rest
// are joined by ";" (a newline and a semicolon mean the same).
func (p *Parser) stmts(list []*syntax.Stmt, joiner string, sub bool) {
	for i, s := range list {
		j := ";"
		if i == 0 {
			j = joiner
		}
		p.stmt(s, j, sub)
	}
}

// stmt appends the simple commands of s to p.cmds. It returns the index of
// the first command of the last element of s if s is a pipeline (of s
// itself otherwise): the commands whose stderr a following "|&" joins to
// the pipe.
func (p *Parser) stmt(s *syntax.Stmt, joiner string, sub bool) int {
	if s.Background && p.strict {
		p.ps.add(classSyntax, "background", "&")
	}
	if s.Coprocess || s.Disown {
		p.ps.add(classSyntax, "job control", p.src(s))
	}
	if s.Negated && p.strict {
		p.ps.add(classSyntax, "negation", "!")
	}
	if p.inter {
		p.checkStmt(s)
	}
	start, tail := len(p.cmds), len(p.cmds)
	var fed *syntax.Redirect // a loop's < <(LIST), judged as LIST | loop
	if s.Background {
		// cmd &: a subshell, whose exports end with it.
		defer p.keepExports()()
	}
	switch c := s.Cmd.(type) {
	case nil:
		p.ps.add(classSyntax, "redirection without a command", p.src(s))
	case *syntax.CallExpr:
		p.call(c, joiner, sub)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			p.stmt(c.X, joiner, sub)
			p.stmt(c.Y, c.Op.String(), sub)
		case syntax.Pipe, syntax.PipeAll:
			last := p.pipeLast
			p.pipeLeft++
			p.pipeLast = false
			// Each side of a pipeline is a subshell: an export in it ends with it.
			restore := p.keepExports()
			xtail := p.stmt(c.X, joiner, true)
			restore()
			p.pipeLeft--
			feed := -1
			if _, one := lastOfPipe(c.X).Cmd.(*syntax.CallExpr); one && len(p.cmds) > 0 {
				feed = len(p.cmds) - 1
			}
			if c.Op == syntax.PipeAll {
				// "a |& b" is "a 2>&1 | b", the 2>&1 done after a's own
				// redirections.
				for i := xtail; i < len(p.cmds); i++ {
					p.cmds[i].Redirects = append(p.cmds[i].Redirects, Redirect{Fd: 2, Op: "|&"})
				}
			}
			p.pipeLast = p.pipeLeft == 0
			p.feed = feed
			ystart := len(p.cmds)
			tail = p.stmt(c.Y, "|", true)
			p.feed = -1
			if feed >= 0 && ystart < len(p.cmds) {
				p.cmds[ystart].Fed = true
			}
			restore()
			p.pipeLast = last
		default:
			p.ps.add(classSyntax, "shell operator", c.Op.String())
		}
	case *syntax.Subshell:
		restore := p.keepExports()
		p.groupDepth++
		p.stmts(c.Stmts, joiner, true)
		p.groupDepth--
		restore()
	case *syntax.DeclClause:
		if !p.export(c, joiner, sub) {
			p.compound(c)
		}
	case *syntax.Block:
		p.groupDepth++
		p.stmts(c.Stmts, joiner, sub)
		p.groupDepth--
	default:
		was := p.loopStmt
		p.loopStmt = s
		if fed = p.fedLoop(s); fed != nil {
			// while read ...; done < <(LIST): judged as LIST | while
			// read ..., the loop in this shell (no subshell, as bash runs it).
			joiner = p.procLists([][]*syntax.Stmt{fed.Word.Parts[0].(*syntax.ProcSubst).Stmts}, "process substitution", joiner)
			p.feed, p.fedStmt = len(p.cmds)-1, s
			start = len(p.cmds)
		}
		if !p.loop(c, joiner, sub) {
			p.compound(c)
		}
		if fed != nil && start < len(p.cmds) {
			p.cmds[start].Fed = true
		}
		if fed != nil {
			p.feed, p.fedStmt = -1, nil
		}
		p.loopStmt = was
	}
	for i := start; i < len(p.cmds); i++ {
		if argv := p.cmds[i].Argv; len(argv) > 0 && (argv[0] == "pushd" || argv[0] == "popd" || argv[0] == "dirs") {
			// admit's runner keeps no folder stack as bash does (its cd
			// leaves the stack's top as it was), so popd would go back
			// elsewhere than judged: the host's shell runs these.
			p.noteShellOnly("the folder stack (pushd, popd, dirs)")
		}
	}
	if s.Background && !p.strict {
		// cmd &: judged as it is, and the command policy knows it goes on
		// after the line (Command.Background).
		for i := start; i < len(p.cmds); i++ {
			p.cmds[i].Background = true
		}
		p.noteShellOnly("background job")
	}
	// The statement's own redirections apply to every command in it, and
	// before any redirection written inside it: bash opens the outer ones
	// first. They are converted after the body so problems are named in
	// the order they are written.
	if len(s.Redirs) > 0 {
		var own []Redirect
		for _, r := range s.Redirs {
			if r == fed {
				continue // the loop's producer, judged as a pipe
			}
			if rd, ok := p.redirect(r); ok {
				own = append(own, rd)
			}
		}
		for i := start; i < len(p.cmds); i++ {
			p.cmds[i].Redirects = slices.Concat(own, p.cmds[i].Redirects)
		}
	}
	return tail
}

// call appends one simple command.
func (p *Parser) call(c *syntax.CallExpr, joiner string, sub bool) {
	env, eok := p.assigns(c)
	if len(c.Args) == 0 {
		return
	}
	name := wordLit(c.Args[0]) // "" unless a plain literal; walked once for the checks below
	if len(p.exported) > 0 && name != "cd" {
		// What an earlier export set reaches this command as its own
		// assignments would (cd, a builtin, gets none: export.go).
		env = slices.Concat(p.exported, env)
	}
	var argv []string
	if n, used := len(c.Args), len(p.argvSlab); cap(p.argvSlab)-used >= n {
		// Capped: a word expanding to more grows this argv alone.
		argv, p.argvSlab = p.argvSlab[used:used:used+n], p.argvSlab[:used+n]
	} else {
		argv = make([]string, 0, n)
	}
	ok := eok
	p.inArgs, p.globs, p.patterns, p.params, p.feeders = true, nil, nil, nil, nil
	p.zshPats, p.zshPatWord = nil, ""
	p.known, p.valued, p.varying = p.known[:0], nil, nil
	// The words only known when the line runs, rare: in a struct too big
	// for registers, so the loop below does not spill and reload them
	// for every word.
	var late struct {
		subs, pids []Substitution
		params     []int
		procs      []*syntax.ProcSubst
		printed    [][]*syntax.Stmt
		list       []*syntax.Stmt
	}
	printing := p.printsParams(name)
	killing := p.killsPids(name)
	for k, w := range c.Args {
		// The words below are each one whole $(…), "$(…)" or <(…), never
		// the name: a plain word (most of them) skips the four tests.
		if k > 0 && len(w.Parts) == 1 && !isLit(w.Parts[0]) {
			if inner := p.pidSubstitution(killing, k, w); inner != nil {
				words, wok := p.innerWords(inner)
				ok = ok && wok
				late.pids = append(late.pids, Substitution{Index: len(argv), Argv: words})
				argv = append(argv, p.src(w))
				continue
			}
			if list := p.printedSubst(name, k, w); list != nil {
				// echo "$(LIST)": LIST's output is only printed; judged as
				// LIST | echo, the word standing as text.
				late.printed = append(late.printed, list)
				argv = append(argv, "output")
				continue
			}
			if ps := p.procSubst(k, w); ps != nil {
				// <(LIST): the shell passes a pipe it reads LIST's output
				// from; judged as LIST | COMMAND reading its standard input.
				late.procs = append(late.procs, ps)
				argv = append(argv, "/dev/stdin")
				continue
			}
			if list := p.listSubst(k, w); list != nil && !p.knownWord(w) {
				// COMMAND $(LIST): judged as LIST | xargs COMMAND (lists.go).
				if late.list != nil {
					p.ps.add(classDynamic, "second command substitution of a list in one command", p.src(w))
					ok = false
				}
				late.list = list
				argv = append(argv, ReadValue)
				continue
			}
			if inner := p.substitution(k, w); inner != nil && !p.knownWord(w) {
				words, wok := p.innerWords(inner)
				ok = ok && wok
				late.subs = append(late.subs, Substitution{Index: len(argv), Argv: words})
				argv = append(argv, p.src(w))
				continue
			}
		}
		var wok bool
		kept, before := len(p.params), len(argv)
		p.printing = printing && k > 0
		argv, wok = p.fields(argv, w, true)
		p.printing = false
		ok = ok && wok
		if len(p.params) > kept {
			for i := before; i < len(argv); i++ {
				late.params = append(late.params, i)
			}
		}
	}
	p.inArgs = false
	if !ok {
		return
	}
	if (len(late.subs) > 0 || len(late.params) > 0) && len(p.patterns) > 0 {
		// Expanding the pattern would move the words only known when the
		// line runs.
		p.ps.add(classDynamic, "unquoted pattern beside a word only known when the line runs", p.src(c))
		return
	}
	if len(argv) == 0 || argv[0] == "" {
		// '' names no program; {,} expands to no word at all.
		p.ps.add(classEmpty, "empty command name", p.src(c.Args[0]))
		return
	}
	if len(p.patterns) > 0 && p.patterns[0].Index == 0 || len(p.zshPats) > 0 && p.zshPats[0].Index == 0 {
		// The program's own name is never left to the file system.
		p.ps.add(classDynamic, "unquoted pattern as the program name", p.src(c.Args[0]))
		return
	}
	if p.inter {
		if src := p.src(c.Args[0]); (p.prof == Zsh || p.prof == Fish) && (strings.HasPrefix(src, "{") || strings.HasPrefix(src, "}")) {
			p.refuseAs("brace at the start of a command", src, "reads it as the start or end of a { } group", hintCommandName)
		}
		p.checkCommand(argv)
		if p.prof == Zsh && p.pipeLast && (len(p.patterns) > 0 || len(p.globs) > 0) && (zshRunsInShell[argv[0]] || p.groupDepth > 0) {
			p.refuseAs("pattern in the last command of a pipeline", p.src(c), "runs it in the shell itself, and when the pattern matches nothing it stops without waiting for the commands before it, which go on running after the call", hintPattern)
		}
	}
	if len(late.pids) > 0 && len(p.patterns) > 0 {
		p.ps.add(classDynamic, "unquoted pattern beside a word only known when the line runs", p.src(c))
		return
	}
	if len(p.varying) > 0 && (len(p.patterns) > 0 || len(late.subs) > 0 || len(late.params) > 0) {
		p.ps.add(classDynamic, "command substitution whose output may change before the line runs, beside a word only known when it runs", p.src(c))
		return
	}
	if len(late.procs) > 0 || len(late.printed) > 0 {
		lists := late.printed
		for _, ps := range late.procs {
			lists = append(lists, ps.Stmts)
		}
		what := "process substitution"
		if len(late.procs) == 0 {
			what = "command substitution"
		}
		joiner, sub = p.procLists(lists, what, joiner), true
	}
	var read *ReadLoop
	if late.list != nil {
		if read = p.listProducer(late.list, joiner); read == nil {
			return
		}
		joiner, sub = "|", true
	}
	cmd := p.newCommand()
	cmd.Argv, cmd.Joiner, cmd.Subshell = argv, joiner, sub
	// Most commands have none of these: a pointer left nil is not stored.
	if p.globs != nil {
		cmd.GlobOptions = p.globs
	}
	if p.patterns != nil {
		cmd.Patterns, cmd.SortedByFish = p.patterns, p.prof == Fish
	}
	if p.zshPats != nil {
		cmd.ZshPatterns = p.zshPats
	}
	if late.subs != nil {
		cmd.Substitutions = late.subs
	}
	if late.params != nil {
		cmd.Params = late.params
	}
	if p.params != nil {
		cmd.ParamNames = p.params
	}
	if env != nil {
		cmd.Env = env
	}
	if p.feeders != nil {
		cmd.Feeders = p.feeders
	}
	if late.pids != nil {
		cmd.Pids = late.pids
	}
	if read != nil {
		cmd.Read = read
	}
	if p.valued != nil {
		cmd.Valued = &Valued{Commands: p.valued, Varying: p.varying}
	}
	p.feeders, p.valued, p.varying = nil, nil, nil
}

// printsParams reports a command named name (its first word's Lit)
// whose arguments may hold a plain $NAME or $?: echo and printf only
// print them. In zsh and fish too, which do not split an unquoted one
// (zsh's echo reads backslashes in it, fish's variables are its own):
// only the text printed differs. Their scans refuse what follows a name
// as more than text ($NAME[1], $NAME:u) and $? (fish's is $status). Not
// for the refuse profile.
func (p *Parser) printsParams(name string) bool {
	return (name == "echo" || name == "printf") && !p.strict
}

// plainParam reports $NAME, ${NAME} or $?: the value of a variable and
// nothing else (no default words, slices, replacements, indirection or
// zsh flags, which could hide more syntax).
func plainParam(x *syntax.ParamExp) bool {
	if x.Param == nil || x.Flags != nil || x.Excl || x.Length || x.Width || x.IsSet ||
		x.Split != syntax.OptUnset || x.GlobSubst != syntax.OptUnset || x.RcExpand != syntax.OptUnset ||
		x.NestedParam != nil || x.Index != nil || len(x.Modifiers) > 0 || x.Slice != nil || x.Repl != nil || x.Names != 0 || x.Exp != nil {
		return false
	}
	name := x.Param.Value
	if name == "?" {
		return true
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return name != ""
}

// defaultedParam reports ${NAME:-word}, ${NAME-word}, ${NAME:+word} or
// ${NAME+word} whose word is plain text: echo prints the variable or the
// text, nothing more. A word with a pattern, a tilde, an escape or an
// expansion of its own is not plain, since the shell would expand it.
func defaultedParam(x *syntax.ParamExp) bool {
	if x.Exp == nil || x.Exp.Word == nil {
		return false
	}
	switch x.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
	default:
		return false
	}
	for _, part := range x.Exp.Word.Parts {
		switch w := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(w.Value, "*?[]{}~\\$`") {
				return false
			}
		case *syntax.SglQuoted:
			if w.Dollar {
				return false
			}
		default:
			return false
		}
	}
	bare := *x
	bare.Exp = nil
	return plainParam(&bare)
}

// substitution is the command inside w when Substitutions is set and w,
// the k-th word of a command (never its name), is one whole $(INNER) of
// one simple command without assignments or redirections: nil otherwise,
// and w is then judged (and refused) as any other word. `INNER` is not
// kept: backslashes inside backquotes are read twice. Nor is "$(INNER)":
// quoted, the output is one word holding every name and its newlines.
func (p *Parser) substitution(k int, w *syntax.Word) *syntax.CallExpr {
	if !p.Substitutions || p.prof != Analyze || p.strict || k == 0 {
		return nil
	}
	return oneCommandSubstitution(w)
}

// innerWords are the literal words of a substitution's command. A word
// of it that is not literal (a nested substitution) or a pattern is a
// problem, as anywhere else.
func (p *Parser) innerWords(c *syntax.CallExpr) ([]string, bool) {
	globs, patterns, zshPats := p.globs, p.patterns, p.zshPats
	p.globs, p.patterns, p.zshPats = nil, nil, nil
	defer func() { p.globs, p.patterns, p.zshPats = globs, patterns, zshPats }()
	var argv []string
	ok := true
	for _, w := range c.Args {
		var wok bool
		argv, wok = p.fields(argv, w, true)
		ok = ok && wok
	}
	if !ok {
		return nil, false
	}
	if len(p.globs) > 0 || len(p.patterns) > 0 || len(p.zshPats) > 0 {
		p.ps.add(classDynamic, "unquoted pattern inside a command substitution", p.src(c))
		return nil, false
	}
	if len(argv) == 0 || argv[0] == "" {
		p.ps.add(classEmpty, "empty command name", p.src(c))
		return nil, false
	}
	return argv, true
}

// compound names a command this package refuses to flatten (loops,
// conditionals, function definitions, builtins with their own syntax),
// and the dynamic words inside it, so one reason says all of it.
func (p *Parser) compound(c syntax.Command) {
	var name string
	switch c := c.(type) {
	case *syntax.IfClause:
		name = "if clause"
	case *syntax.WhileClause:
		name = "while loop"
		if c.Until {
			name = "until loop"
		}
	case *syntax.ForClause:
		name = "for loop"
		if c.Select {
			name = "select loop"
		}
	case *syntax.CaseClause:
		name = "case clause"
	case *syntax.FuncDecl:
		name = "function definition"
	case *syntax.ArithmCmd:
		name = "arithmetic command"
	case *syntax.TestClause:
		name = "test clause"
	case *syntax.DeclClause:
		name = "declaration builtin"
	case *syntax.LetClause:
		name = "let builtin"
	case *syntax.TimeClause:
		name = "time clause"
	case *syntax.CoprocClause:
		name = "coproc clause"
	default:
		name = "shell construct"
	}
	p.ps.add(classSyntax, name, p.src(c))
	syntax.Walk(c, func(n syntax.Node) bool {
		if n == nil {
			return true
		}
		if part, ok := n.(syntax.WordPart); ok {
			return p.part(part)
		}
		return true
	})
}

// redirect converts one redirection; ok is false when it was reported as
// a problem instead.
func (p *Parser) redirect(r *syntax.Redirect) (Redirect, bool) {
	var rd Redirect
	if p.inter {
		p.checkRedirect(r)
	}
	prefix := ""
	explicitFd := -1
	if r.N != nil {
		prefix = r.N.Value
		if !allDigits(prefix) {
			// {name}>file: bash picks the descriptor at run time and
			// stores it in a variable.
			p.ps.add(classDynamic, "dynamic file descriptor", p.src(r))
			return rd, false
		}
		n, err := strconv.Atoi(prefix)
		if err != nil || n > 1<<20 {
			p.ps.add(classSyntax, "file descriptor out of range", p.src(r))
			return rd, false
		}
		explicitFd = n
	}
	op := r.Op.String()
	rd.Op = prefix + op
	fd := func(def int) int {
		if explicitFd >= 0 {
			return explicitFd
		}
		return def
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll:
		rd.Fd, rd.Write = fd(1), true
	case syntax.RdrIn:
		rd.Fd, rd.Read = fd(0), true
	case syntax.RdrInOut:
		rd.Fd, rd.Read, rd.Write = fd(0), true, true
	case syntax.DplIn, syntax.DplOut:
		def := 1
		if r.Op == syntax.DplIn {
			def = 0
		}
		rd.Fd = fd(def)
		v, ok := p.target(r)
		if !ok {
			return rd, false
		}
		if v == "-" || allDigits(v) || (len(v) > 1 && strings.HasSuffix(v, "-") && allDigits(v[:len(v)-1])) {
			// A duplication (2>&1), a move (2>&1-) or a close (>&-):
			// no file is opened.
			rd.Op += v
			return rd, true
		}
		if r.Op == syntax.DplIn {
			p.ps.add(classSyntax, "input duplication from a file", p.src(r))
			return rd, false
		}
		// bash reads ">&file" as "&>file", and "2>&file" as "2>file".
		rd.Target, rd.Write = v, true
		return rd, true
	case syntax.Hdoc, syntax.DashHdoc:
		rd.Fd = fd(0)
		// A quoted delimiter leaves the body one literal; an unquoted one
		// lets $ and backquotes run, and mvdan parses them into parts.
		if r.Hdoc != nil && !p.parts(r.Hdoc.Parts) {
			return rd, false
		}
		rd.Text = hdocText(r)
		return rd, true
	case syntax.WordHdoc:
		rd.Fd = fd(0)
		// A here-string is not split, brace-expanded or globbed, but its
		// tilde is expanded, and zsh expands its =name as in any word
		// (<<<=ls is /usr/bin/ls): literal judges it as a word but for
		// patterns.
		if !p.parts(r.Word.Parts) {
			return rd, false
		}
		p.hereWord = true
		text, _, ok := p.literal(r.Word, r.Word.Parts, false)
		p.hereWord = false
		if !ok {
			return rd, false
		}
		rd.Text = text + "\n"
		return rd, true
	default:
		p.ps.add(classSyntax, "redirection", p.src(r))
		return rd, false
	}
	v, ok := p.target(r)
	if !ok {
		return rd, false
	}
	rd.Target = v
	return rd, true
}

// target is the one literal word a redirection opens.
func (p *Parser) target(r *syntax.Redirect) (string, bool) {
	var buf [1]string
	vals, ok := p.fields(buf[:0], r.Word, false)
	if !ok {
		return "", false
	}
	if len(vals) != 1 {
		p.ps.add(classSyntax, "ambiguous redirection", p.src(r))
		return "", false
	}
	if vals[0] == "" {
		// bash fails to open it; and an empty Target means "no file" to
		// the callers, so it must never reach them.
		p.ps.add(classSyntax, "redirection to an empty name", p.src(r))
		return "", false
	}
	return vals[0], true
}

// src is the text n was written as.
func (p *Parser) src(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(p.line) || start >= end {
		return ""
	}
	return p.line[start:end]
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// oneCommandSubstitution is the one simple command of literal words, with
// no assignment or redirection, that w holds whole as $(COMMAND), or nil.
func oneCommandSubstitution(w *syntax.Word) *syntax.CallExpr {
	if len(w.Parts) != 1 {
		return nil
	}
	cs, ok := w.Parts[0].(*syntax.CmdSubst)
	if !ok || cs.Backquotes || cs.TempFile || cs.ReplyVar || len(cs.Stmts) != 1 {
		return nil
	}
	s := cs.Stmts[0]
	if s.Negated || s.Background || s.Coprocess || s.Disown || len(s.Redirs) > 0 {
		return nil
	}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil
	}
	return call
}

// newCommand appends a zero Command to p.cmds and returns it, for the
// caller to set the fields it has. Appending a whole literal copies the
// Command's thirty-odd pointer words, each under a write barrier while
// the collector runs; the slot past the length is already zero, since
// p.cmds only grows within a parse (make and growslice zero the spare
// capacity).
func (p *Parser) newCommand() *Command {
	if len(p.cmds) == cap(p.cmds) {
		p.cmds = slices.Grow(p.cmds, 1)
	}
	p.cmds = p.cmds[:len(p.cmds)+1]
	return &p.cmds[len(p.cmds)-1]
}

// isLit reports a word part that is plain text.
func isLit(part syntax.WordPart) bool {
	_, ok := part.(*syntax.Lit)
	return ok
}

// wordLit is w.Lit(), without its slice and join for the usual word of
// one literal part.
func wordLit(w *syntax.Word) string {
	if len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok {
			return lit.Value
		}
		return ""
	}
	return w.Lit()
}
