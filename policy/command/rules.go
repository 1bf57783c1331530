package command

import (
	"fmt"
	"slices"
	"strings"

	"admit/policy/rule"
)

// A programRule is the built-in knowledge of one family of programs, the
// value of a Program's rules name. Exactly one of its functions is set.
type programRule struct {
	// argv judges the whole argv with the rule's own parser (git, find,
	// test, printf): the option table is not used, and so an option value
	// with a pattern cannot be judged as text.
	argv func(j *judge, prog *Program, argv []string)
	// operands adds the accesses of a program whose options the table
	// parses: what its operands and marked options name.
	operands func(j *judge, w *words)
}

// programRules are the rule families by name: a program of the table
// names one in its rules (DefaultTable, or "rules" in the policy file),
// or none, and is then judged by its options and operands alone
// (plainOperands). Each family lives in a file of its own.
var programRules = map[string]programRule{
	"git":        {argv: (*judge).git},       // git.go
	"find":       {argv: (*judge).find},      // find.go
	"test":       {argv: (*judge).test},      // find.go
	"printf":     {argv: (*judge).printf},    // text.go
	"grep":       {operands: (*judge).grep},  // grep.go
	"rg":         {operands: (*judge).rg},    // grep.go
	"sed":        {operands: (*judge).sed},   // sed.go
	"awk":        {operands: (*judge).awk},   // awk.go
	"uniq":       {operands: (*judge).uniq},  // text.go
	"cmp":        {operands: (*judge).cmp},   // text.go
	"diff":       {operands: (*judge).diff},  // text.go
	"date":       {operands: (*judge).date},  // text.go
	"names":      {operands: (*judge).names}, // text.go
	"nooperands": {operands: (*judge).noOperands},
	"ls":         {operands: (*judge).ls},         // listing.go
	"tree":       {operands: (*judge).tree},       // listing.go
	"probe":      {operands: (*judge).probe},      // listing.go
	"cp":         {operands: (*judge).copy},       // copy.go
	"mv":         {operands: (*judge).copy},       // copy.go
	"rm":         {operands: (*judge).remove},     // writes.go
	"touch":      {operands: (*judge).touch},      // writes.go
	"jq":         {argv: (*judge).jq},             // probes.go
	"command":    {argv: (*judge).commandBuiltin}, // probes.go
	"printenv":   {operands: (*judge).printenv},   // probes.go
	"ps":         {operands: (*judge).ps},         // probes.go
	"df":         {operands: (*judge).df},         // probes.go
	"xargs":      {argv: (*judge).xargs},          // xargs.go
	"dd":         {operands: (*judge).dd},         // dd.go
	"seq":        {operands: (*judge).seq},        // devices.go
	"strings":    {operands: (*judge).strings},    // readers.go
	"xxd":        {argv: (*judge).xxd},            // readers.go
	"pager":      {operands: (*judge).pager},      // readers.go
	"fd":         {operands: (*judge).fd},         // archives.go
	"yq":         {operands: (*judge).yq},         // archives.go
	"tar":        {argv: (*judge).tar},            // archives.go
	"unzip":      {argv: (*judge).unzip},          // archives.go
	"ln":         {argv: (*judge).ln},             // ln.go
	"man":        {operands: (*judge).man},        // man.go
}

