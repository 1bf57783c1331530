package command

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"admit/policy/rule"
)

// Read programs agents reach for beside the core ones: the hash sums,
// strings, xxd, the decompressing cats and greps, and the pagers less
// and more (which copy their files to standard output when it is not a
// terminal). fd, yq, tar and unzip are in archives.go.

const whyCheckList = "reads a list of file names from the checksum file; hash the files by name instead"

// hashSum is a GNU hash program's entry (md5sum, sha256sum, b2sum, ...),
// with extra options of its own.
func hashSum(name string, extra ...Option) Program {
	return Program{Name: name, Options: append([]Option{
		{Names: "-b --binary"}, {Names: "-t --text"}, {Names: "-z --zero"}, {Names: "--tag"}, {Names: "--help --version"},
		{Names: "-c --check", Refuse: whyCheckList},
		{Names: "--ignore-missing --quiet --status --strict -w --warn", Refuse: "only matters with --check, which reads a list of file names"},
	}, extra...)}
}

// lessOptions are less's options that change how it shows a file. Those
// that write (-o, -O: a log file), read keys or tags that run commands
// (-k, --lesskey-*, -t, -T) or reset options (-+) are not among them.
func lessOptions() []Option {
	return []Option{
		{Names: "-N --LINE-NUMBERS -n --line-numbers -R --RAW-CONTROL-CHARS -r --raw-control-chars -S --chop-long-lines"},
		{Names: "-X --no-init -F --quit-if-one-screen -i --ignore-case -I --IGNORE-CASE -M --LONG-PROMPT -m --long-prompt"},
		{Names: "-E --QUIT-AT-EOF -e --quit-at-eof -s --squeeze-blank-lines -~ --tilde -g --hilite-search -G --HILITE-SEARCH"},
		{Names: "-q --quiet --silent -Q --QUIET --SILENT -w --hilite-unread -W --HILITE-UNREAD -K --quit-on-intr -L --no-lessopen"},
		{Names: "-a --search-skip-screen -A --SEARCH-SKIP-SCREEN -c --clear-screen -C --CLEAR-SCREEN -d --dumb -f --force"},
		{Names: "-J --status-column -u --underline-special -U --UNDERLINE-SPECIAL --mouse --no-keypad --incsearch --use-color"},
		{Names: "--no-histdups --save-marks --wordwrap --redraw-on-quit --no-vbell --no-number-headers --status-line"},
		{Names: "-z --window -x --tabs -j --jump-target -h --max-back-scroll -y --max-forw-scroll -b --buffers -# --shift", Arg: TextArg},
		{Names: "-P --prompt -D --color --header --line-num-width --status-col-width --rscroll --intr", Arg: TextArg},
		{Names: "-V --version -? --help"},
		{Names: "-o --log-file -O --LOG-FILE", Arg: TextArg, Refuse: "copies what it shows into a file"},
		{Names: "-k --lesskey-file --lesskey-src --lesskey-content", Arg: TextArg, Refuse: "reads key bindings (and variables such as LESSOPEN) from a file"},
		{Names: "-t --tag -T --tag-file", Arg: TextArg, Refuse: "looks a tag up in a tags file"},
	}
}

// moreOptions are util-linux more's.
func moreOptions() []Option {
	return []Option{
		{Names: "-d --silent -l --logical -f --no-pause -p --print-over -c --clean-print -s --squeeze -u --plain -e --exit-on-eof"},
		{Names: "-n --lines", Arg: TextArg}, {Names: "-h --help -V --version"},
	}
}

// readerPrograms are the entries DefaultTable adds from this file and
// archives.go.
func readerPrograms() []Program {
	zcat := []Option{
		{Names: "-c --stdout -d --decompress --uncompress -f --force -q --quiet -v --verbose -l --list -t --test -n --no-name -N --name -k --keep"},
		{Names: "-S --suffix", Arg: TextArg}, {Names: "-L --license -h --help -V --version"},
	}
	progs := []Program{
		hashSum("sha1sum"), hashSum("sha224sum"), hashSum("sha384sum"), hashSum("sha512sum"),
		hashSum("b2sum", Option{Names: "-l --length", Arg: TextArg}),
		hashSum("shasum", Option{Names: "-a --algorithm", Arg: TextArg}, Option{Names: "-U --UNIVERSAL -0 --01 -p --portable"}),
		{
			// strings (binutils) prints the printable runs of its files. A
			// word @FILE reads more options from FILE.
			Name: "strings", rules: "strings", Digits: true,
			Options: []Option{
				{Names: "-a --all -d --data -f --print-file-name -o -w --include-all-whitespace"},
				{Names: "-n --bytes -t --radix -e --encoding -s --output-separator -U --unicode -T --target", Arg: TextArg},
				{Names: "-h --help -v -V --version"},
			},
		},
		// xxd parses its own options (its second operand is written).
		{Name: "xxd", rules: "xxd", Operands: TextOperands},
		{Name: "zcat", Options: zcat}, {Name: "gzcat", Options: slices.Clone(zcat)},
		{
			Name: "bzcat",
			Options: []Option{
				{Names: "-s --small -q --quiet -v --verbose -f --force -k --keep -c --stdout -d --decompress"},
				{Names: "-L --license -V --version -h --help"},
			},
		},
		{
			Name: "xzcat",
			Options: []Option{
				{Names: "-c --stdout -d --decompress -k --keep -f --force -q --quiet -v --verbose -Q --no-warn"},
				{Names: "--single-stream --no-sparse --ignore-check --robot"},
				{Names: "-T --threads -F --format -C --check -M --memlimit --memory --memlimit-decompress", Arg: TextArg},
				{Names: "-h --help -H --long-help -V --version"},
				{Names: "--files --files0", Arg: OptionalArg, Refuse: whyListFile},
			},
		},
		{Name: "less", rules: "pager", Options: lessOptions()},
		{Name: "zless", rules: "pager", Options: lessOptions()},
		{Name: "more", rules: "pager", Digits: true, Options: moreOptions()},
		{Name: "zmore", rules: "pager", Digits: true, Options: moreOptions()},
	}
	return append(append(progs, archivePrograms()...), manPrograms()...)
}

