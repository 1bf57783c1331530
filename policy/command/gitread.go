package command

import (
	"fmt"
	"slices"
	"strings"

	"admit/policy/rule"
)

// Everyday git reads beyond the core table: a -c of a setting that runs
// nothing, submodule status, var, help, fsck, archive (its -o a write),
// apply's checks, and verify-commit/verify-tag (they start gpg).

// gitHarmlessKeys are the settings git -c may set: they change how git
// prints, compares or names, never which program it runs or which file
// it reads. A key is section.key or section.*.key (any subsection);
// section.* takes every key of a section that has none that runs or reads.
var gitHarmlessKeys = map[string]bool{
	"color.*": true, "advice.*": true, "column.*": true, "i18n.*": true,
	"core.quotepath": true, "core.abbrev": true, "core.autocrlf": true, "core.safecrlf": true, "core.eol": true,
	"core.filemode": true, "core.ignorecase": true, "core.precomposeunicode": true, "core.whitespace": true,
	"core.commentchar": true, "core.commentstring": true, "core.preloadindex": true, "core.checkstat": true,
	"core.trustctime": true, "core.longpaths": true,
	"log.date": true, "log.decorate": true, "log.abbrevcommit": true, "log.follow": true, "log.showroot": true,
	"log.mailmap": true, "log.graphcolors": true, "log.excludedecoration": true, "log.initialdecorationset": true,
	"log.diffmerges": true,
	"diff.noprefix":  true, "diff.mnemonicprefix": true, "diff.renames": true, "diff.renamelimit": true,
	"diff.algorithm": true, "diff.context": true, "diff.interhunkcontext": true, "diff.relative": true,
	"diff.colormoved": true, "diff.colormovedws": true, "diff.statgraphwidth": true, "diff.statnamewidth": true,
	"diff.submodule": true, "diff.ignoresubmodules": true, "diff.indentheuristic": true, "diff.suppressblankempty": true,
	"diff.wordregex": true, "diff.srcprefix": true, "diff.dstprefix": true, "diff.dirstat": true,
	"status.short": true, "status.branch": true, "status.showuntrackedfiles": true, "status.relativepaths": true,
	"status.renames": true, "status.renamelimit": true, "status.showstash": true, "status.aheadbehind": true,
	"status.submodulesummary": true, "status.displaycommentprefix": true,
	"grep.linenumber": true, "grep.column": true, "grep.patterntype": true, "grep.extendedregexp": true,
	"grep.fullname": true, "grep.fallbacktonoindex": true, "grep.threads": true,
	"blame.date": true, "blame.showemail": true, "blame.showroot": true, "blame.blankboundary": true,
	"blame.coloring": true, "blame.markunblamablelines": true, "blame.markignoredlines": true,
	"user.name": true, "user.email": true, "author.name": true, "author.email": true,
	"committer.name": true, "committer.email": true, "init.defaultbranch": true, "merge.conflictstyle": true,
	"gc.auto": true, "maintenance.auto": true,
}

// gitOffKeys may be set only to false: true makes git start gpg, or a
// pager (pager.CMD, a program when it is not a boolean).
var gitOffKeys = map[string]bool{
	"commit.gpgsign": true, "tag.gpgsign": true, "push.gpgsign": true, "log.showsignature": true, "pager.*": true,
}

// gitHarmlessConfig reports whether git -c NAME[=VALUE] sets a setting
// that runs nothing and reads no file. Names compare as git compares
// them: section and key case-insensitively.
func gitHarmlessConfig(kv string) bool {
	name, value, hasValue := strings.Cut(kv, "=")
	first := strings.IndexByte(name, '.')
	last := strings.LastIndexByte(name, '.')
	if first <= 0 || last == len(name)-1 {
		return false
	}
	section, key := strings.ToLower(name[:first]), strings.ToLower(name[last+1:])
	sub := first != last
	keys := []string{section + ".*"}
	if sub {
		keys = append(keys, section+".*."+key)
	} else {
		keys = append(keys, section+"."+key)
	}
	for _, k := range keys {
		if gitHarmlessKeys[k] {
			return true
		}
		if gitOffKeys[k] && !sub {
			switch strings.ToLower(value) {
			case "false", "no", "off", "0":
				return hasValue
			}
		}
	}
	return false
}

// gitReadsHere reports whether the read table judges git SUB ARGS: the
// subcommands that read in one form and change or run in others
// (submodule update, plain apply) leave those to gitOther, which asks.
func gitReadsHere(sub string, args []string) bool {
	switch sub {
	case "submodule":
		// status is the default; the other subcommands clone, check
		// out or run a command in every submodule (foreach).
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				return a == "status"
			}
		}
		return true
	case "apply":
		// Only these make apply report instead of apply; --apply,
		// --reject and --3way (with them) change the tree.
		check := false
		for _, a := range args {
			switch a {
			case "--check", "--stat", "--numstat", "--summary":
				check = true
			case "--apply", "--reject", "--3way", "-3", "--":
				return false
			}
		}
		return check
	}
	return true
}

