package command

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Arg says whether an option takes a value and what the value is.
type Arg int

const (
	// NoArg is a flag: it takes no value.
	NoArg Arg = iota
	// TextArg takes a value that is not a path (a number, a pattern, a format).
	TextArg
	// ReadArg takes a value that is a path the program reads.
	ReadArg
	// WriteArg takes a value that is a path the program writes.
	WriteArg
	// OptionalArg takes a value only when it is attached (--opt=value,
	// -ovalue), as getopt's optional arguments do. The value is not a path.
	OptionalArg
)

var argNames = map[Arg]string{NoArg: "", TextArg: "text", ReadArg: "read", WriteArg: "write", OptionalArg: "text?"}

// Operands says what a program's operands (the words that are not options) are.
type Operands int

const (
	// ReadOperands are paths the program reads ("-" is standard input).
	ReadOperands Operands = iota
	// WriteOperands are paths the program changes (creates, truncates, removes).
	WriteOperands
	// TextOperands are not paths (echo's words, basename's names).
	TextOperands
	// ListOperands are folders the program lists (ls, du, tree); the
	// current folder when there are none.
	ListOperands
)

var operandNames = map[Operands]string{ReadOperands: "read", WriteOperands: "write", TextOperands: "text", ListOperands: "list"}

// Option is one option of a program, under all its spellings.
type Option struct {
	// Names are the spellings, separated by spaces: "-n --lines". A short
	// option is one dash and one character; a long one starts with "--".
	Names string
	// Arg is whether the option takes a value, and what the value is.
	Arg Arg
	// Refuse, when not empty, refuses the option (rule forbidden-flag);
	// it says why and what to do instead, for the model to read.
	Refuse string
	// Mark is a tag the program's own rules look at: "recursive" (the
	// program walks folders), "follow" (and follows symlinks while it
	// does), "list" (git branch/tag list mode), "nofollow-off" (the
	// program follows a final symlink), "pattern" (the pattern is given
	// by the option, so the first operand is a path), "dironly" (ls -d),
	// "reference" (date -r: a path whose metadata is looked at).
	Mark string
}

// Program is one program the policy knows, as data: its options (an
// accept-list: an option that is not listed is refused) and what its
// operands are.
type Program struct {
	Name string
	// Write is true for programs that change files: they need the
	// workspace-write effect mode and every target is judged as a change.
	Write bool
	// Operands is what the operands are.
	Operands Operands
	// FirstOperand, when set, is what the first operand is instead (grep's
	// pattern, printf's format): TextOperands, or ReadOperands.
	FirstOperand *Operands
	// Options is the accept-list of options.
	Options []Option
	// Digits accepts -NUM (head -5, git log -3) as a whole word.
	Digits bool
	// ExactLong turns off GNU's unambiguous prefixes of long options
	// (--outp for --output): git and tree spell them out.
	ExactLong bool
	// NoOptions makes every word an operand (echo prints "-x").
	NoOptions bool
	// Wrapper programs run the rest of their argv as a command, which is
	// judged in turn (timeout, nice, env). CommandAfter is how many
	// operands come before the command (timeout's DURATION is 1).
	Wrapper      bool
	CommandAfter int
	// Assignments lets a wrapper take NAME=value words before the command
	// (env). They change the environment of the command, so they are
	// refused unless declared.
	Assignments bool

	// rules names the built-in rules of this program, a key of
	// programRules ("git", "find", "test", "cp", ...): DefaultTable's
	// entries, or an entry of the policy file that names one. Without it
	// a program is judged by its options and operands alone.
	rules string
	// intent is what a write program's operands are meant to become
	// (mkdir: folders), for a program without rules; only DefaultTable
	// sets it, since a policy file's write program may as well remove
	// them.
	intent Op
	// rule is programRules[rules], looked up once by compile.
	rule programRule

	// idx is the options by spelling (index). A copy of a Program with
	// other Options must not keep it: clone and DefaultTable's aliases
	// reset it.
	idx *optionIndex
}

// optionIndex is a program's options by spelling. The built-in tables
// build it on a program's first lookup, not when the table is built: a
// one-shot process (a hook deciding alone, admit run) looks up a few
// programs, and indexing all of them cost it more than its decision.
// TestBuiltinTablesCompile indexes every entry, so a bad spelling in them
// fails a test rather than a decision.
type optionIndex struct {
	once  sync.Once
	short map[byte]*Option
	long  map[string]*Option
	longs []string // sorted long names, for prefix matching
	err   error
}