// grepLike copies grep's entry for zgrep and its kin, which run grep on
// each decompressed file: they walk no folder (-r is refused).
func grepLike(grep *Program, name string) *Program {
	p := *grep
	p.Name, p.idx = name, nil
	p.Options = slices.Clone(grep.Options)
	for i := range p.Options {
		if m := p.Options[i].Mark; m == "recursive" || m == "follow" {
			p.Options[i].Refuse = "is not supported by " + name + ", which reads the files it is given"
		}
	}
	return &p
}

// strings judges strings' operands: files read, and @FILE (options read
// from FILE, which may name more files) refused.
func (j *judge) strings(w *words) {
	for _, o := range w.ops {
		if strings.HasPrefix(o, "@") {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("strings %q reads further options and file names from %s", o, o[1:]), "name the files as operands")
			return
		}
		w.add(access{word: o, what: "operand", mode: modeRead})
	}
}

// xxdValued are xxd's options that take a value, by letter, with their
// long spellings; xxdFlags its flags. xxd matches a word by its first
// letters (-ps is -p), so only the spellings here are accepted.
var (
	xxdValued = map[byte][]string{'c': {"-cols"}, 'g': {"-groupsize"}, 'l': {"-len"}, 'n': {"-name"}, 'o': {"-offset"}, 's': {"-seek"}, 'R': nil}
	xxdFlags  = []string{"-a", "-autoskip", "-b", "-bits", "-C", "-capitalize", "-d", "-E", "-EBCDIC", "-e", "-h", "-help",
		"-i", "-include", "-p", "-ps", "-postscript", "-plain", "-r", "-revert", "-u", "-uppercase", "-v", "-version"}
	xxdNumber = regexp.MustCompile(`^[-+]?(0[xX][0-9a-fA-F]+|[0-9]+)$`)
)

// xxd judges xxd [OPTIONS] [INFILE [OUTFILE]]: INFILE is read, OUTFILE
// written (with -r or without). Options end at the first operand.
func (j *judge) xxd(_ *Program, argv []string) {
	var ops []string
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if slices.Contains(xxdFlags, a) {
			continue
		}
		long, ok := xxdValued[a[1]]
		switch {
		case !ok:
		case len(a) == 2 || slices.Contains(long, a):
			if i+1 < len(argv) {
				i++
				continue
			}
		case a[1] != 'n' && a[1] != 'R' && xxdNumber.MatchString(a[2:]):
			continue // a number attached: -c16, -s+0x10
		}
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of xxd is not in the accepted options", a), "see xxd -h")
		return
	}
	ops = argv[i:]
	if len(ops) > 2 {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("xxd takes at most an input and an output file, got extra operand %q", ops[2]), "")
		return
	}
	var acs []access
	if len(ops) > 0 && ops[0] != "-" {
		acs = append(acs, access{word: ops[0], what: "input", mode: modeRead})
	}
	if len(ops) > 1 && ops[1] != "-" {
		acs = append(acs, access{word: ops[1], what: "output operand", mode: modeWrite, op: OpChange})
	}
	j.check(&Program{Name: "xxd"}, acs)
}

// lessStart are the +COMMAND operands less runs on each file that only
// move or search: +G, +NUM, +/PATTERN, +?PATTERN. Any other (+!cmd, +v,
// ++cmd) is a command of less's, which may run a program.
var lessStart = regexp.MustCompile(`^\+([gG]|[0-9]+[gG%]?|[/?][^\x00-\x1f\x7f]*)$`)

// pager judges less and more: their operands are files read, and a +WORD
// a starting command; more's are a line or a search only.
func (j *judge) pager(w *words) {
	for _, o := range w.ops {
		if strings.HasPrefix(o, "+") {
			if !lessStart.MatchString(o) {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s %q is a command %s runs on each file, which may run a program", w.prog.Name, o, w.prog.Name),
					"start at a line (+NUM), the end (+G) or a search (+/PATTERN)")
				return
			}
			continue
		}
		w.add(access{word: o, what: "operand", mode: modeRead})
	}
}

// gzipScripts are gzip's shell scripts and the programs each starts by
// name, found on PATH: a workspace's .venv/bin/gzip first on PATH would
// run for zcat a.gz. Each name starts with z or g (scriptHelpers).
var gzipScripts = map[string][]string{
	"zcat": {"gzip"}, "gzcat": {"gzip"}, "zless": {"gzip", "less"}, "zmore": {"gzip", "more"},
	"zgrep": {"gzip", "grep"}, "zegrep": {"gzip", "grep"}, "zfgrep": {"gzip", "grep"},
}

var gzipFilter = filterOf(gzipScripts)

// scriptHelpers judges the programs a script of gzipScripts starts on
// PATH; false when one decided the command.
func (j *judge) scriptHelpers(name string) bool {
	if name == "" || name[0] != 'z' && name[0] != 'g' {
		return true // every script's name starts so: no lookup for the rest
	}
	if !gzipFilter.mayHave(name) {
		return true // git, grep: no lookup either
	}
	for _, h := range gzipScripts[name] {
		if !j.helperOnPath([]string{h}) {
			return false
		}
	}
	return true
}
