package command

import (
	"fmt"
	"slices"
	"strings"

	"admit/policy/rule"
)

// Why git options are refused.
const (
	gitWritesFile = "writes a file; redirect standard output with > FILE instead"
	gitRunsProg   = "makes git run a program named by the repository's configuration"
)

// gitGlobalOK reports whether an option is accepted between "git" and the
// subcommand. Everything else there (-c, -C, --git-dir, --work-tree,
// --exec-path, --namespace, -p, --paginate, --config-env, --bare, ...) is
// refused: they change which repository, configuration or programs git uses.
func gitGlobalOK(opt string) bool {
	switch opt {
	case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects",
		"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-lazy-fetch", "--no-advice":
		return true
	}
	return false
}

// gitDiffOptions are the diff options shared by diff, log and show.
func gitDiffOptions() []Option {
	return []Option{
		{Names: "-p -u --patch"}, {Names: "-s --no-patch"}, {Names: "--inter-hunk-context", Arg: TextArg},
		// -U is taken as git takes an optional value: attached only, so a
		// following word is judged as a revision or path either way.
		{Names: "-U --unified", Arg: OptionalArg},
		{Names: "--raw"}, {Names: "--patch-with-raw"}, {Names: "--patch-with-stat"}, {Names: "-t"}, {Names: "-z"},
		{Names: "--indent-heuristic --no-indent-heuristic --minimal --patience --histogram"},
		{Names: "--anchored --diff-algorithm --output-indicator-new --output-indicator-old --output-indicator-context", Arg: TextArg},
		{Names: "--stat --dirstat --submodule --color --color-moved --word-diff --color-words --abbrev --relative --ignore-submodules --find-renames --find-copies --break-rewrites --ws-error-highlight", Arg: OptionalArg},
		{Names: "--stat-width --stat-name-width --stat-graph-width --stat-count --diff-filter --word-diff-regex --color-moved-ws --find-object --skip-to --rotate-to --src-prefix --dst-prefix --line-prefix --ignore-matching-lines", Arg: TextArg},
		{Names: "--compact-summary --numstat --shortstat --cumulative --dirstat-by-file --summary --name-only --name-status"},
		{Names: "--no-color --no-color-moved --no-renames --rename-empty --no-rename-empty --check --full-index --binary"},
		{Names: "--find-copies-harder -D --irreversible-delete --pickaxe-all --pickaxe-regex -R --no-relative -a --text"},
		{Names: "--ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space --ignore-blank-lines"},
		{Names: "-W --function-context --exit-code --quiet --no-ext-diff --no-textconv --no-prefix --default-prefix"},
		{Names: "--ita-invisible-in-index --ita-visible-in-index --no-abbrev"},
		{Names: "-M -C -B -X", Arg: OptionalArg}, {Names: "-l -S -G -I", Arg: TextArg},
		{Names: "-O", Arg: ReadArg},
		{Names: "--output", Arg: TextArg, Refuse: gitWritesFile},
		{Names: "--ext-diff", Refuse: gitRunsProg},
		{Names: "--textconv", Refuse: gitRunsProg},
	}
}

// gitRevOptions are the commit-walking options of log, show, shortlog and rev-list.
func gitRevOptions() []Option {
	return []Option{
		{Names: "--oneline"}, {Names: "-n --max-count --skip --since --after --until --before --author --committer --grep --min-parents --max-parents --glob --exclude --date --encoding --diff-merges --since-as-filter", Arg: TextArg},
		{Names: "--pretty --format --decorate --branches --tags --remotes --notes --expand-tabs --abbrev-commit --show-linear-break --decorate-refs --decorate-refs-exclude", Arg: OptionalArg},
		{Names: "--all-match --invert-grep -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings -P --perl-regexp --basic-regexp"},
		{Names: "--merges --no-merges --no-min-parents --no-max-parents --first-parent --exclude-first-parent-only --not --all --reflog --alternate-refs --single-worktree --ignore-missing --bisect"},
		{Names: "-g --walk-reflogs --no-decorate --source --graph --no-abbrev-commit --relative-date --reverse --follow --no-follow"},
		{Names: "--left-right --left-only --right-only --cherry-pick --cherry-mark --cherry --topo-order --date-order --author-date-order"},
		{Names: "--no-walk", Arg: OptionalArg}, {Names: "--do-walk --simplify-by-decoration --full-history --dense --sparse --simplify-merges --ancestry-path --show-pulls"},
		{Names: "--no-notes --mailmap --use-mailmap --no-mailmap --no-use-mailmap --log-size --boundary --parents --children --no-expand-tabs"},
		{Names: "-m -c --cc --dd --remerge-diff --no-diff-merges --combined-all-paths --full-diff --count --timestamp --objects --no-standard-notes --standard-notes --show-notes-by-default --clear-decorations"},
		{Names: "-L", Arg: TextArg},
		{Names: "--show-signature", Refuse: "runs gpg to check signatures"},
	}
}

