package command

import (
	"fmt"
	"strings"

	"admit/policy/rule"
)

// fd, yq, tar and unzip: read programs with forms that write or run
// programs. fd lists names (-x, -X and -l run programs on them); yq
// filters YAML (-i rewrites its files, and its expression is lexed as
// jq's is); tar lists an archive, or prints its members (-xO), and
// an archive written to standard output (-cf -); nothing else; unzip lists, tests or prints an archive, never extracts.

// archivePrograms are the table's entries for this file's programs.
func archivePrograms() []Program {
	fd := Program{
		Name: "fd", rules: "fd", Operands: ListOperands, FirstOperand: operandsPtr(TextOperands), ExactLong: true,
		Options: []Option{
			{Names: "-H --hidden -I --no-ignore -u --unrestricted --no-ignore-vcs --no-ignore-parent --no-require-git --no-global-ignore-file"},
			{Names: "-s --case-sensitive -i --ignore-case -g --glob --regex -F --fixed-strings -a --absolute-path -p --full-path"},
			{Names: "-0 --print0 -1 -q --quiet --show-errors --one-file-system --prune --no-hidden --ignore --ignore-vcs --no-follow"},
			{Names: "-L --follow", Mark: "follow"},
			{Names: "--and -d --max-depth --min-depth --exact-depth -E --exclude -t --type -e --extension -S --size", Arg: TextArg},
			{Names: "--changed-within --changed-before --newer --older -o --owner --format -c --color -j --threads --max-results", Arg: TextArg},
			{Names: "--path-separator --max-buffer-time", Arg: TextArg}, {Names: "--hyperlink --strip-cwd-prefix", Arg: OptionalArg},
			{Names: "--search-path", Arg: TextArg, Mark: "searchpath"}, {Names: "--ignore-file", Arg: ReadArg},
			{Names: "-h --help -V --version"},
			{Names: "-x --exec -X --exec-batch", Arg: TextArg, Refuse: "runs a command on every name it finds"},
			{Names: "--batch-size", Arg: TextArg, Refuse: "only matters with --exec-batch, which runs a command"},
			{Names: "-l --list-details", Refuse: "runs ls (found on PATH) on the names it finds; pipe the names to xargs ls -l -0 with -0 instead"},
			{Names: "--base-directory", Arg: TextArg, Refuse: "searches from another folder; cd there first"},
		},
	}
	fdfind := fd
	fdfind.Name = "fdfind" // Debian's name for fd
	return []Program{
		fd, fdfind,
		{
			// yq (mikefarah's, and the jq wrapper of the same name).
			Name: "yq", rules: "yq", FirstOperand: operandsPtr(TextOperands), ExactLong: true,
			Options: []Option{
				{Names: "-r --raw-output --unwrapScalar -e --exit-status -n --null-input -C --colors --color-output -M --no-colors --monochrome-output"},
				{Names: "-P --prettyPrint -j --tojson -c --compact-output -y --yaml-output -Y --yaml-roundtrip -S --sort-keys -N --no-doc"},
				{Names: "-0 --nul-output --tab -v --verbose --no-colour --indentless --explicit-start --explicit-end"},
				{Names: "-I --indent -o --output-format -p --input-format -w --width", Arg: TextArg},
				{Names: "--expression", Arg: TextArg, Mark: "pattern"},
				{Names: "-i --inplace --in-place", Mark: "inplace"},
				{Names: "-h --help -V --version"},
				{Names: "-f --from-file --front-matter", Arg: TextArg, Refuse: "reads the expression, or front matter rules, from a file; give the expression as the first operand"},
				{Names: "-s --split-exp --split-exp-file", Arg: TextArg, Refuse: "writes each document into a file the expression names"},
				{Names: "--rawfile --slurpfile", Arg: TextArg, Refuse: "reads a file named inside the command, beside its inputs"},
				{Names: "-L", Arg: TextArg, Refuse: "loads modules from a folder"},
			},
		},
		{
			Name: "tar", rules: "tar", Operands: TextOperands,
			Options: []Option{
				{Names: "-t --list", Mark: "list"}, {Names: "-x --extract --get", Mark: "extract"},
				{Names: "-O --to-stdout", Mark: "stdout"}, {Names: "-f --file", Arg: TextArg, Mark: "file"},
				{Names: "-z --gzip --gunzip --ungzip -j --bzip2 -J --xz --zstd --lzip --lzma --lzop -Z --compress --uncompress"},
				{Names: "-a --auto-compress --no-auto-compress -v --verbose -i --ignore-zeros -B --read-full-records -G --incremental"},
				{Names: "--wildcards --no-wildcards --anchored --no-anchored --ignore-case --no-ignore-case --wildcards-match-slash"},
				{Names: "--no-wildcards-match-slash --null --no-null --numeric-owner --utc --full-time --show-transformed-names"},
				{Names: "--show-stored-names -R --block-number --force-local --restrict --unquote --no-unquote -n --seek --no-seek"},
				{Names: "--verbatim-files-from --no-verbatim-files-from --ignore-failed-read --ignore-command-error --recursion --no-recursion"},
				{Names: "--exclude-vcs --exclude-backups --exclude-caches --exclude-caches-under --exclude-caches-all --acls --no-acls"},
				{Names: "--xattrs --no-xattrs --selinux --no-selinux --no-same-owner --no-same-permissions -p --preserve-permissions"},
				{Names: "-b --blocking-factor --record-size -H --format --warning --exclude --quoting-style --quote-chars", Arg: TextArg},
				{Names: "--no-quote-chars --strip-components --transform --xform -K --starting-file --exclude-tag --exclude-tag-under", Arg: TextArg},
				{Names: "--exclude-tag-all --xattrs-include --xattrs-exclude", Arg: TextArg},
				{Names: "--totals --occurrence --checkpoint", Arg: OptionalArg},
				{Names: "-T --files-from -X --exclude-from", Arg: ReadArg}, {Names: "--index-file", Arg: WriteArg},
				{Names: "--help --usage --version --show-defaults"},
				{Names: "-c --create", Mark: "create"},
				{Names: "-r --append -u --update -A --catenate --concatenate --delete --test-label", Mark: "write"},
				{Names: "-d --diff --compare", Refuse: "compares the archive with files of the names it holds, wherever they lead"},
				{Names: "-k --keep-old-files --skip-old-files --overwrite --no-overwrite-dir -m --touch -h --dereference --remove-files --one-top-level", Mark: "write"},
				{Names: "--keep-newer-files --keep-directory-symlink --unlink-first -U --recursive-unlink --same-owner -s --same-order --preserve-order", Mark: "write"},
				{Names: "--sparse -S --one-file-system --mtime --sort --owner --group --mode --label -V --exclude-ignore --exclude-ignore-recursive --transform-names", Arg: OptionalArg, Mark: "write"},
				{Names: "--to-command --checkpoint-action -I --use-compress-program -F --info-script --new-volume-script --rsh-command --rmt-command", Arg: TextArg, Refuse: whyRunsProg},
				{Names: "-g --listed-incremental", Arg: TextArg, Refuse: "reads and writes a snapshot file"},
				{Names: "-C --directory", Arg: TextArg, Mark: "dir"},
				{Names: "-M --multi-volume -w --interactive --confirmation", Refuse: "asks on the terminal"},
			},
		},
		// unzip parses its own options (unzip lists, tests or prints only).
		{Name: "unzip", rules: "unzip", Operands: TextOperands},
		{
			// ln -s (ln.go); a hard link stays a question.
			Name: "ln", rules: "ln", Write: true,
			Options: []Option{
				{Names: "-s --symbolic", Mark: "symbolic"}, {Names: "-f --force -i --interactive -v --verbose -b"},
				{Names: "-n --no-dereference", Mark: "nofollow"}, {Names: "-r --relative", Mark: "relative"},
				{Names: "-T --no-target-directory"}, {Names: "-t --target-directory", Arg: WriteArg, Mark: "target"},
				{Names: "--backup", Arg: OptionalArg}, {Names: "-S --suffix", Arg: TextArg}, {Names: "--help --version"},
				{Names: "-L --logical -P --physical"},
				{Names: "-d -F --directory", Refuse: "makes a hard link to a folder"},
			},
		},
	}
}

