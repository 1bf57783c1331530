package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// man, apropos and whatis (and col, which man's output is piped into) read the system's manual pages and their
// index. man renders a page through groff (nroff, tbl, preconv), found
// on the call's PATH, and on a terminal host pipes it into a pager
// ($MANPAGER, $PAGER, else less, or Debian's pager), found there too: a
// workspace's program of one of those names first on PATH would run,
// and is asked as git's pager is (gitPager). man-db also looks for pages
// beside each PATH folder (DIR/../share/man, DIR/../man, DIR/man): a
// workspace's would be rendered, and groff's .so request reads any file a
// page names, so a PATH folder of the workspace with such a folder beside
// it is asked too. A page named by a path (man ./x.1, -l) is refused for
// the same reason, as are the options that name a program (-P, -p, -H's
// browser, -X), pages' folders (-M) or man's configuration (-C).

// manPrograms are man, apropos and whatis.
func manPrograms() []Program {
	return []Program{
		{Name: "man", rules: "man", Operands: TextOperands, Options: []Option{
			{Names: "-a --all"}, {Names: "-f --whatis", Mark: "printonly"}, {Names: "-k --apropos", Mark: "printonly"}, {Names: "-K --global-apropos"},
			{Names: "-w --where --path --location", Mark: "printonly"}, {Names: "-W --where-cat --location-cat", Mark: "printonly"},
			{Names: "-s -S --sections", Arg: TextArg}, {Names: "-L --locale", Arg: TextArg}, {Names: "-m --systems", Arg: TextArg},
			{Names: "-e --extension", Arg: TextArg}, {Names: "-E --encoding", Arg: TextArg}, {Names: "-r --prompt", Arg: TextArg},
			{Names: "-i --ignore-case"}, {Names: "-I --match-case"}, {Names: "--regex"}, {Names: "--wildcard"}, {Names: "--names-only"},
			{Names: "-n --no-subpages"}, {Names: "--nh --no-hyphenation"}, {Names: "--nj --no-justification"}, {Names: "-7 --ascii"},
			{Names: "-h --help", Mark: "printonly"}, {Names: "-V --version", Mark: "printonly"},
			{Names: "-P --pager", Arg: TextArg, Refuse: "names the program man runs as its pager"},
			{Names: "-p --preprocessor", Arg: TextArg, Refuse: "names the preprocessors man runs"},
			{Names: "-H --html", Arg: OptionalArg, Refuse: "starts a web browser"},
			{Names: "-X --gxditview", Arg: OptionalArg, Refuse: "starts an X program"},
			{Names: "-l --local-file", Refuse: "renders a file through groff, whose .so request reads any file the page names; read the file with cat"},
			{Names: "-M --manpath", Arg: TextArg, Refuse: "renders pages from the folders named, through groff, whose .so request reads any file a page names"},
			{Names: "-C --config-file", Arg: TextArg, Refuse: "reads a configuration that names the programs man runs"},
		}},
		{Name: "apropos", Operands: TextOperands, Options: manIndexOptions()},
		// col -b: what man ls | col -b pipes a page through, to drop the
		// backspaces; it reads standard input alone.
		{Name: "col", Operands: TextOperands, rules: "nooperands", Options: []Option{
			{Names: "-b --no-backspaces"}, {Names: "-f --fine"}, {Names: "-h --tabs"}, {Names: "-x --spaces"}, {Names: "-p --pass"},
			{Names: "-l --lines", Arg: TextArg}, {Names: "-H --help"}, {Names: "-V --version"},
		}},
		{Name: "whatis", Operands: TextOperands, Options: manIndexOptions()},
	}
}

// manIndexOptions are the options apropos and whatis share: a search of
// the pages' index, printed.
func manIndexOptions() []Option {
	return []Option{
		{Names: "-a --and"}, {Names: "-e --exact"}, {Names: "-w --wildcard"}, {Names: "-r --regex"}, {Names: "-l --long"},
		{Names: "-s --sections --section", Arg: TextArg}, {Names: "-L --locale", Arg: TextArg}, {Names: "-m --systems", Arg: TextArg},
		{Names: "-h --help"}, {Names: "-V --version"},
		{Names: "-M --manpath", Arg: TextArg, Refuse: "reads the index of the folders named"},
		{Names: "-C --config-file", Arg: TextArg, Refuse: "reads a configuration man's programs follow"},
	}
}

// manRenders are the programs man starts by name to render a page.
var manRenders = []string{"groff", "nroff", "tbl", "preconv", "eqn", "col"}

// man judges man's operands (sections and page names) and the programs
// it starts.
func (j *judge) man(w *words) {
	for _, o := range w.ops {
		if strings.Contains(o, "/") {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("man %q renders the file through groff, whose .so request reads any file the page names", o),
				"read the file with cat, or name a manual page (man ls)")
			return
		}
	}
	if w.ps.has("printonly") != nil {
		return // printed from the index or as paths: nothing rendered or paged
	}
	if !j.manPagesOnPath() {
		return
	}
	for _, h := range manRenders {
		if !j.helperOnPath([]string{h}) {
			return
		}
	}
	if (j.c.Terminal || j.c.Profile.Interactive()) && !j.stdoutNotTerminal() {
		for _, h := range []string{"less", "pager"} {
			if !j.helperOnPath([]string{h}) {
				return
			}
		}
	}
}

// manPagesOnPath asks when a folder of the call's PATH inside the
// workspace has manual pages beside it, which man-db would render.
func (j *judge) manPagesOnPath() bool {
	if j.c.FS == nil {
		return true
	}
	for _, d := range j.c.Path {
		if d == "" {
			d = "."
		}
		dir := j.cleanAbs(d)
		r, ok := j.quietResolve(dir)
		if !ok || !inside(r.Path, j.c.Roots) {
			continue
		}
		for _, m := range []string{path.Join(dir, "../share/man"), path.Join(dir, "../man"), path.Join(dir, "man")} {
			if mr, ok := j.quietResolve(m); ok && mr.Exists {
				j.acc.asks(rule.RunsCode, fmt.Sprintf("man looks for pages beside each PATH folder, and %s of the workspace would be rendered through groff, whose .so request reads any file a page names", m),
					"take the workspace's folder off PATH, or read the page's source with cat")
				return false
			}
		}
	}
	return true
}