func joinOptions(sets ...[]Option) []Option { return slices.Concat(sets...) }

// gitTable is the accept-list of git's read subcommands. Each is a Program
// (its options, exact long names) whose rules say what the operands are:
// "revs" (revisions, or paths where they exist, paths after --),
// "paths" (pathspecs), "text", "list" (operands only in list mode),
// "grep" (a pattern, then revisions and paths), "none".
func gitTable() map[string]*Program {
	subs := []Program{ // one allocation for all of them, not one each
		{Name: "status", rules: "paths", Options: []Option{
			{Names: "-s --short -b --branch --long -v --verbose -z --no-column --ahead-behind --no-ahead-behind --renames --no-renames --show-stash --no-optional-locks"},
			{Names: "--porcelain -u --untracked-files --ignored --ignore-submodules --column --find-renames", Arg: OptionalArg},
		}},
		{Name: "diff", rules: "revs", Digits: true, Options: joinOptions(gitDiffOptions(), []Option{
			{Names: "--cached --staged --merge-base -1 -2 -3 -0 --base --ours --theirs"},
			{Names: "--no-index", Mark: "noindex"},
		})},
		{Name: "log", rules: "revs", Digits: true, Options: joinOptions(gitDiffOptions(), gitRevOptions())},
		{Name: "show", rules: "revs", Digits: true, Options: joinOptions(gitDiffOptions(), gitRevOptions())},
		{Name: "rev-list", rules: "revs", Digits: true, Options: joinOptions(gitRevOptions(), []Option{{Names: "--objects-edge --unpacked --disk-usage --quiet"}})},
		{Name: "shortlog", rules: "revs", Options: []Option{
			{Names: "-n --numbered -s --summary -e --email -c --committer --all --no-merges --merges --first-parent"},
			{Names: "--group --since --after --until --before --author --grep --format", Arg: TextArg}, {Names: "-w", Arg: OptionalArg},
		}},
		{Name: "ls-files", rules: "paths", Options: []Option{
			{Names: "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed -z -t -v -f"},
			{Names: "--directory --no-empty-directory --eol --deduplicate --exclude-standard --error-unmatch --full-name --recurse-submodules --debug --sparse"},
			{Names: "-x --exclude --exclude-per-directory --with-tree --format", Arg: TextArg}, {Names: "--abbrev", Arg: OptionalArg},
			{Names: "-X --exclude-from", Arg: TextArg, Refuse: "reads patterns from a file; use --exclude instead"},
		}},
		{Name: "ls-tree", rules: "revs", Options: []Option{
			{Names: "-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree"},
			{Names: "--abbrev", Arg: OptionalArg}, {Names: "--format", Arg: TextArg},
		}},
		{Name: "rev-parse", rules: "text", Options: []Option{
			{Names: "--verify -q --quiet --sq --sq-quote --not --symbolic --symbolic-full-name --all --show-toplevel --show-prefix --show-cdup"},
			{Names: "--git-dir --absolute-git-dir --git-common-dir --is-inside-git-dir --is-inside-work-tree --is-bare-repository --is-shallow-repository"},
			{Names: "--show-superproject-working-tree --shared-index-path --local-env-vars --revs-only --no-revs --flags --no-flags --keep-dashdash --stop-at-non-option"},
			{Names: "--abbrev-ref --short --show-object-format --branches --tags --remotes", Arg: OptionalArg},
			{Names: "--default --prefix --since --after --until --before --path-format --exclude --disambiguate --glob --git-path", Arg: TextArg},
		}},
		{Name: "branch", rules: "list", Options: []Option{
			{Names: "-l --list -v --verbose --contains --no-contains --merged --no-merged", Mark: "list"},
			{Names: "--points-at", Arg: TextArg, Mark: "list"},
			{Names: "-a --all -r --remotes --show-current --no-color --no-column --no-abbrev -i --ignore-case --omit-empty -q --quiet"},
			{Names: "--format --sort", Arg: TextArg}, {Names: "--color --column --abbrev", Arg: OptionalArg},
		}},
		{Name: "tag", rules: "list", Options: []Option{
			{Names: "-l --list --contains --no-contains --merged --no-merged", Mark: "list"},
			{Names: "--points-at", Arg: TextArg, Mark: "list"}, {Names: "-n", Arg: OptionalArg, Mark: "list"},
			{Names: "--no-column -i --ignore-case --omit-empty"},
			{Names: "--format --sort", Arg: TextArg}, {Names: "--color --column", Arg: OptionalArg},
		}},
		{Name: "remote", rules: "remote", Options: []Option{{Names: "-v --verbose"}, {Names: "--push --all"}}},
		{Name: "symbolic-ref", rules: "symref", Options: []Option{{Names: "-q --quiet --short --no-recurse --recurse"}}},
		{Name: "name-rev", rules: "text", Options: []Option{
			{Names: "--name-only --tags --all --always --undefined --no-undefined --annotate-stdin"}, {Names: "--refs --exclude", Arg: TextArg},
		}},
		{Name: "cherry", rules: "text", Options: []Option{{Names: "-v"}, {Names: "--abbrev", Arg: OptionalArg}}},
		// range-diff compares two ranges of commits: revisions, and
		// paths only after "--" (pathspecs, read from the repository).
		{Name: "range-diff", rules: "revs", Options: joinOptions(gitDiffOptions(), []Option{
			{Names: "--creation-factor --notes", Arg: OptionalArg},
			{Names: "--no-dual-color --left-only --right-only --no-notes"},
		})},
		// notes reads a commit's notes with list and show; its other
		// subcommands (add, edit, remove, merge...) change them.
		{Name: "notes", rules: "notes", Options: []Option{{Names: "--ref", Arg: TextArg}}},
		{Name: "whatchanged", rules: "revs", Digits: true, Options: joinOptions(gitDiffOptions(), gitRevOptions())},
		{Name: "describe", rules: "text", Options: []Option{
			{Names: "--all --tags --contains --exact-match --debug --long --always --first-parent"},
			{Names: "--abbrev --dirty --broken", Arg: OptionalArg}, {Names: "--candidates --match --exclude", Arg: TextArg},
		}},
		{Name: "merge-base", rules: "text", Options: []Option{{Names: "-a --all --octopus --is-ancestor --independent --fork-point"}}},
		{Name: "cat-file", rules: "text", Options: []Option{
			{Names: "-t -s -e -p --allow-unknown-type"},
			{Names: "--textconv --filters", Refuse: gitRunsProg},
		}},
		{Name: "blame", rules: "revs", Options: []Option{
			{Names: "-b --root --show-stats -l -t -p --porcelain --line-porcelain --incremental --progress --no-progress -c -f --show-name -n --show-number -s -e --show-email -w --color-lines --color-by-age --score-debug"},
			{Names: "-L --date --encoding --ignore-rev", Arg: TextArg}, {Names: "-M -C --abbrev", Arg: OptionalArg},
			{Names: "--contents --ignore-revs-file -S", Arg: ReadArg},
		}},
		{Name: "stash", rules: "stash", Digits: true, Options: joinOptions(gitDiffOptions(), gitRevOptions(), []Option{
			{Names: "--include-untracked --only-untracked --no-include-untracked"},
		})},
		{Name: "reflog", rules: "reflog", Digits: true, Options: joinOptions(gitDiffOptions(), gitRevOptions())},
		{Name: "diff-tree", rules: "revs", Options: joinOptions(gitDiffOptions(), []Option{
			{Names: "-r --root --no-commit-id --always -m -c --cc -v --merge-base --combined-all-paths"}, {Names: "--pretty --format", Arg: OptionalArg},
		})},
		{Name: "diff-index", rules: "revs", Options: joinOptions(gitDiffOptions(), []Option{{Names: "--cached -m --merge-base"}})},
		{Name: "diff-files", rules: "revs", Options: joinOptions(gitDiffOptions(), []Option{{Names: "-q -0 -1 -2 -3 --base --ours --theirs -c --cc"}})},
		{Name: "config", rules: "config", Options: []Option{
			{Names: "--get --get-all --get-regexp --get-urlmatch -l --list", Mark: "list"},
			{Names: "--show-origin --show-scope --name-only -z --null --no-includes"},
			{Names: "--local --worktree", Mark: "scope"},
			{Names: "-f --file", Arg: ReadArg, Mark: "scope"},
			{Names: "--global --system", Refuse: "reads a configuration file outside the workspace (~/.gitconfig, /etc/gitconfig); read the repository's with --local"},
			{Names: "--includes", Refuse: "follows include.path into files that may be outside the workspace (the person's own configuration); read the repository's with --local"},
			{Names: "--bool --int --bool-or-int --path --expiry-date --all --show-names --fixed-value"},
			{Names: "--type --default --regexp --url", Arg: TextArg},
			{Names: "--blob", Arg: TextArg, Refuse: "reads another configuration file; read it with git show instead"},
		}},
		{Name: "show-ref", rules: "text", Options: []Option{
			{Names: "--head --heads --branches --tags -d --dereference -s --verify -q --quiet --exists"}, {Names: "--hash --abbrev", Arg: OptionalArg},
		}},
		{Name: "for-each-ref", rules: "text", Options: []Option{
			{Names: "--format --sort --count --points-at --exclude", Arg: TextArg}, {Names: "--merged --no-merged --contains --no-contains --color", Arg: OptionalArg},
			{Names: "--ignore-case --omit-empty -s --shell -p --perl --python --tcl"},
		}},
		{Name: "worktree", rules: "worktree", Options: []Option{{Names: "--porcelain -v --verbose -z"}, {Names: "--expire", Arg: TextArg}}},
		{Name: "check-ignore", rules: "paths", Options: []Option{{Names: "-q --quiet -v --verbose -n --non-matching --no-index -z"}}},
		{Name: "count-objects", rules: "none", Options: []Option{{Names: "-v --verbose -H --human-readable"}}},
		{Name: "version", rules: "none", Options: []Option{{Names: "--build-options"}}},
		{Name: "grep", rules: "grep", Digits: true, Options: []Option{
			{Names: "--cached --untracked --no-index --no-exclude-standard --exclude-standard --recurse-submodules -a --text --no-textconv"},
			{Names: "--textconv", Refuse: gitRunsProg},
			{Names: "-i --ignore-case -I -w --word-regexp -v --invert-match -h -H --full-name -E --extended-regexp -G --basic-regexp -F --fixed-strings -P --perl-regexp"},
			{Names: "-n --line-number --column -l --files-with-matches --name-only -L --files-without-match -z --null -o --only-matching -c --count"},
			{Names: "--heading --break -p --show-function -W --function-context --and --or --not --all-match -q --quiet -r --recursive --no-recursive --no-color"},
			{Names: "--color", Arg: OptionalArg}, {Names: "--max-depth -A --after-context -B --before-context -C --context --threads -m --max-count", Arg: TextArg},
			{Names: "-e", Arg: TextArg, Mark: "pattern"},
			{Names: "-O --open-files-in-pager", Arg: OptionalArg, Refuse: "opens the matching files in a pager program"},
			{Names: "-f", Arg: TextArg, Refuse: "reads the patterns from a file; give them with -e instead"},
		}},
	}
	subs = append(subs, gitReadTable()...) // gitread.go
	t := make(map[string]*Program, len(subs))
	idx := make([]optionIndex, len(subs)) // indexed on first lookup; TestBuiltinTablesCompile indexes each
	for i := range subs {
		p := &subs[i]
		p.ExactLong = true
		p.Name = "git " + p.Name
		p.idx = &idx[i]
		t[strings.TrimPrefix(p.Name, "git ")] = p
	}
	return t
}