// fd judges fd [PATTERN] [PATH...]: the folders searched are listed
// (the working folder without one), --search-path's too.
func (j *judge) fd(w *words) {
	dirs := w.files()
	for _, u := range w.ps.opts {
		if u.opt != nil && u.opt.Mark == "searchpath" {
			dirs = append(dirs, u.value)
		}
	}
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	for _, d := range dirs {
		w.add(access{word: d, what: "folder searched", mode: modeList})
	}
	w.follows(dirs)
}

// yqReads are the builtins of yq's expressions (mikefarah's, or jq's
// through the wrapper) that read the environment or files, beside jq's.
var yqReads = func() map[string]string {
	m := map[string]string{
		"strenv": "reads the environment", "envsubst": "reads the environment",
		"load": "reads a file", "load_str": "reads a file", "load_xml": "reads a file", "load_props": "reads a file",
		"load_base64": "reads a file", "load_yaml": "reads a file", "load_json": "reads a file", "load_csv": "reads a file",
		"load_tsv": "reads a file", "load_uri": "reads a file", "eval": "evaluates a string as an expression, which the gate does not read",
	}
	for k, v := range jqReads {
		m[k] = v
	}
	return m
}()

// yqSubcommands are mikefarah yq's words before the expression.
var yqSubcommands = map[string]bool{"e": true, "eval": true, "ea": true, "eval-all": true}