// gitVerify refuses git verify-commit and verify-tag: they start gpg (or
// gpg.program, ssh-keygen), found on the call's PATH, as
// --show-signature does.
func (j *judge) gitVerify(sub string) bool {
	if sub != "verify-commit" && sub != "verify-tag" {
		return false
	}
	j.refuse(rule.ForbiddenFlag, fmt.Sprintf("git %s runs gpg to check signatures (found on the command's PATH), as --show-signature does", sub),
		"show the commit without checking its signature: git log -1 --format=%H")
	return true
}

// gitReadTable is the read table's entries for these subcommands.
func gitReadTable() []Program {
	return []Program{
		{Name: "submodule", rules: "submodule", Options: []Option{{Names: "-q --quiet --cached --recursive"}}},
		{Name: "var", rules: "var", Options: []Option{
			{Names: "-l", Refuse: "lists every variable and the whole configuration, the person's global one too (tokens included); name the variable"},
		}},
		{Name: "help", rules: "help", Options: []Option{
			{Names: "-a --all -g --guides -c --config --user-interfaces --developer-interfaces --no-external-commands --no-aliases --verbose -m --man"},
			{Names: "-w --web", Refuse: "opens a web browser"},
			{Names: "-i --info", Refuse: "runs the info program"},
		}},
		{Name: "fsck", rules: "text", Options: []Option{
			{Names: "--unreachable --dangling --no-dangling --root --tags --cache --no-reflogs --full --no-full --connectivity-only"},
			{Names: "--strict --verbose -v --name-objects --no-name-objects --progress --no-progress --references --no-references"},
			{Names: "--lost-found", Refuse: "writes the objects it finds into .git/lost-found"},
		}},
		{Name: "archive", rules: "archive", Digits: true, Options: []Option{
			{Names: "--format --prefix --add-virtual-file --mtime", Arg: TextArg}, {Names: "-l --list -v --verbose --worktree-attributes"},
			{Names: "-o --output", Arg: WriteArg}, {Names: "--add-file", Arg: ReadArg},
			{Names: "--remote", Arg: TextArg, Refuse: "asks a remote repository for the archive"},
			{Names: "--exec", Arg: TextArg, Refuse: whyRunsProg},
		}},
		{Name: "apply", rules: "files", Options: []Option{
			{Names: "--check --stat --numstat --summary --index --cached --intent-to-add -N -R --reverse --allow-empty -z --inaccurate-eof -v --verbose -q --quiet"},
			{Names: "--recount --no-add --allow-binary-replacement --binary --unidiff-zero"},
			{Names: "-p -C --exclude --include --whitespace --directory", Arg: TextArg},
			{Names: "--unsafe-paths", Refuse: "lets the patch name paths outside the repository"},
			{Names: "--build-fake-ancestor", Arg: TextArg, Refuse: "writes an index file"},
		}},
	}
}

// gitVars are the variables git var prints: identities, the editor and
// pager it would run (printed, not run), the default branch, and where
// its files are.
var gitVars = []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER",
	"GIT_DEFAULT_BRANCH", "GIT_SHELL_PATH", "GIT_ATTR_SYSTEM", "GIT_ATTR_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"}

// gitVar: git var NAME, one variable of gitVars.
func (j *judge) gitVar(g *words) {
	if len(g.ops) != 1 || !slices.Contains(gitVars, g.ops[0]) {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("git var takes one of its variables' names (%s)", strings.Join(gitVars, ", ")), "git var GIT_AUTHOR_IDENT")
	}
}

// gitSubmodule: git submodule [status] [PATH...]: each path probed.
func (j *judge) gitSubmodule(g *words) {
	ops := g.ops
	if len(ops) > 0 && ops[0] == "status" {
		ops = ops[1:]
	}
	for _, o := range ops {
		g.acs = append(g.acs, access{word: o, what: "path", mode: modeProbe})
	}
}

// gitHelp: git help [TOPIC]: a topic's page is shown by man, looked up
// on PATH like any program (and man.viewer, help.format, ... of the
// repository's configuration are among what makes git ask).
func (j *judge) gitHelp(g *words) {
	if len(g.ops) == 0 {
		return
	}
	if len(g.ops) > 1 {
		j.refuse(rule.ForbiddenFlag, "git help takes one topic", "git help log")
		return
	}
	j.programOnPath([]string{"man", "git-" + g.ops[0]})
}

// gitSigners are the programs git starts to check a signature: gpg,
// gpgsm (x509) and ssh-keygen (ssh), found on the call's PATH.
var gitSigners = []string{"gpg", "gpgsm", "ssh-keygen"}

// gitArchive: git archive TREE-ISH [PATH...] judged as revisions and
// paths. A file of the archived tree whose attributes say export-subst
// has its $Format:...$ placeholders expanded, and %G? among them checks
// the commit's signature: the tree is committed content the gate does
// not read, so the programs that check one are judged on PATH, as a
// workspace's .venv/bin/gpg would run.
func (j *judge) gitArchive(g *words) {
	j.gitRevs(g)
	for _, p := range gitSigners {
		if !j.helperOnPath([]string{p}) {
			return
		}
	}
}

// gitFiles: every operand is a file read (apply's patches; "-" is
// standard input).
func (j *judge) gitFiles(g *words) {
	for _, o := range g.ops {
		g.acs = append(g.acs, access{word: o, what: "patch", mode: modeRead})
	}
}