// git judges a git command: global options, a read subcommand, its
// options, its operands (by the subcommand's rules, gitRules), and the
// repository's configuration.
func (j *judge) git(_ *Program, argv []string) {
	// git -C DIR runs git as cd DIR would, for this command only.
	defer func(cwd string) { j.cwd = cwd }(j.cwd)
	i, ok := j.gitGlobals(argv)
	if !ok || i < 0 {
		return
	}
	subName := argv[i]
	j.inGit = true
	if w := j.p.gitw[subName]; w != nil && (w.handles == nil || w.handles(j.p, argv[i+1:])) {
		j.gitWriting(w, argv, i) // gitwrite.go
		return
	}
	if j.gitVerify(subName) {
		return
	}
	sub := j.p.git[subName]
	if sub == nil || !gitReadsHere(subName, argv[i+1:]) {
		j.gitOther(argv, i)
		return
	}
	ps, err := parseArgs(sub, argv[i+1:], false)
	if err != nil {
		j.refuse(rule.ForbiddenFlag, err.reason, "leave the option out")
		return
	}
	if j.refusedOption(sub, &ps) || j.gitSignatureFormat(sub, &ps) || !j.gitPager(argv, i) {
		return
	}
	// The array reused, as judgeParsed does; git reads its pathspecs'
	// files, not a repository's configuration.
	j.words = words{prog: sub, ps: ps, ops: ps.operands, acs: j.words.acs[:0], skip: walkSkips{git: true, modules: true}}
	g := &j.words
	for _, u := range ps.opts {
		switch {
		case u.opt == nil:
		case u.opt.Arg == ReadArg:
			g.acs = append(g.acs, access{word: u.value, what: "option " + u.name, mode: modeRead})
		case u.opt.Arg == WriteArg: // git archive -o
			g.acs = append(g.acs, access{word: u.value, what: "option " + u.name, mode: modeWrite, op: OpChange})
		}
	}
	if rule := gitRules[sub.rules]; rule != nil {
		rule(j, g)
		if j.acc.refused {
			return
		}
	}
	j.gitBlobSecrets(sub.Name, g.ops)
	if sub.rules == "grep" {
		j.gitGrepWalk(g)
	}
	j.check(&Program{Name: sub.Name}, g.acs)
	if j.acc.refused || j.c.FS == nil {
		return
	}
	j.gitConfig()
	if !j.acc.refused {
		j.gitCredentialRead(subName, &g.ps, argv)
	}
}