// yq judges yq [eval] EXPRESSION [FILE...]: the expression is lexed for
// what reads the environment or files; -i rewrites each file. Alone, an
// operand that is a file is read with the expression "." (mikefarah's),
// so the expression is judged as a path too when it is one.
func (j *judge) yq(w *words) {
	ops := w.ops
	expr := ""
	if u := w.ps.has("pattern"); u != nil {
		expr = u.value
	} else {
		if len(ops) > 0 && yqSubcommands[ops[0]] {
			ops = ops[1:]
		}
		if len(ops) > 0 {
			expr, ops = ops[0], ops[1:]
			if j.yqFile(expr) {
				w.add(access{word: expr, what: "operand", mode: modeRead})
			}
		}
	}
	if name, why := filterReads(expr, yqReads); name != "" {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("the yq expression uses %s, which %s", name, why), "filter only the files yq is given")
		return
	}
	mode, what := modeRead, "operand"
	inplace := w.ps.has("inplace")
	if inplace != nil {
		mode, what = modeWrite, "operand of "+inplace.name
		if len(ops) == 0 {
			j.refuse(rule.NoTarget, "yq -i names no file to edit", "")
			return
		}
	}
	for _, o := range ops {
		if o == "-" && mode == modeRead {
			continue
		}
		a := access{word: o, what: what, mode: mode}
		if mode == modeWrite {
			a.target, a.op = true, OpChange
		}
		w.add(a)
	}
}

// yqFile reports an expression yq may read as a file: one that exists as
// a file, or is written as a path outside (absolute, "~", "..").
func (j *judge) yqFile(expr string) bool {
	if strings.HasPrefix(expr, "/") || strings.HasPrefix(expr, "~") || expr == ".." || strings.HasPrefix(expr, "../") {
		return true
	}
	r, ok := j.quietResolve(expr)
	return ok && r.Exists && !r.Dir
}

// tarLetterArgs are the letters of tar's old-style first word (tar tzf
// a.tgz) that take the next word as their value, in order.
const tarLetterArgs = "fbCgKLNTVXHIF"

// tarWords rewrites an old-style first word (tzf) as options (-t -z -f),
// each value-taking letter taking the next word.
func tarWords(args []string) []string {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return args
	}
	out := make([]string, 0, len(args)+len(args[0]))
	next := 1
	for _, c := range args[0] {
		out = append(out, "-"+string(c))
		if strings.ContainsRune(tarLetterArgs, c) && next < len(args) {
			out = append(out, args[next])
			next++
		}
	}
	return append(out, args[next:]...)
}

