package command

import "slices"

// Reasons shared by several programs' refused options.
const (
	whyListFile = "reads a list of further file names from a file, which the policy cannot judge; name the files as operands instead"
	whyRunsProg = "runs another program"
	whyWaits    = "waits for more input and never ends; read the file with tail -n N instead"
)

// DefaultTable returns the built-in programs: the 24 original read programs
// (basename cat cmp diff dirname du file find git grep head ls md5sum pwd
// readlink realpath sha256sum sort stat tail test tree uniq wc), its 6
// write programs (cp mkdir mv rm rmdir touch), the harmless shell words
// echo, printf, true, false and "[", and the read-only text filters and
// probes cut tr nl tac rev comm paste seq expand unexpand fold od hexdump,
// date (printing only), uname, whoami and id; then rg, sed
// (its script parsed, sed.go), awk (its program parsed, awk.go), egrep,
// fgrep, base64, column, which, type, dd (its KEY=VALUE operands,
// dd.go), and the write programs tee and chmod; then the read programs
// of readers.go and archives.go (the hash sums, strings, xxd, the z*cat
// family, less and more, fd, yq, tar and unzip).
// Each call returns a new table.
func DefaultTable() *Table {
	progs := []Program{ // one allocation for all of them, not one each
		{
			Name: "cat",
			Options: []Option{
				{Names: "-A --show-all"}, {Names: "-b --number-nonblank"}, {Names: "-e"}, {Names: "-E --show-ends"},
				{Names: "-n --number"}, {Names: "-s --squeeze-blank"}, {Names: "-t"}, {Names: "-T --show-tabs"},
				{Names: "-u"}, {Names: "-v --show-nonprinting"}, {Names: "--help --version"},
			},
		},
		{
			Name: "head", Digits: true,
			Options: []Option{
				{Names: "-c --bytes", Arg: TextArg}, {Names: "-n --lines", Arg: TextArg},
				{Names: "-q --quiet --silent"}, {Names: "-v --verbose"}, {Names: "-z --zero-terminated"}, {Names: "--help --version"},
			},
		},
		{
			Name: "tail", Digits: true,
			Options: []Option{
				{Names: "-c --bytes", Arg: TextArg}, {Names: "-n --lines", Arg: TextArg},
				{Names: "-q --quiet --silent"}, {Names: "-v --verbose"}, {Names: "-z --zero-terminated"}, {Names: "--help --version"},
				{Names: "-f -F", Refuse: whyWaits}, {Names: "--follow", Arg: OptionalArg, Refuse: whyWaits},
				{Names: "--retry", Refuse: whyWaits},
				{Names: "-s --sleep-interval --max-unchanged-stats --pid", Arg: TextArg, Refuse: "only matters with --follow, which waits and never ends"},
			},
		},
		{
			Name: "wc",
			Options: []Option{
				{Names: "-c --bytes"}, {Names: "-m --chars"}, {Names: "-l --lines"}, {Names: "-L --max-line-length"},
				{Names: "-w --words"}, {Names: "--total", Arg: TextArg}, {Names: "--help --version"},
				{Names: "--files0-from", Arg: TextArg, Refuse: whyListFile},
			},
		},
		{
			Name: "sort",
			Options: []Option{
				{Names: "-b --ignore-leading-blanks"}, {Names: "-d --dictionary-order"}, {Names: "-f --ignore-case"},
				{Names: "-g --general-numeric-sort"}, {Names: "-h --human-numeric-sort"}, {Names: "-i --ignore-nonprinting"},
				{Names: "-M --month-sort"}, {Names: "-n --numeric-sort"}, {Names: "-R --random-sort"}, {Names: "-r --reverse"},
				{Names: "-V --version-sort"}, {Names: "-c -C"}, {Names: "--check", Arg: OptionalArg}, {Names: "-m --merge"},
				{Names: "-s --stable"}, {Names: "-u --unique"}, {Names: "-z --zero-terminated"}, {Names: "--debug"},
				{Names: "-k --key", Arg: TextArg}, {Names: "-t --field-separator", Arg: TextArg}, {Names: "-S --buffer-size", Arg: TextArg},
				{Names: "--parallel --batch-size --sort", Arg: TextArg}, {Names: "--random-source", Arg: ReadArg},
				{Names: "-o --output", Arg: WriteArg}, {Names: "--help --version"},
				{Names: "-T --temporary-directory", Arg: TextArg, Refuse: "writes temporary files into a folder; leave it out"},
				{Names: "--compress-program", Arg: TextArg, Refuse: whyRunsProg},
				{Names: "--files0-from", Arg: TextArg, Refuse: whyListFile},
			},
		},
		{
			Name: "uniq", rules: "uniq",
			Options: []Option{
				{Names: "-c --count"}, {Names: "-d --repeated"}, {Names: "-D"}, {Names: "--all-repeated --group", Arg: OptionalArg},
				{Names: "-f --skip-fields", Arg: TextArg}, {Names: "-s --skip-chars", Arg: TextArg}, {Names: "-w --check-chars", Arg: TextArg},
				{Names: "-i --ignore-case"}, {Names: "-u --unique"}, {Names: "-z --zero-terminated"}, {Names: "--help --version"},
			},
		},
		{
			Name: "grep", rules: "grep", Digits: true, FirstOperand: operandsPtr(TextOperands),
			Options: []Option{
				{Names: "-E --extended-regexp"}, {Names: "-F --fixed-strings"}, {Names: "-G --basic-regexp"}, {Names: "-P --perl-regexp"},
				{Names: "-e --regexp", Arg: TextArg, Mark: "pattern"}, {Names: "-i -y --ignore-case"}, {Names: "--no-ignore-case"},
				{Names: "-v --invert-match"}, {Names: "-w --word-regexp"}, {Names: "-x --line-regexp"}, {Names: "-c --count"},
				{Names: "--color --colour", Arg: OptionalArg}, {Names: "-L --files-without-match"}, {Names: "-l --files-with-matches"},
				{Names: "-m --max-count", Arg: TextArg}, {Names: "-o --only-matching"}, {Names: "-q --quiet --silent"},
				{Names: "-s --no-messages"}, {Names: "-b --byte-offset"}, {Names: "-H --with-filename"}, {Names: "-h --no-filename"},
				{Names: "--label", Arg: TextArg}, {Names: "-n --line-number"}, {Names: "-T --initial-tab"}, {Names: "-Z --null"},
				{Names: "-z --null-data"}, {Names: "-A --after-context", Arg: TextArg}, {Names: "-B --before-context", Arg: TextArg},
				{Names: "-C --context", Arg: TextArg}, {Names: "-a --text"}, {Names: "-I"}, {Names: "--binary-files", Arg: TextArg},
				{Names: "-D --devices", Arg: TextArg, Mark: "devices"}, {Names: "-d --directories", Arg: TextArg, Mark: "directories"},
				{Names: "-r --recursive", Mark: "recursive"}, {Names: "-R --dereference-recursive", Mark: "follow"},
				{Names: "--include --exclude --exclude-dir", Arg: TextArg}, {Names: "-U --binary"}, {Names: "--line-buffered"},
				{Names: "--no-group-separator"}, {Names: "--group-separator", Arg: TextArg}, {Names: "-V --version --help"},
				{Names: "-f --file", Arg: TextArg, Refuse: "reads the patterns from a file; give them with -e instead"},
				{Names: "--exclude-from", Arg: TextArg, Refuse: "reads patterns from a file; give them with --exclude instead"},
			},
		},
		{
			Name: "base64",
			Options: []Option{
				{Names: "-d --decode"}, {Names: "-i --ignore-garbage"}, {Names: "-w --wrap", Arg: TextArg}, {Names: "--help --version"},
			},
		},
		{
			Name: "column",
			Options: []Option{
				{Names: "-t --table -x --fillrows -e --table-noextreme -n --table-noheadings -J --json -L --table-right-all"},
				{Names: "-s --separator -o --output-separator -c --output-width -N --table-columns -R --table-right -T --table-truncate", Arg: TextArg},
				{Names: "-H --table-hide -O --table-order -W --table-wrap -d --table-noheadings-all -r --tree -i --tree-id -p --tree-parent", Arg: TextArg},
				{Names: "--help -V --version"},
			},
		},
		{
			// awk reads its operands (a NAME=value operand is an
			// assignment). Its program is parsed for what reaches past
			// the input and standard output (awk.go).
			Name: "awk", rules: "awk", FirstOperand: operandsPtr(TextOperands),
			Options: []Option{
				{Names: "-F --field-separator -v --assign", Arg: TextArg}, {Names: "--help --version"},
				{Names: "-f --file", Arg: TextArg, Refuse: "reads the program from a file; give it as the first operand"},
			},
		},
		{
			// ripgrep searches folders recursively, the current one when
			// no path is given, and follows symlinks only with -L. --pre,
			// --hostname-bin and -z run other programs on the files.
			Name: "rg", rules: "rg", FirstOperand: operandsPtr(TextOperands), ExactLong: true,
			Options: []Option{
				{Names: "-e --regexp", Arg: TextArg, Mark: "pattern"}, {Names: "-f --file", Arg: ReadArg, Mark: "pattern"},
				{Names: "--files", Mark: "files"}, {Names: "-L --follow", Mark: "follow"}, {Names: "--no-follow"},
				{Names: "-A --after-context -B --before-context -C --context -m --max-count -M --max-columns -d --max-depth", Arg: TextArg},
				{Names: "-j --threads -E --encoding -t --type -T --type-not -g --glob --iglob -r --replace --sort --sortr", Arg: TextArg},
				{Names: "--type-add --type-clear --color --colors --context-separator --field-context-separator", Arg: TextArg},
				{Names: "--field-match-separator --max-filesize --path-separator --engine --dfa-size-limit --regex-size-limit", Arg: TextArg},
				{Names: "--hyperlink-format --generate --pre-glob", Arg: TextArg}, {Names: "--ignore-file", Arg: ReadArg},
				{Names: "-i --ignore-case -s --case-sensitive -S --smart-case -w --word-regexp -x --line-regexp"},
				{Names: "-v --invert-match -F --fixed-strings -P --pcre2 --no-pcre2 -U --multiline --no-multiline --multiline-dotall"},
				{Names: "-n --line-number -N --no-line-number -H --with-filename -I --no-filename -c --count --count-matches"},
				{Names: "-l --files-with-matches --files-without-match -o --only-matching -q --quiet -a --text --binary --no-binary"},
				{Names: "-b --byte-offset --no-byte-offset --column --no-column --heading --no-heading -. --hidden --no-hidden"},
				{Names: "--no-ignore --ignore --no-ignore-vcs --no-ignore-dot --no-ignore-exclude --no-ignore-global"},
				{Names: "--no-ignore-parent --no-ignore-files --no-require-git -u --unrestricted --type-list --json --no-json"},
				{Names: "--vimgrep --trim --no-trim --stats --no-stats -0 --null --null-data --crlf --no-crlf --line-buffered"},
				{Names: "--block-buffered -p --pretty --passthru --passthrough --one-file-system --no-messages --messages"},
				{Names: "--no-config --debug --trace --max-columns-preview --no-unicode --unicode --auto-hybrid-regex"},
				{Names: "--sort-files --include-zero --no-include-zero -h --help -V --version"},
				{Names: "--pre", Arg: TextArg, Refuse: "runs a program on every file it searches"},
				{Names: "--hostname-bin", Arg: TextArg, Refuse: "runs a program"},
				{Names: "-z --search-zip", Refuse: "runs decompression programs on the files it searches"},
			},
		},
		{
			// sed reads its operands, or with -i rewrites them. Its script
			// (the first operand, or the -e options) is parsed: commands
			// that run programs or touch other files are refused (sed.go).
			Name: "sed", rules: "sed", FirstOperand: operandsPtr(TextOperands),
			Options: []Option{
				{Names: "-n --quiet --silent"}, {Names: "-e --expression", Arg: TextArg, Mark: "pattern"},
				{Names: "-E -r --regexp-extended"}, {Names: "-s --separate"}, {Names: "-u --unbuffered"},
				{Names: "-z --null-data"}, {Names: "-l --line-length", Arg: TextArg},
				{Names: "--sandbox"}, {Names: "--debug"}, {Names: "-b --binary"}, {Names: "--follow-symlinks"},
				{Names: "-i --in-place", Arg: OptionalArg, Mark: "inplace"}, {Names: "--help --version"},
				{Names: "-f --file", Arg: TextArg, Refuse: "reads the script from a file; give it with -e instead"},
				{Names: "--posix", Refuse: "reads the script with other rules than the ones the policy checked it by"},
			},
		},
		{
			Name: "ls", Operands: ListOperands, rules: "ls",
			Options: []Option{
				{Names: "-a --all"}, {Names: "-A --almost-all"}, {Names: "--author"}, {Names: "-b --escape"},
				{Names: "--block-size", Arg: TextArg}, {Names: "-B --ignore-backups"}, {Names: "-c"}, {Names: "-C"},
				{Names: "--color --classify --hyperlink --time", Arg: OptionalArg}, {Names: "-d --directory", Mark: "dironly"},
				{Names: "-D --dired"}, {Names: "-f"}, {Names: "-F"}, {Names: "--file-type"}, {Names: "--format --indicator-style --quoting-style --time-style --sort", Arg: TextArg},
				{Names: "--full-time"}, {Names: "-g"}, {Names: "--group-directories-first"}, {Names: "-G --no-group"},
				{Names: "-h --human-readable"}, {Names: "--si"}, {Names: "-H --dereference-command-line"},
				{Names: "--dereference-command-line-symlink-to-dir"}, {Names: "--hide -I --ignore", Arg: TextArg},
				{Names: "-i --inode"}, {Names: "-k --kibibytes"}, {Names: "-l"}, {Names: "-L --dereference", Mark: "follow"},
				{Names: "-m"}, {Names: "-n --numeric-uid-gid"}, {Names: "-N --literal"}, {Names: "-o"}, {Names: "-p"},
				{Names: "-q --hide-control-chars"}, {Names: "--show-control-chars"}, {Names: "-Q --quote-name"}, {Names: "-r --reverse"},
				{Names: "-R --recursive", Mark: "recursive"}, {Names: "-s --size"}, {Names: "-S"}, {Names: "-t"},
				{Names: "-T --tabsize -w --width", Arg: TextArg}, {Names: "-u"}, {Names: "-U"}, {Names: "-v"}, {Names: "-x"},
				{Names: "-X"}, {Names: "-Z --context"}, {Names: "--zero"}, {Names: "-1"}, {Names: "--help --version"},
			},
		},
		{
			Name: "du", Operands: ListOperands,
			Options: []Option{
				{Names: "-0 --null"}, {Names: "-a --all"}, {Names: "-A --apparent-size"}, {Names: "-B --block-size", Arg: TextArg},
				{Names: "-b --bytes"}, {Names: "-c --total"}, {Names: "-D -H --dereference-args"}, {Names: "-d --max-depth", Arg: TextArg},
				{Names: "-h --human-readable"}, {Names: "--inodes"}, {Names: "-k"}, {Names: "-L --dereference", Mark: "follow"},
				{Names: "-l --count-links"}, {Names: "-m"}, {Names: "-P --no-dereference"}, {Names: "-S --separate-dirs"},
				{Names: "--si"}, {Names: "-s --summarize"}, {Names: "-t --threshold", Arg: TextArg}, {Names: "--time", Arg: OptionalArg},
				{Names: "--time-style --exclude", Arg: TextArg}, {Names: "-x --one-file-system"}, {Names: "--help --version"},
				{Names: "-X --exclude-from", Arg: TextArg, Refuse: "reads patterns from a file; give them with --exclude instead"},
				{Names: "--files0-from", Arg: TextArg, Refuse: whyListFile},
			},
		},
		{
			Name: "tree", Operands: ListOperands, ExactLong: true, rules: "tree",
			Options: []Option{
				{Names: "-a"}, {Names: "-d"}, {Names: "-l", Mark: "follow"}, {Names: "-f"}, {Names: "-x"},
				{Names: "-L -P -I --charset --filelimit --timefmt -H -T --sort --hintro --houtro", Arg: TextArg},
				{Names: "--gitignore"}, {Names: "--ignore-case"}, {Names: "--matchdirs"}, {Names: "--metafirst"}, {Names: "--prune"},
				{Names: "--info"}, {Names: "--noreport"}, {Names: "-q"}, {Names: "-N"}, {Names: "-Q"}, {Names: "-p"}, {Names: "-u"},
				{Names: "-g"}, {Names: "-s"}, {Names: "-h"}, {Names: "--si"}, {Names: "--du"}, {Names: "-D"}, {Names: "--inodes"},
				{Names: "--device"}, {Names: "-F"}, {Names: "-v"}, {Names: "-t"}, {Names: "-c"}, {Names: "-U"}, {Names: "-r"},
				{Names: "--dirsfirst"}, {Names: "--filesfirst"}, {Names: "-i"}, {Names: "-A"}, {Names: "-S"}, {Names: "-n"},
				{Names: "-C"}, {Names: "-X"}, {Names: "-J"}, {Names: "--nolinks"}, {Names: "--fflinks"}, {Names: "--help --version"},
				{Names: "-R", Refuse: "writes an index file into every folder it lists"},
				{Names: "-o", Arg: WriteArg},
				{Names: "--gitfile --infofile", Arg: ReadArg},
				{Names: "--fromfile --fromtabfile", Refuse: "reads the listing from files named as operands; list the folders instead"},
			},
		},
		{
			Name: "find", rules: "find", Operands: ListOperands,
		},
		{
			Name: "stat", rules: "probe",
			Options: []Option{
				{Names: "-L --dereference", Mark: "nofollow-off"}, {Names: "-f --file-system"}, {Names: "-t --terse"},
				{Names: "-c --format --printf --cached", Arg: TextArg}, {Names: "--help --version"},
			},
		},
		{
			Name: "file", rules: "probe",
			Options: []Option{
				{Names: "-b --brief"}, {Names: "-c --checking-printout"}, {Names: "-d"}, {Names: "-E"},
				{Names: "-e --exclude --exclude-quiet -F --separator -P --parameter", Arg: TextArg}, {Names: "-h --no-dereference"},
				{Names: "-i --mime"}, {Names: "--mime-type"}, {Names: "--mime-encoding"}, {Names: "--extension"}, {Names: "--apple"},
				{Names: "-k --keep-going"}, {Names: "-l --list"}, {Names: "-L --dereference", Mark: "nofollow-off"}, {Names: "-N --no-pad"},
				{Names: "-n --no-buffer"}, {Names: "-0 --print0"}, {Names: "-r --raw"}, {Names: "-s --special-files"},
				{Names: "-v --version --help"},
				{Names: "-C --compile", Refuse: "writes a compiled magic file"},
				{Names: "-f --files-from", Arg: TextArg, Refuse: whyListFile},
				{Names: "-m --magic-file", Arg: TextArg, Refuse: "loads magic files from a list of paths; use the built-in magic"},
				{Names: "-p --preserve-date", Refuse: "changes the access time of the files it reads"},
				{Names: "-z -Z --uncompress --uncompress-noreport", Refuse: "may run decompression programs"},
				{Names: "-S --no-sandbox", Refuse: "turns off file's own sandbox"},
			},
		},
		{
			Name: "readlink", rules: "probe",
			Options: []Option{
				{Names: "-f --canonicalize -e --canonicalize-existing -m --canonicalize-missing", Mark: "nofollow-off"},
				{Names: "-n --no-newline"}, {Names: "-q --quiet -s --silent"}, {Names: "-v --verbose"}, {Names: "-z --zero"},
				{Names: "--help --version"},
			},
		},
		{
			Name: "realpath", rules: "probe",
			Options: []Option{
				{Names: "-e --canonicalize-existing"}, {Names: "-m --canonicalize-missing"}, {Names: "-L --logical"},
				{Names: "-P --physical"}, {Names: "-q --quiet"}, {Names: "-s --strip --no-symlinks"}, {Names: "-z --zero"},
				{Names: "--relative-to --relative-base", Arg: ReadArg}, {Names: "--help --version"},
			},
		},
		{
			Name: "md5sum",
			Options: []Option{
				{Names: "-b --binary"}, {Names: "-t --text"}, {Names: "-z --zero"}, {Names: "--tag"}, {Names: "--help --version"},
				{Names: "-c --check", Refuse: "reads a list of file names from the checksum file; hash the files by name instead"},
				{Names: "--ignore-missing --quiet --status --strict -w --warn", Refuse: "only matters with --check, which reads a list of file names"},
			},
		},
		{
			Name: "sha256sum",
			Options: []Option{
				{Names: "-b --binary"}, {Names: "-t --text"}, {Names: "-z --zero"}, {Names: "--tag"}, {Names: "--help --version"},
				{Names: "-c --check", Refuse: "reads a list of file names from the checksum file; hash the files by name instead"},
				{Names: "--ignore-missing --quiet --status --strict -w --warn", Refuse: "only matters with --check, which reads a list of file names"},
			},
		},
		{
			Name: "cmp", rules: "cmp",
			Options: []Option{
				{Names: "-b --print-bytes"}, {Names: "-i --ignore-initial -n --bytes", Arg: TextArg}, {Names: "-l --verbose"},
				{Names: "-s --quiet --silent"}, {Names: "--help -v --version"},
			},
		},
		{
			Name: "diff", rules: "diff",
			Options: []Option{
				{Names: "-q --brief"}, {Names: "-s --report-identical-files"}, {Names: "-c"}, {Names: "-C", Arg: TextArg},
				{Names: "--context --unified", Arg: OptionalArg}, {Names: "-u"}, {Names: "-U", Arg: TextArg}, {Names: "-e --ed"},
				{Names: "-n --rcs"}, {Names: "-y --side-by-side"}, {Names: "-W --width --tabsize", Arg: TextArg}, {Names: "--left-column"},
				{Names: "--suppress-common-lines"}, {Names: "-p --show-c-function"}, {Names: "-F --show-function-line --label", Arg: TextArg},
				{Names: "-t --expand-tabs"}, {Names: "-T --initial-tab"}, {Names: "--suppress-blank-empty"},
				{Names: "-r --recursive", Mark: "follow"}, {Names: "--no-dereference"}, {Names: "-N --new-file"},
				{Names: "--unidirectional-new-file"}, {Names: "--ignore-file-name-case --no-ignore-file-name-case"},
				{Names: "-x --exclude -S --starting-file", Arg: TextArg}, {Names: "--from-file --to-file", Arg: ReadArg},
				{Names: "-i --ignore-case"}, {Names: "-E --ignore-tab-expansion"}, {Names: "-Z --ignore-trailing-space"},
				{Names: "-b --ignore-space-change"}, {Names: "-w --ignore-all-space"}, {Names: "-B --ignore-blank-lines"},
				{Names: "-I --ignore-matching-lines -D --ifdef", Arg: TextArg},
				{Names: "--GTYPE-group-format --old-group-format --new-group-format --unchanged-group-format --changed-group-format", Arg: TextArg},
				{Names: "--line-format --old-line-format --new-line-format --unchanged-line-format", Arg: TextArg},
				{Names: "-a --text"}, {Names: "--strip-trailing-cr"}, {Names: "-d --minimal"}, {Names: "--horizon-lines --palette", Arg: TextArg},
				{Names: "--speed-large-files"}, {Names: "--color", Arg: OptionalArg}, {Names: "--help -v --version"},
				{Names: "-l --paginate", Refuse: "runs the output through pr"},
				{Names: "-X --exclude-from", Arg: TextArg, Refuse: "reads patterns from a file; give them with --exclude instead"},
			},
		},
		{
			Name: "test", rules: "test", Operands: TextOperands, NoOptions: true,
		},
		{
			Name: "[", rules: "test", Operands: TextOperands, NoOptions: true,
		},
		{
			Name: "pwd", Operands: TextOperands,
			Options: []Option{{Names: "-L --logical"}, {Names: "-P --physical"}, {Names: "--help --version"}},
		},
		{
			Name: "basename", Operands: TextOperands,
			Options: []Option{{Names: "-a --multiple"}, {Names: "-s --suffix", Arg: TextArg}, {Names: "-z --zero"}, {Names: "--help --version"}},
		},
		{
			Name: "dirname", Operands: TextOperands,
			Options: []Option{{Names: "-z --zero"}, {Names: "--help --version"}},
		},
		// Text filters: they read their operands (or standard input) and
		// write standard output only. None of them has an option that
		// writes, runs a program, or reads a list of further file names.
		{
			Name: "cut",
			Options: []Option{
				{Names: "-b --bytes -c --characters -f --fields", Arg: TextArg}, {Names: "-d --delimiter", Arg: TextArg},
				{Names: "-n"}, {Names: "--complement"}, {Names: "-s --only-delimited"}, {Names: "--output-delimiter", Arg: TextArg},
				{Names: "-z --zero-terminated"}, {Names: "--help --version"},
			},
		},
		{
			// tr reads standard input only: its operands are character sets.
			Name: "tr", Operands: TextOperands,
			Options: []Option{
				{Names: "-c -C --complement"}, {Names: "-d --delete"}, {Names: "-s --squeeze-repeats"}, {Names: "-t --truncate-set1"},
				{Names: "--help --version"},
			},
		},
		{
			Name: "nl",
			Options: []Option{
				{Names: "-b --body-numbering -d --section-delimiter -f --footer-numbering -h --header-numbering", Arg: TextArg},
				{Names: "-i --line-increment -l --join-blank-lines -n --number-format -s --number-separator", Arg: TextArg},
				{Names: "-v --starting-line-number -w --number-width", Arg: TextArg}, {Names: "-p --no-renumber"},
				{Names: "--help --version"},
			},
		},
		{
			Name: "tac",
			Options: []Option{
				{Names: "-b --before"}, {Names: "-r --regex"}, {Names: "-s --separator", Arg: TextArg}, {Names: "--help --version"},
			},
		},
		{
			// rev is util-linux's; newer versions add -0/--zero.
			Name:    "rev",
			Options: []Option{{Names: "-0 --zero"}, {Names: "-h --help -V --version"}},
		},
		{
			Name: "comm",
			Options: []Option{
				{Names: "-1"}, {Names: "-2"}, {Names: "-3"}, {Names: "--check-order"}, {Names: "--nocheck-order"},
				{Names: "--output-delimiter", Arg: TextArg}, {Names: "--total"}, {Names: "-z --zero-terminated"}, {Names: "--help --version"},
			},
		},
		{
			Name: "paste",
			Options: []Option{
				{Names: "-d --delimiters", Arg: TextArg}, {Names: "-s --serial"}, {Names: "-z --zero-terminated"}, {Names: "--help --version"},
			},
		},
		{
			// seq's operands are numbers; -NUM is a negative one (seq -5 5).
			Name: "seq", Operands: TextOperands, Digits: true, rules: "seq",
			Options: []Option{
				{Names: "-f --format -s --separator", Arg: TextArg}, {Names: "-w --equal-width"}, {Names: "--help --version"},
			},
		},
		{
			Name: "expand", Digits: true,
			Options: []Option{{Names: "-i --initial"}, {Names: "-t --tabs", Arg: TextArg}, {Names: "--help --version"}},
		},
		{
			Name: "unexpand", Digits: true,
			Options: []Option{
				{Names: "-a --all"}, {Names: "--first-only"}, {Names: "-t --tabs", Arg: TextArg}, {Names: "--help --version"},
			},
		},
		{
			Name: "fold", Digits: true,
			Options: []Option{
				{Names: "-b --bytes"}, {Names: "-s --spaces"}, {Names: "-w --width", Arg: TextArg}, {Names: "--help --version"},
			},
		},
		{
			Name: "od",
			Options: []Option{
				{Names: "-A --address-radix -j --skip-bytes -N --read-bytes -t --format --endian", Arg: TextArg},
				{Names: "-S", Arg: TextArg}, {Names: "--strings", Arg: OptionalArg}, {Names: "-w --width", Arg: OptionalArg},
				{Names: "-v --output-duplicates"}, {Names: "-a"}, {Names: "-b"}, {Names: "-c"}, {Names: "-d"}, {Names: "-f"},
				{Names: "-i"}, {Names: "-l"}, {Names: "-o"}, {Names: "-s"}, {Names: "-x"}, {Names: "--help --version"},
				{Names: "--traditional", Refuse: "reads later operands as offsets and labels, not files; leave it out and use -j/-N"},
			},
		},
		{
			// hexdump is util-linux's.
			Name: "hexdump",
			Options: []Option{
				{Names: "-b --one-byte-octal"}, {Names: "-c --one-byte-char"}, {Names: "-C --canonical"},
				{Names: "-d --two-bytes-decimal"}, {Names: "-o --two-bytes-octal"}, {Names: "-x --two-bytes-hex"},
				{Names: "-L --color", Arg: OptionalArg}, {Names: "-e --format -n --length -s --skip", Arg: TextArg},
				{Names: "-f --format-file", Arg: ReadArg}, {Names: "-v --no-squeezing"}, {Names: "-h --help -V --version"},
			},
		},
		{
			// date only prints: +FORMAT is its one operand (any other
			// operand sets the clock), -r looks at a file's time.
			Name: "date", Operands: TextOperands, rules: "date",
			Options: []Option{
				{Names: "-d --date", Arg: TextArg}, {Names: "--debug"}, {Names: "-I --iso-8601", Arg: OptionalArg},
				{Names: "--resolution"}, {Names: "-R --rfc-email --rfc-822 --rfc-2822"}, {Names: "--rfc-3339", Arg: TextArg},
				{Names: "-r --reference", Arg: TextArg, Mark: "reference"}, {Names: "-u --utc --universal --uct"},
				{Names: "--help --version"},
				{Names: "-s --set", Arg: TextArg, Refuse: "sets the system clock; print the date instead"},
				{Names: "-f --file", Arg: TextArg, Refuse: "reads the dates from a file; give one with -d instead"},
			},
		},
		{
			Name: "uname", Operands: TextOperands, rules: "nooperands",
			Options: []Option{
				{Names: "-a --all"}, {Names: "-s --kernel-name --sysname"}, {Names: "-n --nodename"}, {Names: "-r --kernel-release --release"},
				{Names: "-v --kernel-version"}, {Names: "-m --machine"}, {Names: "-p --processor"}, {Names: "-i --hardware-platform"},
				{Names: "-o --operating-system"}, {Names: "--help --version"},
			},
		},
		{Name: "whoami", Operands: TextOperands, rules: "nooperands", Options: []Option{{Names: "--help --version"}}},
		// yes prints its words, one line again and again, until the pipe
		// closes (yes | head -3): text, what reads it judged on its own.
		// cal prints a calendar; its operands are a month and a year.
		// ulimit and umask with options only print the limits and the
		// mask (the shell refuses the forms that set them in a terminal).
		{Name: "ulimit", Operands: TextOperands, rules: "nooperands", Options: []Option{{Names: "-a -H -S -c -d -f -n -s -t -u -v"}}},
		{Name: "umask", Operands: TextOperands, rules: "nooperands", Options: []Option{{Names: "-S"}}},
		{Name: "yes", Operands: TextOperands, Options: []Option{{Names: "--help --version"}}},
		{Name: "cal", Operands: TextOperands, Digits: true, Options: []Option{{Names: "-1 -3 -y -Y --year --twelve -j --julian -m --monday -s --sunday -w --week --vertical -h --help -V --version"}, {Names: "-n --months --color", Arg: OptionalArg}}},
		// arch is uname -m; getconf prints a setting of the system by its
		// name (getconf ARG_MAX, getconf PAGESIZE): text, never a file.
		{Name: "arch", Operands: TextOperands, rules: "nooperands", Options: []Option{{Names: "--help --version"}}},
		{Name: "getconf", Operands: TextOperands, Options: []Option{{Names: "-a --all"}, {Names: "-v", Arg: TextArg}, {Names: "--help --version"}}},
		// which and type name the programs a word would run: their
		// operands are names, looked up on PATH, not files read.
		{Name: "which", Operands: TextOperands, rules: "names", Options: []Option{{Names: "-a -s"}}},
		{Name: "type", Operands: TextOperands, rules: "names", Options: []Option{{Names: "-a -f -p -P -t"}}},
		{
			// id of the session's own user only: id USER looks another
			// user up in the system's user database, outside the workspace.
			Name: "id", Operands: TextOperands, rules: "nooperands",
			Options: []Option{
				{Names: "-a"}, {Names: "-Z --context"}, {Names: "-g --group"}, {Names: "-G --groups"}, {Names: "-n --name"},
				{Names: "-r --real"}, {Names: "-u --user"}, {Names: "-z --zero"}, {Names: "--help --version"},
			},
		},
		// Wrappers: the command they run is judged in turn (and matched
		// against the person's rules on its own). env's assignments are
		// refused where they change what runs (runsWith); env alone
		// prints the environment and is refused.
		{
			Name: "timeout", Wrapper: true, CommandAfter: 1,
			Options: []Option{
				{Names: "-s --signal -k --kill-after", Arg: TextArg}, {Names: "--preserve-status --foreground -v --verbose"},
				{Names: "--help --version"},
			},
		},
		// time (the program, as a runner's inner command sees it; the
		// shell's keyword is the parser's): what it runs, timed.
		{
			Name: "time", Wrapper: true,
			Options: []Option{
				{Names: "-p --portability -v --verbose -q --quiet"}, {Names: "-f --format", Arg: TextArg}, {Names: "--help -V --version"},
				{Names: "-o --output -a --append", Arg: OptionalArg, Refuse: "writes its report to a file; redirect its output instead"},
			},
		},
		{Name: "nice", Wrapper: true, Digits: true, Options: []Option{{Names: "-n --adjustment", Arg: TextArg}, {Names: "--help --version"}}},
		{
			Name: "env", Wrapper: true, Assignments: true,
			Options: []Option{
				{Names: "-i --ignore-environment"}, {Names: "-u --unset", Arg: TextArg}, {Names: "-0 --null -v --debug"},
				{Names: "--help --version"},
				{Names: "-S --split-string", Arg: TextArg, Refuse: "splits a string into the command to run, which the gate does not judge; write the words"},
				{Names: "-C --chdir", Arg: TextArg, Refuse: "runs the command in another folder; cd there first"},
				{Names: "--block-signal --default-signal --ignore-signal --list-signal-handling", Arg: OptionalArg},
			},
		},
		// command -v NAME looks a name up; command PROG runs PROG,
		// judged in turn (probes.go).
		{Name: "command", rules: "command", Operands: TextOperands},
		// xargs runs a command on the names a judged command prints
		// (xargs.go).
		{Name: "xargs", rules: "xargs", Operands: TextOperands},
		// jq filters its inputs; its filter is lexed for what reads the
		// environment or files (probes.go).
		{Name: "jq", rules: "jq"},
		// Probes of the machine: processes, disks, processors, the host's
		// name, a pause. None reads a file of the workspace's or writes.
		{Name: "ps", Operands: TextOperands, NoOptions: true, rules: "ps"},
		// Everyday probes of ports, sockets and processes (ordinary.go): they
		// list what the machine has open, read no file's contents and
		// write nothing (top's interactive keys are not read from a pipe;
		// -n bounds its frames).
		{Name: "lsof", Operands: TextOperands, NoOptions: true},
		{Name: "ss", Operands: TextOperands, NoOptions: true},
		{Name: "netstat", Operands: TextOperands, NoOptions: true},
		{Name: "jobs", Operands: TextOperands, NoOptions: true},
		// wait waits for the line's own background jobs (judged where they
		// start); an option is refused, so bash's -p VAR assigns nothing.
		{Name: "wait", Operands: TextOperands},
		{Name: "locale", Operands: TextOperands, Options: []Option{{Names: "-a --all-locales -m --charmaps -c --category-name -k --keyword-name -v --verbose"}, {Names: "-? --help -V --version --usage"}}},
		{
			Name: "top", Operands: TextOperands, rules: "nooperands",
			Options: []Option{
				{Names: "-b --batch -c -H -i -S -1 -E -e"}, {Names: "-n -d -p -u -U -o -O -w", Arg: TextArg}, {Names: "-h -v"},
			},
		},
		// nohup runs the command it is given, kept running after the shell
		// ends (flux.go holds what it may change).
		{Name: "nohup", Wrapper: true, Options: []Option{{Names: "--help --version"}}},
		{
			Name: "pgrep", Operands: TextOperands,
			Options: []Option{
				{Names: "-l --list-name -a --list-full -f --full -x --exact -n --newest -o --oldest -c --count -v --inverse -w --lightweight -i --ignore-case -r --runstates --ns --nslist --cgroup -A --ignore-ancestors"},
				{Names: "-d --delimiter -u --euid -U --uid -g --pgroup -G --group -P --parent -s --session -t --terminal --older --env", Arg: TextArg},
				{Names: "-F --pidfile", Arg: ReadArg}, {Names: "-L --logpidfile"}, {Names: "-h --help -V --version"},
			},
		},
		{
			Name: "df", rules: "df",
			Options: []Option{
				{Names: "-a --all -h --human-readable -H --si -i --inodes -k -l --local -P --portability -T --print-type --total --sync --no-sync"},
				{Names: "-B --block-size -t --type -x --exclude-type", Arg: TextArg}, {Names: "--output", Arg: OptionalArg}, {Names: "--help --version"},
			},
		},
		{Name: "nproc", Operands: TextOperands, rules: "nooperands", Options: []Option{{Names: "--all"}, {Names: "--ignore", Arg: TextArg}, {Names: "--help --version"}}},
		{
			Name: "hostname", Operands: TextOperands, rules: "nooperands",
			Options: []Option{
				{Names: "-s --short -f --fqdn --long -d --domain -i --ip-address -I --all-ip-addresses -A --all-fqdns -a --alias -y --yp --nis"},
				{Names: "-h --help -V --version"},
				{Names: "-F --file", Arg: TextArg, Refuse: "sets the machine's name from a file"}, {Names: "-b --boot", Refuse: "sets the machine's name"},
			},
		},
		{Name: "sleep", Operands: TextOperands, Options: []Option{{Names: "--help --version"}}},
		{Name: "uptime", Operands: TextOperands, rules: "nooperands", Options: []Option{{Names: "-p --pretty -s --since -c --container -r --raw"}, {Names: "-h --help -V --version"}}},
		{
			// free without -s: with it, it prints again and again, never ending.
			Name: "free", Operands: TextOperands, rules: "nooperands",
			Options: []Option{
				{Names: "-b --bytes -k --kibi -m --mebi -g --gibi --tebi --pebi --kilo --mega --giga --tera --peta --si -h --human -w --wide -l --lohi -t --total -v --committed"},
				{Names: "--help -V --version"},
			},
		},
		{
			// lscpu of this machine: --sysroot would read another folder.
			Name: "lscpu", Operands: TextOperands, rules: "nooperands",
			Options: []Option{
				{Names: "-a --all -b --online -c --offline -B --bytes -J --json -x --hex -y --physical --output-all"},
				{Names: "-e --extended -p --parse", Arg: OptionalArg}, {Names: "-h --help -V --version"},
			},
		},
		// groups of the session's own user only, as id.
		{Name: "groups", Operands: TextOperands, rules: "nooperands", Options: []Option{{Names: "--help --version"}}},
		{Name: "expr", Operands: TextOperands, NoOptions: true},
		{Name: "printenv", Operands: TextOperands, rules: "printenv", Options: []Option{{Names: "-0 --null"}, {Names: "--help --version"}}},
		{Name: "exit", Operands: TextOperands, NoOptions: true},
		{Name: "echo", Operands: TextOperands, NoOptions: true},
		{Name: "true", Operands: TextOperands, NoOptions: true},
		{Name: "false", Operands: TextOperands, NoOptions: true},
		{Name: ":", Operands: TextOperands, NoOptions: true},
		{Name: "printf", Operands: TextOperands, rules: "printf"},
		{Name: "git", rules: "git", Operands: TextOperands},

		// Write programs.
		{
			Name: "cp", Write: true, rules: "cp",
			Options: []Option{
				{Names: "-a --archive", Mark: "recursive"}, {Names: "--attributes-only"}, {Names: "--backup", Arg: OptionalArg}, {Names: "-b"},
				{Names: "--copy-contents"}, {Names: "-d"}, {Names: "-f --force"}, {Names: "-i --interactive"},
				{Names: "-H"}, {Names: "-L --dereference", Mark: "follow"}, {Names: "-n --no-clobber"}, {Names: "-P --no-dereference"},
				{Names: "-p"}, {Names: "--preserve --reflink --update --context", Arg: OptionalArg}, {Names: "--no-preserve --sparse", Arg: TextArg},
				{Names: "-R -r --recursive", Mark: "recursive"}, {Names: "--remove-destination"},
				{Names: "--strip-trailing-slashes"}, {Names: "-S --suffix", Arg: TextArg}, {Names: "-t --target-directory", Arg: WriteArg, Mark: "target"},
				{Names: "-T --no-target-directory"}, {Names: "-u"}, {Names: "-v --verbose"}, {Names: "-x --one-file-system"},
				{Names: "-Z"}, {Names: "--debug"}, {Names: "--keep-directory-symlink"}, {Names: "--help --version"},
				{Names: "-l --link", Refuse: "makes hard links, so a later change to the copy changes the original; copy without -l"},
				{Names: "-s --symbolic-link", Refuse: "makes symbolic links, which can lead anywhere; copy without -s"},
				{Names: "--parents", Refuse: "appends each source's path, \"..\" included, to the destination; copy to a named destination instead"},
			},
		},
		{
			Name: "mv", Write: true, rules: "mv",
			Options: []Option{
				{Names: "--backup --update --context", Arg: OptionalArg}, {Names: "-b"}, {Names: "-f --force"}, {Names: "-i --interactive"},
				{Names: "-n --no-clobber"}, {Names: "--no-copy"}, {Names: "--strip-trailing-slashes"}, {Names: "-S --suffix", Arg: TextArg},
				{Names: "-t --target-directory", Arg: WriteArg, Mark: "target"}, {Names: "-T --no-target-directory"}, {Names: "-u"},
				{Names: "-v --verbose"}, {Names: "-Z"}, {Names: "--exchange"}, {Names: "--debug"}, {Names: "--help --version"},
			},
		},
		{
			Name: "rm", Write: true, Operands: WriteOperands, rules: "rm",
			Options: []Option{
				{Names: "-f --force"}, {Names: "-i -I"}, {Names: "--interactive", Arg: OptionalArg}, {Names: "--one-file-system"},
				{Names: "--preserve-root", Arg: OptionalArg}, {Names: "-r -R --recursive", Mark: "recursive"}, {Names: "-d --dir"},
				{Names: "-v --verbose"}, {Names: "--help --version"},
				{Names: "--no-preserve-root", Refuse: "lets rm remove /; never needed in a workspace"},
			},
		},
		{
			Name: "rmdir", Write: true, Operands: WriteOperands, rules: "rm",
			Options: []Option{
				{Names: "--ignore-fail-on-non-empty"}, {Names: "-v --verbose"}, {Names: "--help --version"},
				{Names: "-p --parents", Refuse: "also removes every parent folder up the path, which may leave the workspace; remove the folders by name"},
			},
		},
		{
			Name: "mkdir", Write: true, Operands: WriteOperands, intent: OpCreateDir,
			Options: []Option{
				{Names: "-m --mode", Arg: TextArg}, {Names: "-p --parents"}, {Names: "-v --verbose"}, {Names: "-Z"},
				{Names: "--context", Arg: OptionalArg}, {Names: "--help --version"},
			},
		},
		{
			Name: "touch", Write: true, Operands: WriteOperands, rules: "touch",
			Options: []Option{
				{Names: "-a"}, {Names: "-c --no-create"}, {Names: "-d --date -t --time", Arg: TextArg}, {Names: "-f"},
				{Names: "-h --no-dereference", Mark: "nofollow"}, {Names: "-m"}, {Names: "-r --reference", Arg: ReadArg},
				{Names: "--help --version"},
			},
		},
		{
			// tee copies standard input to standard output and to each
			// operand, which it creates or truncates (or appends to).
			Name: "tee", Write: true, Operands: WriteOperands, intent: OpChange,
			Options: []Option{
				{Names: "-a --append -i --ignore-interrupts -p"}, {Names: "--output-error", Arg: OptionalArg},
				{Names: "--help --version"},
			},
		},
		{
			// truncate changes each operand's size; -r takes the size of
			// another file, which it only looks at.
			Name: "truncate", Write: true, Operands: WriteOperands, intent: OpChange,
			Options: []Option{
				{Names: "-c --no-create -o --io-blocks"}, {Names: "-s --size", Arg: TextArg}, {Names: "-r --reference", Arg: ReadArg},
				{Names: "--help --version"},
			},
		},
		{
			// dd's operands are KEY=VALUE words (dd.go): if= is read,
			// of= written, the rest numbers and flags.
			Name: "dd", rules: "dd",
			Options: []Option{{Names: "--help --version"}},
		},
		{
			// chmod MODE FILE...: each file is changed, so each must be
			// observed; the mode is text (a mode starting with "-", as in
			// chmod -x, reads as an option and is refused: write a-x).
			Name: "chmod", Write: true, Operands: WriteOperands, intent: OpChange, FirstOperand: operandsPtr(TextOperands),
			Options: []Option{
				{Names: "-c --changes -f --silent --quiet -v --verbose --preserve-root"}, {Names: "--help --version"},
				{Names: "-R --recursive", Refuse: "changes every file under a folder; name the files"},
				{Names: "--reference", Arg: ReadArg, Refuse: "takes the mode from another file; give the mode"},
				{Names: "--no-preserve-root", Refuse: "lets a recursive change reach /"},
			},
		},
	}
	progs = append(progs, readerPrograms()...) // readers.go, archives.go
	t := &Table{Programs: make(map[string]*Program, len(progs))}
	for i := range progs {
		t.Programs[progs[i].Name] = &progs[i]
	}
	// egrep and fgrep are grep -E and grep -F, with grep's options; gawk
	// and mawk are awk.
	for name, of := range map[string]string{"egrep": "grep", "fgrep": "grep", "gawk": "awk", "mawk": "awk"} {
		alias := *t.Programs[of]
		alias.Name, alias.Options, alias.idx = name, slices.Clone(alias.Options), nil
		t.Programs[name] = &alias
	}
	for _, name := range []string{"zgrep", "zegrep", "zfgrep"} {
		t.Programs[name] = grepLike(t.Programs["grep"], name)
	}
	// Each entry's options are indexed on its first lookup; every test
	// builds the table, and TestBuiltinTablesCompile indexes each entry.
	if err := t.prepare(false); err != nil {
		panic("command: built-in table: " + err.Error()) // a programmer bug, caught by every test
	}
	return t
}