// gitGlobals judges the options before git's subcommand and returns the
// subcommand's index: -1 (and ok) for "git --version", and not ok when
// refused.
func (j *judge) gitGlobals(argv []string) (int, bool) {
	i := 1
	for ; i < len(argv) && strings.HasPrefix(argv[i], "-"); i++ {
		a := argv[i]
		if a == "--version" && len(argv) == 2 {
			return -1, true
		}
		if a == "-C" && i+1 < len(argv) {
			// Judged as "cd DIR && git ...": the same folder rules, and the
			// repository, configuration and paths of that folder.
			dir, ok := j.folder("git -C", argv[i+1])
			if !ok {
				return 0, false
			}
			j.cwd = dir
			i++
			continue
		}
		if a == "-c" && i+1 < len(argv) && gitHarmlessConfig(argv[i+1]) {
			i++ // a setting that runs nothing and reads no file (gitread.go)
			continue
		}
		if !gitGlobalOK(a) {
			name, _, _ := strings.Cut(a, "=")
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("git option %q before the subcommand is refused: it changes which repository, configuration or programs git uses (only --no-pager, -C DIR and -c of a setting that runs nothing are accepted there)", name),
				"run git from the repository's folder (cd DIR && git ...) without "+name)
			return 0, false
		}
	}
	if i >= len(argv) {
		j.refuse(rule.ForbiddenFlag, "git needs a subcommand", "subcommands that read: "+j.gitNames())
		return 0, false
	}
	return i, true
}