// tar judges tar: options parsed as GNU tar parses them (an old-style
// first word rewritten), and only listing (-t) or printing members to
// standard output (-x with -O) admitted. The archive (-f) is read; a
// name with a ":" is a remote archive (rsh) unless --force-local.
func (j *judge) tar(prog *Program, argv []string) {
	ps, err := parseArgs(prog, tarWords(argv[1:]), false)
	if err != nil {
		j.refuse(rule.ForbiddenFlag, err.reason, "leave the option out (tar -tf ARCHIVE lists it)")
		return
	}
	list, extract, create := ps.has("list") != nil, ps.has("extract") != nil, ps.has("create") != nil
	reads := ps.has("write") == nil && (list && !extract && !create ||
		extract && ps.has("stdout") != nil && !list && !create ||
		create && !list && !extract && tarToStdout(&ps))
	if !reads {
		// Extracting or writing an archive: the files it writes are named
		// by the archive, so a person decides, as before tar had a table
		// (the options that run programs are refused first).
		if j.refusedOption(prog, &ps) {
			return
		}
		j.writesUnnamed(argv, "tar extracts or writes files whose names the archive or the folders walked choose")
		return
	}
	for _, f := range tarFilters {
		if !j.helperOnPath([]string{f}) {
			return
		}
	}
	j.judgeParsed(prog, ps, programRule{operands: (*judge).tarOperands})
}

// tarFilters are the programs GNU tar starts by name, found on PATH, to
// decompress an archive (chosen by its first bytes, even without -z) or
// compress one (-z, -j, -J, ...): a workspace's .venv/bin/gzip first on
// PATH would run.
var tarFilters = []string{"gzip", "bzip2", "xz", "lzip", "lzma", "lzop", "zstd", "compress"}

// writesUnnamed judges a command that writes files it names only when it
// runs (tar -x, unzip): refused in the read-only effect mode, asked as a
// program in no table otherwise, its path-like words judged.
func (j *judge) writesUnnamed(argv []string, why string) {
	j.wrote()
	if j.c.Effects != WorkspaceWrite {
		j.refuse(rule.ReadOnlyEffects, why+", and the effect mode is read-only", "list the archive instead (tar -tf, unzip -l), or ask the person for the workspace-write effect mode")
		return
	}
	j.argPaths(argv, 1)
	if j.acc.refused {
		return
	}
	j.asksCode(rule.UnsupportedProgram, argv, why+", which the gate cannot judge before it runs, so a person decides", "list the archive first (tar -tf, unzip -l)")
}

// tarToStdout reports a tar -c that writes the archive to standard
// output (-f -) and reads only its operands: no -C (they would be read
// from another folder) and no -T (names read from a file).
func tarToStdout(ps *parsed) bool {
	stdout := false
	for _, u := range ps.opts {
		switch {
		case u.opt == nil:
		case u.opt.Mark == "file":
			if u.value != "-" {
				return false
			}
			stdout = true
		case u.opt.Mark == "dir", u.name == "-T", u.name == "--files-from":
			return false
		}
	}
	return stdout
}

func (j *judge) tarOperands(w *words) {
	ps := &w.ps
	if u := ps.has("dir"); u != nil {
		w.add(access{word: u.value, what: "option " + u.name, mode: modeProbe})
	}
	if ps.has("create") != nil {
		// The files and folders archived, read (folders whole).
		w.skip, w.walks = tarSkips(ps), true
		for _, o := range w.ops {
			w.add(access{word: o, what: "operand", mode: modeRead})
		}
		return
	}
	local := hasName(ps, "--force-local")
	for _, u := range ps.opts {
		if u.opt == nil || u.opt.Mark != "file" || u.value == "-" {
			continue
		}
		if strings.Contains(u.value, ":") && !local {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("tar -f %q: a name with a colon is an archive on another host, reached with rsh", u.value), "add --force-local, or rename the file")
			return
		}
		w.add(access{word: u.value, what: "archive", mode: modeRead})
	}
}