// ruleNames lists the rule families, sorted, for errors.
func ruleNames() string {
	names := make([]string, 0, len(programRules))
	for n := range programRules {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// words is one program's argv as its option table parsed it, and what the
// program's rule makes of it: the paths it touches, and the folders it
// walks while following symlinks.
type words struct {
	prog      *Program
	ps        parsed
	ops       []string // every operand
	first     int      // 1 when the first operand is a pattern, a script or a mode, not a path
	acs       []access
	follow    []string  // folders walked while following symlinks
	followOpt string    // the option that follows them
	skip      walkSkips // a repository's files the program's walks leave out (gitwalk.go)
	walks     bool      // a folder operand is read whole, every file under it (walksecrets.go)
}

func (w *words) add(a access) { w.acs = append(w.acs, a) }

// files are the operands after a leading pattern or script.
func (w *words) files() []string { return w.ops[w.first:] }

// follows notes that dirs are walked following symlinks, when an option
// marked "follow" is given.
func (w *words) follows(dirs []string) {
	if u := w.ps.has("follow"); u != nil {
		w.follow, w.followOpt = dirs, u.name
	}
}

// judgeParsed judges a program whose options the table parsed: a refused
// option first, then every path its options and operands name (by its
// rule), then the symlinks under the folders it walks following them.
func (j *judge) judgeParsed(prog *Program, ps parsed, rule programRule) {
	if j.refusedOption(prog, &ps) {
		return
	}
	// The last command's accesses are done with: their array is reused
	// (the pass is pooled), not grown again from nothing per command.
	acs := optionAccesses(j.words.acs[:0], ps, true)
	j.words = words{prog: prog, ps: ps, ops: ps.operands, acs: acs}
	w := &j.words
	if prog.FirstOperand != nil && len(w.ops) > 0 && ps.has("pattern") == nil {
		w.first = 1
		if *prog.FirstOperand == ReadOperands {
			w.add(access{word: w.ops[0], what: "operand", mode: modeRead})
		}
	}
	operands := rule.operands
	if operands == nil {
		operands = (*judge).plainOperands
	}
	operands(j, w)
	if j.acc.refused {
		return
	}
	j.check(prog, w.acs)
	if j.acc.refused || w.followOpt == "" {
		return
	}
	j.linksOutside(prog.Name, w.followOpt, w.follow)
}

// plainOperands judges the operands of a program without rules by what
// its table entry says they are. A write program's operands are meant to
// be what its entry's intent says (mkdir makes folders); a program from
// the policy file has none, since its operands may be created, changed or
// removed.
func (j *judge) plainOperands(w *words) {
	ops := w.ops
	if w.prog.Operands == ListOperands && len(ops) == 0 {
		ops = []string{"."}
	}
	for _, o := range ops[w.first:] {
		switch w.prog.Operands {
		case ReadOperands:
			w.add(access{word: o, what: "operand", mode: modeRead})
		case WriteOperands:
			w.add(access{word: o, what: "operand", mode: modeWrite, target: true, op: w.prog.intent})
		case ListOperands:
			w.add(access{word: o, what: "operand", mode: modeList})
		}
	}
	w.follows(ops)
}

// refusedOption refuses the first option ps uses that the table refuses.
func (j *judge) refusedOption(prog *Program, ps *parsed) bool {
	for _, u := range ps.opts {
		if u.opt != nil && u.opt.Refuse != "" {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of %s is refused: it %s", u.name, prog.Name, u.opt.Refuse), "leave out "+u.name)
			return true
		}
	}
	return false
}

// optionAccesses appends to acs the paths the parsed options read and write. A
// write option marked "target" (cp -t) names where operands go and is
// judged with them when skipTargets is set. A path an option writes
// (sort -o) exists once the program ran.
func optionAccesses(acs []access, ps parsed, skipTargets bool) []access {
	for _, u := range ps.opts {
		if u.opt == nil {
			continue
		}
		switch {
		case u.opt.Arg == ReadArg:
			acs = append(acs, access{word: u.value, what: "option " + u.name, mode: modeRead})
		case u.opt.Arg == WriteArg && !(skipTargets && u.opt.Mark == "target"):
			acs = append(acs, access{word: u.value, what: "option " + u.name, mode: modeWrite, op: OpChange})
		}
	}
	return acs
}

// hasName reports whether an option was given under the spelling name
// (long names are spelt out in full by the parser).
func hasName(ps *parsed, name string) bool {
	for _, u := range ps.opts {
		if u.name == name {
			return true
		}
	}
	return false
}