// gitConfig asks a person when the repository's configuration would make
// an admitted git command run a program, and refuses git after a write of
// the same line that git may read as configuration.
func (j *judge) gitConfig() {
	if w := j.gitInputBefore(); w != "" {
		j.refuse(rule.DynamicWord, fmt.Sprintf("another command of the same line writes %q before or while git runs, and git may read it as configuration (a config, attributes or hook file, or a folder that makes a repository); what git would run is only known after that write", w),
			"run the write as a command of its own, then git")
		return
	}
	if j.gitConfigWritten() {
		return
	}
	if found := j.c.FS.GitExec(j.cwd); found != "" {
		j.acc.asks(rule.GitConfigExec, fmt.Sprintf("git in this repository would run a program named by its configuration, or read outside the workspace (%s), so a person must approve git commands", found),
			"ask the person, or read the files directly with cat and diff")
	}
}

// gitRules judge a subcommand's operands by its rules name. A subcommand
// whose rules name none here ("text") takes no paths.
var gitRules = map[string]func(j *judge, g *words){
	"paths":     (*judge).gitPathspecs,
	"none":      (*judge).gitNoOperands,
	"remote":    (*judge).gitRemote,
	"symref":    (*judge).gitSymref,
	"notes":     (*judge).gitNotes,
	"list":      (*judge).gitList,
	"config":    (*judge).gitConfigRead,
	"stash":     (*judge).gitStash,
	"reflog":    (*judge).gitReflog,
	"worktree":  (*judge).gitWorktree,
	"revs":      (*judge).gitRevs,
	"grep":      (*judge).gitRevs,
	"submodule": (*judge).gitSubmodule, // gitread.go
	"var":       (*judge).gitVar,
	"help":      (*judge).gitHelp,
	"files":     (*judge).gitFiles,
	"archive":   (*judge).gitArchive,
}