// unzip judges unzip: listing (-l, -v, -Z), testing (-t), printing (-p,
// -c) or the comment (-z) of one archive; extraction (no such mode, or
// -d) writes files whose names the archive chooses and is refused.
// unzip expands patterns in the archive's name itself, and reads NAME.zip
// when NAME does not exist.
func (j *judge) unzip(_ *Program, argv []string) {
	const modes, flags, valued = "lvtpcz", "qCaLsjnoUMKXVW2hb", "POI"
	refuse := func(why, hint string) { j.refuse(rule.ForbiddenFlag, why, hint) }
	if !unzipReads(argv, modes+"Z", valued) {
		j.writesUnnamed(argv, "unzip without -l, -t or -p extracts the archive, writing files whose names it chooses")
		return
	}
	mode := false
	i := 1
options:
	for ; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		for k := 1; k < len(a); k++ {
			c := a[k]
			switch {
			case c == 'Z':
				// zipinfo's options follow, in this word or the next ones.
				mode = true
				if strings.Trim(a[k+1:], "12smlvhMtTz") != "" {
					refuse(fmt.Sprintf("unzip option %q: zipinfo option not accepted", a), "unzip -Z1 ARCHIVE")
					return
				}
				for i+1 < len(argv) && len(argv[i+1]) > 1 && argv[i+1][0] == '-' && strings.Trim(argv[i+1][1:], "12smlvhMtTz") == "" {
					i++
				}
				continue options
			case strings.IndexByte(modes, c) >= 0:
				mode = true
			case strings.IndexByte(flags, c) >= 0:
			case strings.IndexByte(valued, c) >= 0:
				if k != len(a)-1 || i+1 >= len(argv) {
					refuse(fmt.Sprintf("unzip option -%c takes a value in the next word", c), "")
					return
				}
				i++
				continue options
			case c == 'd':
				refuse("unzip -d extracts into a folder; unzip is admitted to list (-l), test (-t) or print (-p) an archive", "unzip -l ARCHIVE")
				return
			default:
				refuse(fmt.Sprintf("unzip option -%c is not in the accepted options", c), "unzip -l ARCHIVE")
				return
			}
		}
	}
	ops := argv[i:]
	if len(ops) == 0 {
		return // help, or the version
	}
	if !mode { // -h or -v alone print help or the version; with an archive, -v lists
		refuse("unzip without -l, -t or -p extracts the archive", "unzip -l ARCHIVE")
		return
	}
	archive := ops[0]
	if strings.ContainsAny(archive, "*?[") {
		refuse(fmt.Sprintf("unzip %q: unzip expands the pattern itself, in folders the gate does not read", archive), "name the archive")
		return
	}
	acs := []access{{word: archive, what: "archive", mode: modeRead}}
	if low := strings.ToLower(archive); !strings.HasSuffix(low, ".zip") {
		acs = append(acs, access{word: archive + ".zip", what: "archive", mode: modeRead}, access{word: archive + ".ZIP", what: "archive", mode: modeRead})
	}
	for k := 1; k < len(ops); k++ {
		o := ops[k]
		if o == "-x" {
			break // the rest are members left out
		}
		if strings.HasPrefix(o, "-") {
			refuse(fmt.Sprintf("unzip option %q after the archive is not accepted (-x only)", o), "put the options before the archive")
			return
		}
	}
	j.check(&Program{Name: "unzip"}, acs)
}

// unzipReads reports whether unzip's options before the archive hold a
// mode that lists, tests or prints (or none but help): otherwise it
// extracts.
func unzipReads(argv []string, modes, valued string) bool {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return false // the archive, with no mode before it
		}
		if strings.ContainsAny(a[1:], modes) || a == "-h" {
			return true
		}
		if strings.ContainsAny(a[len(a)-1:], valued) {
			i++
		}
	}
	return true // options only: help or the version
}