// Table is a set of programs by name.
type Table struct {
	Programs map[string]*Program
}

// compile checks the rules of every program and indexes the options of
// each that has no index yet (one built by hand, or read from a policy
// file). It fails on a spelling that is not an option or is given twice,
// and on rules that name no family of programRules.
func (t *Table) compile() error { return t.prepare(true) }

// prepare is compile that, unless eager, leaves each entry's options to
// be indexed on its first lookup (optionIndex): DefaultTable's entries.
func (t *Table) prepare(eager bool) error {
	var slab []optionIndex // the lazy indexes, in one allocation
	if !eager {
		n := 0
		for _, p := range t.Programs {
			if p != nil && p.idx == nil {
				n++
			}
		}
		slab = make([]optionIndex, n)
	}
	for name, p := range t.Programs {
		if p == nil {
			delete(t.Programs, name)
			continue
		}
		rule, ok := programRules[p.rules]
		if p.rules != "" && !ok {
			return fmt.Errorf("programs.%s.rules: %q is not one of the built-in rules (%s)", name, p.rules, ruleNames())
		}
		p.rule = rule
		switch {
		case p.idx != nil:
		case eager:
			if err := p.compile(); err != nil {
				return err
			}
		default:
			p.idx, slab = &slab[0], slab[1:]
		}
	}
	return nil
}

// compile indexes p's options now, so that a policy file's error is
// reported when the file is read.
func (p *Program) compile() error {
	ix := &optionIndex{}
	ix.once.Do(func() { ix.err = ix.build(p) })
	p.idx = ix
	return ix.err
}

// index is p's options by spelling. An entry whose options do not index
// (which TestBuiltinTablesCompile rules out for the built-in tables)
// accepts none, and index says why.
func (p *Program) index() *optionIndex {
	ix := p.idx
	if ix == nil {
		// A program made for one check (find's -newer as test, the
		// assignments of env): indexed for this lookup only.
		ix = &optionIndex{}
		ix.err = ix.build(p)
		return ix
	}
	ix.once.Do(func() { ix.err = ix.build(p) })
	return ix
}

// build indexes p's options; on an error the index holds none.
func (ix *optionIndex) build(p *Program) error {
	if len(p.Options) == 0 {
		return nil
	}
	// Sized first: most programs have a few dozen spellings, and a map
	// grown from empty costs several allocations on the way.
	nShort, nLong := 0, 0
	for i := range p.Options {
		for n := range strings.FieldsSeq(p.Options[i].Names) {
			if strings.HasPrefix(n, "--") {
				nLong++
			} else {
				nShort++
			}
		}
	}
	short := make(map[byte]*Option, nShort)
	long := make(map[string]*Option, nLong)
	longs := make([]string, 0, nLong)
	for i := range p.Options {
		o := &p.Options[i]
		for n := range strings.FieldsSeq(o.Names) {
			switch {
			case strings.HasPrefix(n, "--") && len(n) > 2:
				if _, dup := long[n[2:]]; dup {
					return fmt.Errorf("programs.%s.options: %q is given twice", p.Name, n)
				}
				long[n[2:]] = o
				longs = append(longs, n[2:])
			case len(n) == 2 && n[0] == '-' && n[1] != '-':
				if _, dup := short[n[1]]; dup {
					return fmt.Errorf("programs.%s.options: %q is given twice", p.Name, n)
				}
				short[n[1]] = o
			default:
				return fmt.Errorf("programs.%s.options: %q is not an option spelling (use -x or --name)", p.Name, n)
			}
		}
	}
	sort.Strings(longs)
	ix.short, ix.long, ix.longs = short, long, longs
	return nil
}

// clone copies a table so a merge never changes the built-in one.
func (t *Table) clone() *Table {
	c := &Table{Programs: make(map[string]*Program, len(t.Programs))}
	for k, v := range t.Programs {
		cp := *v // shares v's index: the same options
		c.Programs[k] = &cp
	}
	return c
}

func operandsPtr(o Operands) *Operands { return &o }