// gitPathspecs: every operand is a pathspec (":" magic aside), probed.
func (j *judge) gitPathspecs(g *words) {
	for _, o := range g.ops {
		if !strings.HasPrefix(o, ":") {
			g.acs = append(g.acs, access{word: o, what: "pathspec", mode: modeProbe})
		}
	}
}

func (j *judge) gitNoOperands(g *words) {
	if len(g.ops) > 0 {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("git %s %s is not a read-only use of git %s; only listing is accepted", g.prog.Name, g.ops[0], g.prog.Name), "git "+g.prog.Name+" -v")
	}
}

// gitRemote: git remote [-v] lists; git remote get-url NAME reads one
// URL. The other uses are the write table's (gitRemoteWrite).
func (j *judge) gitRemote(g *words) {
	if len(g.ops) > 0 && !(g.ops[0] == "get-url" && len(g.ops) == 2) {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("git remote %s: get-url takes one remote's name", strings.Join(g.ops, " ")), "git remote -v")
	}
}

// gitSymref: one operand reads the ref; two set it, which a person
// decides.
func (j *judge) gitSymref(g *words) {
	if len(g.ops) != 1 {
		j.gitReadWrite(g, "git symbolic-ref with a second operand changes what a ref points to")
	}
}

// gitNotes: git notes, list and show read the notes of one commit (or
// all, list alone); every other subcommand writes them.
func (j *judge) gitNotes(g *words) {
	if len(g.ops) == 0 || (g.ops[0] == "list" || g.ops[0] == "show") && len(g.ops) <= 2 {
		return
	}
	if g.ops[0] == "list" || g.ops[0] == "show" {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("git notes %s takes one commit", g.ops[0]), "git notes "+g.ops[0]+" COMMIT")
		return
	}
	j.gitReadWrite(g, fmt.Sprintf("git notes %s changes a commit's notes", g.ops[0]))
}

// gitList: git branch and git tag list, with --list for operands; their
// other uses are the write table's (gitBranch, gitTag).
func (j *judge) gitList(g *words) {
	if len(g.ops) > 0 && g.ps.has("list") == nil {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("git %s %q: a listing takes --list for patterns", g.prog.Name, g.ops[0]), "git "+g.prog.Name+" --list PATTERN")
	}
}

// gitConfigRead: git config reads one name, or lists, from the
// repository's own configuration only: without --local (--worktree, or
// --file naming a file of the workspace) it reads the person's global
// and system configuration too, tokens included. The other forms are
// the write table's (config-write).
func (j *judge) gitConfigRead(g *words) {
	if !configReads(&g.ps) {
		j.refuse(rule.ConfigWrite, fmt.Sprintf("git config %s would change the configuration or open an editor; only reading it is accepted", strings.Join(g.ops, " ")), "git config --local --get NAME, or git config --local --list")
		return
	}
	if g.ps.has("scope") == nil && !plainConfigKey(&g.ps) {
		j.refuse(rule.ForbiddenFlag, "git config without --local reads the person's global and system configuration too (~/.gitconfig, /etc/gitconfig), which may hold tokens; only the repository's own is read",
			"add --local: git config --local --list, git config --local --get NAME")
	}
}

