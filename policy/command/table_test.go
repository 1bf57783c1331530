package command

import (
	"strings"
	"sync"
	"testing"
)

// TestBuiltinTablesCompile indexes every entry of the built-in tables (the
// programs, git's read and write subcommands): they are indexed on their
// first lookup, so an entry with a bad spelling would otherwise fail only
// the decision that looks it up. It used to panic when the tables were
// built; it fails here instead.
func TestBuiltinTablesCompile(t *testing.T) {
	b := buildTables()
	check := func(what string, p *Program) {
		t.Helper()
		if err := p.compile(); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		if len(p.Options) > 0 && len(p.idx.short)+len(p.idx.long) == 0 {
			t.Errorf("%s: %d options and no spelling indexed", what, len(p.Options))
		}
	}
	for name, p := range DefaultTable().Programs {
		check("programs."+name, p)
	}
	for name, p := range b.git {
		check("git "+name, p)
	}
	for name, w := range b.gitw {
		check("git write "+name, w.prog)
	}
	if n := len(b.progs); n < 80 {
		t.Errorf("the built-in table has %d programs, want the 80 or more of DefaultTable", n)
	}
}

// TestTableCompileErrors: a spelling that is not an option, or one given
// twice, is an error naming the program and the spelling, from compile
// (a policy file is read) and, for an entry indexed on first lookup,
// from the lookup: every option is then refused, and says why.
func TestTableCompileErrors(t *testing.T) {
	for _, c := range []struct{ names, want string }{
		{"-n --lines -n", `programs.x.options: "-n" is given twice`},
		{"--all --all", `programs.x.options: "--all" is given twice`},
		{"-nn", `programs.x.options: "-nn" is not an option spelling`},
		{"lines", `programs.x.options: "lines" is not an option spelling`},
	} {
		bad := func() *Program { return &Program{Name: "x", Options: []Option{{Names: "-a"}, {Names: c.names}}} }
		tab := &Table{Programs: map[string]*Program{"x": bad()}}
		if err := tab.compile(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: compile: %v, want %s", c.names, err, c.want)
		}
		p := bad()
		p.idx = &optionIndex{} // as the built-in tables' entries: indexed on first lookup
		for _, argv := range [][]string{{"-a"}, {"--all"}} {
			_, oe := parseArgs(p, argv, false)
			if oe == nil || !strings.Contains(oe.reason, c.want) {
				t.Errorf("%q: parse %v: %v, want a refusal naming %s", c.names, argv, oe, c.want)
			}
		}
	}
}

// TestLazyIndexConcurrent: readers of a shared table index an entry once,
// together, and all see the same options (run with -race to check the
// index is published safely).
func TestLazyIndexConcurrent(t *testing.T) {
	tab := DefaultTable()
	p := tab.Programs["ls"]
	var wg sync.WaitGroup
	got := make([]*Option, 8)
	for i := range got {
		wg.Go(func() {
			ps, oe := parseArgs(p, []string{"-la", "--all", "x"}, false)
			if oe != nil || len(ps.opts) != 3 {
				t.Errorf("ls -la --all x: %v %v", ps.opts, oe)
				return
			}
			got[i] = ps.opts[2].opt
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] == nil || got[i] != got[0] {
			t.Fatalf("reader %d saw option %p, reader 0 %p", i, got[i], got[0])
		}
	}
}