// configReads reports the forms of git config that read: --get and
// --list with a name or pattern, one NAME, get NAME, list.
func configReads(ps *parsed) bool {
	ops := ps.operands
	listing := ps.has("list") != nil
	switch {
	case listing && len(ops) <= 2:
	case !listing && len(ops) == 1 && strings.Contains(ops[0], ".") && !strings.HasPrefix(ops[0], "-"):
	case !listing && len(ops) >= 1 && len(ops) <= 3 && ops[0] == "get":
	case !listing && len(ops) == 1 && ops[0] == "list":
	default:
		return false
	}
	return true
}

func (j *judge) gitStash(g *words) {
	if len(g.ops) == 0 || (g.ops[0] != "list" && g.ops[0] != "show") {
		j.refuse(rule.ForbiddenFlag, "git stash: the reading uses are list and show", "git stash list")
	}
}

func (j *judge) gitReflog(g *words) {
	if len(g.ops) > 0 && (g.ops[0] == "expire" || g.ops[0] == "delete" || g.ops[0] == "drop") {
		j.gitReadWrite(g, fmt.Sprintf("git reflog %s drops entries of the reflog, which may be the last record of lost commits", g.ops[0]))
	}
}

// gitReadWrite asks about a writing use of a subcommand of the read
// table, which needs the workspace-write effect mode.
func (j *judge) gitReadWrite(g *words, why string) {
	j.wrote()
	if j.c.Effects != WorkspaceWrite {
		j.refuse(rule.ReadOnlyEffects, why+", and the effect mode is read-only", "ask the person for the workspace-write effect mode")
		return
	}
	j.asksCode(rule.GitSubcommand, append([]string{"git", strings.TrimPrefix(g.prog.Name, "git ")}, g.ops...), why+", so a person decides", "")
}

func (j *judge) gitWorktree(g *words) {
	if len(g.ops) != 1 || g.ops[0] != "list" {
		j.refuse(rule.ForbiddenFlag, "git worktree: the reading use is list", "git worktree list")
	}
}

// gitRevs: revisions and paths. Before "--" a word is a path when it
// looks like one (looksLikePath); after it, every word is. git grep's
// first operand is its pattern, unless -e gave one.
func (j *judge) gitRevs(g *words) {
	ops, dash := g.ops, g.ps.dash
	if g.prog.rules == "grep" && g.ps.has("pattern") == nil && len(ops) > 0 {
		if dash == 0 {
			j.refuse(rule.ForbiddenFlag, "git grep needs a pattern before --", "")
			return
		}
		ops = ops[1:]
		if dash > 0 {
			dash--
		}
	}
	noindex := g.ps.has("noindex") != nil
	for k, o := range ops {
		isPath := noindex || (dash >= 0 && k >= dash)
		if !isPath {
			isPath = j.looksLikePath(o)
		}
		if isPath && !strings.HasPrefix(o, ":") {
			g.acs = append(g.acs, access{word: o, what: "path", mode: modeRead})
		}
	}
}

// looksLikePath tells a path from a revision before "--": a word that
// exists as a path, or that is written as one (absolute, "~", "..").
func (j *judge) looksLikePath(o string) bool {
	if strings.HasPrefix(o, "/") || strings.HasPrefix(o, "~") || o == ".." || strings.HasPrefix(o, "../") || strings.Contains(o, "/../") || strings.HasSuffix(o, "/..") {
		return true
	}
	if strings.ContainsAny(o, ":^@{}") || strings.Contains(o, "..") {
		return false // revision syntax: HEAD:file, HEAD^, @{u}, a..b
	}
	r, ok := j.quietResolve(o)
	return ok && r.Exists
}

func (j *judge) gitNames() string {
	names := make([]string, 0, len(j.p.git))
	for n := range j.p.git {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
