package command

import (
	"fmt"
	"slices"
	"strings"

	"admit/policy/rule"
)

// git that writes, in the workspace-write effect mode. add, commit (-m,
// -F), restore, rm, mv, switch and checkout, branch NAME, tag NAME,
// stash (push, pop, apply, drop, branch) and reset (soft and mixed) run
// with the other checks passed; what rewrites history or discards work
// (merge, rebase, cherry-pick, revert, reset --hard, commit --amend,
// clean -f, a forced switch) and what opens an editor are asked
// (git-subcommand); fetch, pull, push, clone and ls-remote are asked
// (network). A forced push, a deleting or mirroring one, or one to a
// remote the repository does not have is refused (destroys-external), and
// so are changes to git's configuration and remotes (config-write). git
// itself writes .git/ (that is not the agent writing .git/: the folder is
// among the command's writes, so a run's readback expects it), and the
// checks on configuration that runs programs still apply
// (git-config-exec), with the hooks and the keys that only these
// commands read (GitWrites). A path the command changes (git restore
// a.txt, git rm b) is a write like any other: inside, observed, not
// protected. A command that changes the working tree beyond the paths it
// names (checkout of another commit, pull, stash pop) makes every path
// another command of the line names uncertain (dynamic-word), as mv of a
// folder does.

// gitEffect is what a git command that writes does, as its rule found.
type gitEffect struct {
	write   bool     // changes the repository (refs, the index, objects): workspace-write
	tree    bool     // changes files of the working tree beyond the paths it names
	hooks   []string // the hooks it runs
	network bool     // talks to a remote (asked: network)
	ask     string   // why a person decides (git-subcommand), or ""
}

// gitWrite is a subcommand that writes: its options and its rule.
type gitWrite struct {
	prog *Program
	// handles reports whether the words after the subcommand are a
	// writing use; nil: always. (git branch, tag, stash, remote, config
	// and worktree also read; their reading uses stay the read table's.)
	handles func(p *Policy, args []string) bool
	judge   func(j *judge, g *words, e *gitEffect)
	// permissive: the subcommand is asked whatever its options, which
	// are taken as words (merge, rebase, fetch): they are only looked at
	// for paths, and for the options refuse names (space-separated; an
	// option's "=value" form too).
	permissive bool
	refuse     string
}

// Hooks git runs.
var (
	hooksCommit   = []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "reference-transaction", "post-index-change"}
	hooksCheckout = []string{"post-checkout", "reference-transaction", "post-index-change"}
	hooksMerge    = []string{"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", "pre-rebase", "post-rewrite", "post-checkout", "post-commit", "reference-transaction", "post-index-change", "pre-auto-gc"}
	hooksRefs     = []string{"reference-transaction"}
	hooksIndex    = []string{"reference-transaction", "post-index-change"}
	hooksPush     = []string{"pre-push", "reference-transaction"}
)

// interactive is the reason refused interactive options give.
const interactive = "works interactively on the terminal; name what to change instead"

// gitWriteTable is the subcommands that write, by name.
func gitWriteTable() map[string]*gitWrite {
	pathspecFile := []Option{{Names: "--pathspec-from-file", Arg: ReadArg}, {Names: "--pathspec-file-nul"}}
	t := map[string]*gitWrite{
		"add": {prog: &Program{Name: "add", Options: joinOptions(pathspecFile, []Option{
			{Names: "-A --all --no-all -u --update --no-ignore-removal --ignore-removal -N --intent-to-add -f --force -n --dry-run -v --verbose"},
			{Names: "--refresh --ignore-errors --ignore-missing --renormalize --sparse --no-warn-embedded-repo"}, {Names: "--chmod", Arg: TextArg},
			{Names: "-p --patch -i --interactive -e --edit", Refuse: interactive},
		})}, judge: (*judge).gitAdd},
		"commit": {prog: &Program{Name: "commit", Options: joinOptions(pathspecFile, []Option{
			{Names: "-m --message --author --date -C --reuse-message --fixup --squash --cleanup --trailer", Arg: TextArg, Mark: "message"},
			{Names: "-F --file", Arg: ReadArg, Mark: "message"}, {Names: "-t --template", Arg: ReadArg},
			{Names: "-a --all -q --quiet -v --verbose -s --signoff --no-signoff -n --no-verify --verify --allow-empty --allow-empty-message"},
			{Names: "--no-edit --no-gpg-sign -o --only -i --include --dry-run --short --porcelain --long --status --no-status -z --null --reset-author --no-post-rewrite"},
			{Names: "-u --untracked-files", Arg: OptionalArg},
			{Names: "--amend", Mark: "amend"}, {Names: "-e --edit -c --reedit-message", Arg: NoArg, Mark: "editor"},
			{Names: "-S --gpg-sign", Arg: OptionalArg, Mark: "gpg"},
			{Names: "-p --patch --interactive", Refuse: interactive},
		})}, judge: (*judge).gitCommit},
		"restore": {prog: &Program{Name: "restore", Options: joinOptions(pathspecFile, []Option{
			{Names: "-s --source --conflict", Arg: TextArg}, {Names: "-S --staged", Mark: "staged"}, {Names: "-W --worktree", Mark: "worktree"},
			{Names: "--ours --theirs -m --merge --ignore-unmerged --overlay --no-overlay -q --quiet --progress --no-progress --recurse-submodules --no-recurse-submodules --ignore-skip-worktree-bits"},
			{Names: "-p --patch", Refuse: interactive},
		})}, judge: (*judge).gitRestore},
		"rm": {prog: &Program{Name: "rm", Options: joinOptions(pathspecFile, []Option{
			{Names: "--cached", Mark: "staged"}, {Names: "-r", Mark: "recursive"},
			{Names: "-f --force -n --dry-run -q --quiet --ignore-unmatch --sparse"},
		})}, judge: (*judge).gitRm},
		"mv": {prog: &Program{Name: "mv", Options: []Option{{Names: "-f --force -k -n --dry-run -v --verbose --sparse"}}}, judge: (*judge).gitMv},
		"switch": {prog: &Program{Name: "switch", Options: []Option{
			{Names: "-c --create -C --force-create --orphan", Arg: TextArg, Mark: "create"}, {Names: "--conflict", Arg: TextArg},
			{Names: "-d --detach --guess --no-guess --no-track -m --merge -q --quiet --progress --no-progress --ignore-other-worktrees --recurse-submodules --no-recurse-submodules"},
			{Names: "-t --track", Arg: OptionalArg}, {Names: "-f --force --discard-changes", Mark: "force"},
		}}, judge: (*judge).gitSwitch},
		"checkout": {prog: &Program{Name: "checkout", Options: joinOptions(pathspecFile, []Option{
			{Names: "-b -B --orphan", Arg: TextArg, Mark: "create"}, {Names: "--conflict", Arg: TextArg},
			{Names: "-l --detach --no-track --guess --no-guess -m --merge --ours --theirs -q --quiet --progress --no-progress --overlay --no-overlay"},
			{Names: "--ignore-skip-worktree-bits --ignore-other-worktrees --recurse-submodules --no-recurse-submodules"},
			{Names: "-t --track", Arg: OptionalArg}, {Names: "-f --force", Mark: "force"},
			{Names: "-p --patch", Refuse: interactive},
		})}, judge: (*judge).gitCheckout},
		"reset": {prog: &Program{Name: "reset", Options: joinOptions(pathspecFile, []Option{
			{Names: "--soft --mixed -N -q --quiet --no-quiet --refresh --no-refresh --recurse-submodules --no-recurse-submodules"},
			{Names: "--hard --keep --merge", Mark: "hard"},
			{Names: "-p --patch", Refuse: interactive},
		})}, judge: (*judge).gitReset},
		"clean": {prog: &Program{Name: "clean", Options: []Option{
			{Names: "-n --dry-run", Mark: "dry"}, {Names: "-f --force -d -x -X -q --quiet"}, {Names: "-e --exclude", Arg: TextArg},
			{Names: "-i --interactive", Refuse: interactive},
		}}, judge: (*judge).gitClean},
		"push": {prog: &Program{Name: "push", Options: []Option{
			{Names: "-f --force --force-if-includes -d --delete --mirror --prune", Mark: "force"},
			{Names: "--force-with-lease", Arg: OptionalArg, Mark: "force"},
			{Names: "--all --branches --tags --follow-tags --no-follow-tags -u --set-upstream -n --dry-run -q --quiet -v --verbose --progress --no-progress"},
			{Names: "--no-verify --verify --atomic --no-atomic --porcelain --no-force-with-lease --thin --no-thin --ipv4 -4 --ipv6 -6"},
			{Names: "--signed --recurse-submodules", Arg: OptionalArg}, {Names: "--no-signed"},
			{Names: "-o --push-option", Arg: TextArg}, {Names: "--repo", Arg: TextArg, Mark: "repo"},
			{Names: "--receive-pack --exec", Arg: TextArg, Refuse: "runs a program on the remote side (on this machine, for a remote that is a folder)"},
		}}, judge: (*judge).gitPush},
		// Asked whatever their options: they rewrite history, merge
		// others' work or fetch it.
		"merge":       {prog: &Program{Name: "merge", NoOptions: true}, permissive: true, judge: gitAsks("merges another line of history into the working tree", hooksMerge, false)},
		"rebase":      {prog: &Program{Name: "rebase", NoOptions: true}, permissive: true, judge: gitAsks("rewrites the branch's history", hooksMerge, false)},
		"cherry-pick": {prog: &Program{Name: "cherry-pick", NoOptions: true}, permissive: true, judge: gitAsks("applies other commits onto the branch", hooksMerge, false)},
		"revert":      {prog: &Program{Name: "revert", NoOptions: true}, permissive: true, judge: gitAsks("makes commits that undo others", hooksMerge, false)},
		"am":          {prog: &Program{Name: "am", NoOptions: true}, permissive: true, judge: gitAsks("applies mailed patches as commits", hooksMerge, false)},
		"fetch":       {prog: &Program{Name: "fetch", NoOptions: true}, permissive: true, refuse: "--upload-pack", judge: gitAsks("", hooksRefs, true)},
		"pull":        {prog: &Program{Name: "pull", NoOptions: true}, permissive: true, refuse: "--upload-pack", judge: gitAsks("", hooksMerge, true)},
		"clone":       {prog: &Program{Name: "clone", NoOptions: true}, permissive: true, refuse: "--upload-pack -u --template -c --config --separate-git-dir", judge: gitAsks("", nil, true)},
		"ls-remote":   {prog: &Program{Name: "ls-remote", NoOptions: true}, permissive: true, refuse: "--upload-pack -u", judge: gitAsks("", nil, true)},
		// Subcommands that also read: their writing uses.
		"branch": {prog: &Program{Name: "branch", Options: []Option{
			{Names: "-d --delete -m --move -c --copy --unset-upstream --no-track -q --quiet -r --remotes --create-reflog --recurse-submodules"},
			{Names: "-D -M -C -f --force", Mark: "force"}, {Names: "--edit-description", Mark: "editor"},
			{Names: "-u --set-upstream-to", Arg: TextArg}, {Names: "-t --track", Arg: OptionalArg},
		}}, handles: branchWrites, judge: (*judge).gitBranch},
		"tag": {prog: &Program{Name: "tag", Options: []Option{
			{Names: "-a --annotate -d --delete --create-reflog --no-sign -q --quiet"},
			{Names: "-m --message", Arg: TextArg, Mark: "message"}, {Names: "-F --file", Arg: ReadArg, Mark: "message"},
			{Names: "--cleanup --trailer", Arg: TextArg},
			{Names: "-s --sign", Mark: "gpg"}, {Names: "-u --local-user", Arg: TextArg, Mark: "gpg"},
			{Names: "-f --force", Mark: "force"}, {Names: "-e --edit", Mark: "editor"},
		}}, handles: tagWrites, judge: (*judge).gitTag},
		"stash": {prog: &Program{Name: "stash", Options: joinOptions(pathspecFile, []Option{
			{Names: "-k --keep-index --no-keep-index --no-include-untracked -q --quiet -S --staged --index"},
			{Names: "-u --include-untracked -a --all", Mark: "untracked"},
			{Names: "-m --message", Arg: TextArg},
			{Names: "-p --patch", Refuse: interactive},
		})}, handles: stashWrites, judge: (*judge).gitStashWrite},
		"remote":   {prog: &Program{Name: "remote", NoOptions: true}, permissive: true, handles: remoteWrites, judge: (*judge).gitRemoteWrite},
		"config":   {prog: &Program{Name: "config", NoOptions: true}, permissive: true, handles: configWrites, judge: (*judge).gitConfigWrite},
		"worktree": {prog: &Program{Name: "worktree", NoOptions: true}, permissive: true, handles: worktreeWrites, judge: gitAsks("adds, moves or removes a working tree of the repository", hooksCheckout, false)},
	}
	idx := make([]optionIndex, len(t)) // indexed on first lookup; TestBuiltinTablesCompile indexes each
	for name, w := range t {
		w.prog.ExactLong = true
		w.prog.Name = "git " + name
		w.prog.idx, idx = &idx[0], idx[1:]
	}
	return t
}

// gitWriting judges a subcommand that writes (or talks to a remote).
func (j *judge) gitWriting(w *gitWrite, argv []string, i int) {
	args := argv[i+1:]
	ps, err := parseArgs(w.prog, args, false)
	if err != nil {
		j.refuse(rule.ForbiddenFlag, err.reason, "leave the option out")
		return
	}
	if j.refusedOption(w.prog, &ps) || !j.gitPager(argv, i) {
		return
	}
	if w.permissive {
		for _, a := range args {
			if a == "--" {
				break
			}
			name, _, _ := strings.Cut(a, "=")
			if hasField(w.refuse, name) || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 2 && hasField(w.refuse, a[:2])) {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of %s makes git run a program or read configuration the gate did not check", name, w.prog.Name), "leave out "+name)
				return
			}
		}
		if j.gitTransports(w.prog.Name, ps.operands); j.acc.refused {
			return
		}
		j.argPaths(argv, i+1)
		if j.acc.refused {
			return
		}
	}
	j.words = words{prog: w.prog, ps: ps, ops: ps.operands}
	g := &j.words
	for _, u := range ps.opts {
		if u.opt != nil && u.opt.Arg == ReadArg {
			g.add(access{word: u.value, what: "option " + u.name, mode: modeRead})
		}
	}
	e := gitEffect{write: true}
	w.judge(j, g, &e)
	if j.acc.refused {
		return
	}
	if e.write {
		j.wrote()
		if j.c.Effects != WorkspaceWrite {
			j.refuse(rule.ReadOnlyEffects, fmt.Sprintf("%s changes the repository, and the effect mode is read-only", w.prog.Name), "ask the person for the workspace-write effect mode")
			return
		}
	}
	j.check(&Program{Name: w.prog.Name}, g.acs)
	if j.acc.refused || j.c.FS == nil {
		return
	}
	if e.write {
		j.gitWrites(e.tree)
	}
	j.gitConfig()
	if j.acc.refused {
		return
	}
	if j.gitCredentialRead(argv[i], &g.ps, argv); j.acc.refused {
		return
	}
	if e.write || e.network {
		j.gitHooks(w.prog.Name, e.hooks)
	}
	cmd := showArgv(argv)
	switch {
	case e.network:
		j.asksCode(rule.Network, argv, fmt.Sprintf("%s talks to a remote, so a person decides", cmd), "")
	case e.ask != "":
		j.asksCode(rule.GitSubcommand, argv, fmt.Sprintf("%s %s, so a person decides", cmd, e.ask), "")
	}
}

// gitAsks is the rule of a subcommand a person decides whatever its
// options: why it asks ("" for a network command), the hooks it runs.
func gitAsks(why string, hooks []string, network bool) func(j *judge, g *words, e *gitEffect) {
	return func(j *judge, g *words, e *gitEffect) {
		e.tree, e.hooks, e.network, e.ask = !network || g.prog.Name == "git pull", hooks, network, why
		switch g.prog.Name {
		case "git ls-remote":
			e.write, e.tree = false, false
		case "git fetch", "git clone":
			e.tree = false
		}
	}
}

// gitSpecs judges pathspecs: probed, or written (with an observation)
// when the command changes them; pathspec magic (":/", ":(top)") is
// refused where it writes, since it names paths the gate cannot resolve.
func (j *judge) gitSpecs(g *words, ops []string, write, recursive bool) {
	for _, o := range ops {
		if strings.HasPrefix(o, ":") {
			if write {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s: the pathspec %q uses pathspec magic, which names paths the gate cannot resolve", g.prog.Name, o), "name the paths plainly")
				return
			}
			continue
		}
		if write {
			g.add(access{word: o, what: "pathspec", mode: modeWrite, recursive: recursive, nofollow: true})
		} else {
			g.add(access{word: o, what: "pathspec", mode: modeProbe})
		}
	}
}

func (j *judge) gitAdd(g *words, e *gitEffect) {
	e.hooks = hooksIndex
	j.gitSpecs(g, g.ops, false, false)
	j.stagesSecret(g.ops)
}

func (j *judge) gitCommit(g *words, e *gitEffect) {
	e.hooks = hooksCommit
	j.gitSpecs(g, g.ops, false, false)
	amend := g.ps.has("amend") != nil
	switch {
	case g.ps.has("gpg") != nil:
		e.ask = "signs the commit, which runs gpg"
	case g.ps.has("editor") != nil:
		e.ask = "opens an editor for the message"
	case amend:
		e.ask = "rewrites the last commit (--amend)"
	case g.ps.has("message") == nil && !hasName(&g.ps, "--no-edit"):
		e.ask = "opens an editor for the message (give it with -m or -F)"
	}
}

func (j *judge) gitRestore(g *words, e *gitEffect) {
	if len(g.ops) == 0 && !hasName(&g.ps, "--pathspec-from-file") {
		j.refuse(rule.NoTarget, "git restore names no path to restore", "name the files: git restore FILE")
		return
	}
	worktree := g.ps.has("worktree") != nil || g.ps.has("staged") == nil
	if hasName(&g.ps, "--pathspec-from-file") && worktree {
		j.refuse(rule.NoTarget, "git restore --pathspec-from-file changes files named in a file, which the gate cannot check", "name the files")
		return
	}
	e.tree = worktree
	e.hooks = hooksIndex
	j.gitSpecs(g, g.ops, worktree, true)
}

func (j *judge) gitRm(g *words, e *gitEffect) {
	if hasName(&g.ps, "--pathspec-from-file") && g.ps.has("staged") == nil {
		j.refuse(rule.NoTarget, "git rm --pathspec-from-file removes files named in a file, which the gate cannot check", "name the files")
		return
	}
	e.hooks = hooksIndex
	j.gitSpecs(g, g.ops, g.ps.has("staged") == nil, g.ps.has("recursive") != nil)
}

func (j *judge) gitMv(g *words, e *gitEffect) {
	if len(g.ops) < 2 {
		j.refuse(rule.NoTarget, "git mv needs a source and a destination", "")
		return
	}
	e.tree, e.hooks = true, hooksIndex
	j.gitSpecs(g, g.ops, true, true)
	dest := g.ops[len(g.ops)-1]
	for _, src := range g.ops[:len(g.ops)-1] {
		t := dest
		if len(g.ops) > 2 {
			t = intoFolder(dest, src)
		} else if r, ok := j.quietResolve(dest); ok && r.Exists && r.Dir {
			t = intoFolder(dest, src)
		}
		j.relabelsSecret("git mv", src, t)
	}
}

func (j *judge) gitSwitch(g *words, e *gitEffect) {
	e.hooks = hooksCheckout
	// switch -c NAME without a start point keeps the tree as it is.
	e.tree = !(g.ps.has("create") != nil && len(g.ops) == 0)
	if g.ps.has("force") != nil {
		e.ask = "discards the changes of the working tree (--force)"
	}
}

func (j *judge) gitCheckout(g *words, e *gitEffect) {
	e.hooks = hooksCheckout
	if g.ps.has("force") != nil {
		e.ask = "discards the changes of the working tree (--force)"
	}
	ops, dash := g.ops, g.ps.dash
	var paths []string
	switch {
	case g.ps.has("create") != nil:
		e.tree = len(ops) > 0 // a start point moves the tree there
		return
	case dash >= 0:
		if dash > 1 {
			j.refuse(rule.ForbiddenFlag, "git checkout takes one revision before --", "")
			return
		}
		paths = ops[dash:]
	case len(ops) > 0 && j.looksLikePath(ops[0]):
		paths = ops
	default:
		if len(ops) > 0 {
			paths = ops[1:]
		}
	}
	e.tree = true
	if len(paths) > 0 {
		j.gitSpecs(g, paths, true, true)
	}
}

func (j *judge) gitReset(g *words, e *gitEffect) {
	e.hooks = hooksIndex
	if g.ps.has("hard") != nil {
		e.tree, e.hooks = true, hooksCheckout
		e.ask = "discards the uncommitted changes of the working tree (--hard, --keep, --merge)"
	}
	ops, dash := g.ops, g.ps.dash
	switch {
	case dash >= 0:
		j.gitSpecs(g, ops[dash:], false, false)
	case len(ops) > 1:
		j.gitSpecs(g, ops[1:], false, false)
	}
}

func (j *judge) gitClean(g *words, e *gitEffect) {
	if g.ps.has("dry") != nil {
		e.write = false
		j.gitSpecs(g, g.ops, false, false)
		return
	}
	e.tree = true
	e.ask = "deletes the untracked files of the working tree, which no commit keeps"
	j.gitSpecs(g, g.ops, false, false)
}

// gitPush judges git push: a force, a delete, a mirror or a prune, a
// refspec that forces (+) or deletes (:), or a remote the repository does
// not have (a URL, a folder, or a name its configuration lacks) is
// refused; any other push asks, as it talks to a remote.
func (j *judge) gitPush(g *words, e *gitEffect) {
	e.write, e.network, e.hooks = true, true, hooksPush
	if u := g.ps.has("force"); u != nil {
		j.refuse(rule.DestroysExternal, fmt.Sprintf("git push %s overwrites or deletes what the remote holds", u.name), "push without "+u.name+"; ask the user to force a push themselves")
		return
	}
	remote := ""
	if u := g.ps.has("repo"); u != nil {
		remote = u.value
	}
	refs := g.ops
	if len(refs) > 0 {
		if remote == "" {
			remote = refs[0]
		}
		refs = refs[1:]
	}
	for _, r := range refs {
		if strings.HasPrefix(r, "+") || strings.HasPrefix(r, ":") {
			j.refuse(rule.DestroysExternal, fmt.Sprintf("git push refspec %q forces or deletes a ref of the remote", r), "push the branch by name, without + or :")
			return
		}
	}
	if remote == "" {
		return // the branch's upstream, a remote of the repository
	}
	if strings.ContainsAny(remote, "/:\\") || strings.HasPrefix(remote, ".") || strings.HasPrefix(remote, "~") {
		j.refuse(rule.DestroysExternal, fmt.Sprintf("git push to %q pushes to a URL or a folder, not to a remote the repository has", remote), "push to one of the repository's remotes (git remote -v)")
		return
	}
	gw, ok := j.c.FS.(GitWrites)
	if !ok {
		j.refuse(rule.DestroysExternal, fmt.Sprintf("git push to %q: the gate cannot read the repository's remotes here, so it cannot tell that %q is one of them", remote, remote), "")
		return
	}
	remotes, ok := gw.GitRemotes(j.cwd)
	switch {
	case !ok:
		j.refuse(rule.DestroysExternal, fmt.Sprintf("git push to %q: the repository's configuration cannot be read, so the gate cannot tell that %q is one of its remotes", remote, remote), "")
	case !slices.Contains(remotes, remote):
		j.refuse(rule.DestroysExternal, fmt.Sprintf("git push to %q: the repository has no remote %q (it has %s)", remote, remote, orNone(remotes)), "push to one of the repository's remotes")
	}
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// branchWrites reports a writing git branch: an option that changes
// branches, or a name without a listing option.
func branchWrites(p *Policy, args []string) bool {
	return refWrites(p.git["branch"], p.gitw["branch"].prog, args)
}

func tagWrites(p *Policy, args []string) bool {
	return refWrites(p.git["tag"], p.gitw["tag"].prog, args)
}

// refWrites reports whether args are a writing use of git branch or tag:
// any option of the writing table, or operands without a listing option.
func refWrites(read, write *Program, args []string) bool {
	if ps, err := parseArgs(read, args, false); err == nil {
		return len(ps.operands) > 0 && ps.has("list") == nil
	}
	_, err := parseArgs(write, args, false)
	return err == nil
}

func (j *judge) gitBranch(g *words, e *gitEffect) {
	e.hooks = hooksRefs
	switch {
	case g.ps.has("force") != nil:
		e.ask = "forces a change to a branch (-D, -M, -C, -f), which may drop commits no other branch keeps"
	case g.ps.has("editor") != nil:
		e.ask = "opens an editor"
	}
}

func (j *judge) gitTag(g *words, e *gitEffect) {
	e.hooks = hooksRefs
	annotate := hasName(&g.ps, "-a") || hasName(&g.ps, "--annotate")
	switch {
	case g.ps.has("gpg") != nil:
		e.ask = "signs the tag, which runs gpg"
	case g.ps.has("force") != nil:
		e.ask = "replaces an existing tag (-f)"
	case g.ps.has("editor") != nil || (annotate && g.ps.has("message") == nil):
		e.ask = "opens an editor for the tag's message"
	}
}

// stashWrites reports a writing git stash: anything but list and show.
func stashWrites(_ *Policy, args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a != "list" && a != "show"
		}
	}
	return true // git stash alone is git stash push
}

// gitStashWrite judges git stash push (save), pop, apply, drop, branch;
// clear, create and store ask.
func (j *judge) gitStashWrite(g *words, e *gitEffect) {
	verb, ops := "push", g.ops
	if len(ops) > 0 && g.ps.dash != 0 {
		verb, ops = ops[0], ops[1:]
	}
	e.hooks = hooksCheckout
	switch verb {
	case "push", "save":
		e.tree = true
		if g.ps.has("untracked") != nil {
			// -u and -a remove the untracked (and ignored) files they
			// stash: a workspace's policy not yet committed, the tape
			// and its head kept inside the workspace. They are changes
			// of their pathspecs, the whole tree without one.
			specs := ops
			if verb == "save" || len(specs) == 0 {
				specs = []string{"."}
			}
			j.gitSpecs(g, specs, true, true)
			return
		}
		if verb == "push" {
			j.gitSpecs(g, ops, false, false)
		}
	case "pop", "apply":
		e.tree = true
	case "branch":
		e.tree = true
	case "drop":
		e.hooks = hooksRefs
	case "clear":
		e.ask = "drops every stash, which no commit keeps"
	case "create", "store":
		e.ask = "makes stash entries by hand"
	default:
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("git stash %s is not a stash subcommand the policy knows", verb), "git stash push, pop, apply, drop, list or show")
	}
}

// remoteWrites reports a git remote that is not a listing.
func remoteWrites(_ *Policy, args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a != "get-url"
		}
	}
	return false
}

// gitRemoteWrite: adding, changing or removing a remote changes where the
// repository's pushes and fetches go (config-write); update, prune, show
// and set-head -a talk to the remote.
func (j *judge) gitRemoteWrite(g *words, e *gitEffect) {
	verb := ""
	for _, o := range g.ops {
		if !strings.HasPrefix(o, "-") {
			verb = o
			break
		}
	}
	switch verb {
	case "update", "prune", "show":
		e.network, e.write = true, verb != "show"
	default:
		j.refuse(rule.ConfigWrite, fmt.Sprintf("git remote %s changes the repository's remotes, which decide where its pushes and fetches go", verb), "ask the user to change the remotes themselves")
	}
}

// configWrites reports a git config that is not one of the reading forms
// the read table runs.
func configWrites(p *Policy, args []string) bool {
	read := p.git["config"]
	ps, err := parseArgs(read, args, false)
	if err != nil {
		return true
	}
	return !configReads(&ps)
}

func (j *judge) gitConfigWrite(g *words, _ *gitEffect) {
	j.refuse(rule.ConfigWrite, fmt.Sprintf("git config %s changes git's configuration, which decides the programs git runs and where it pushes", strings.Join(g.ops, " ")),
		"pass the setting to one command instead (git -c is refused too: ask the user to set it)")
}

// worktreeWrites reports a git worktree that is not a listing.
func worktreeWrites(_ *Policy, args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a != "list"
		}
	}
	return false
}

// gitWrites notes that git writes the repository's own folder (.git) and,
// when it changes the working tree beyond the paths it names, the tree:
// they are among the command's writes (a run's readback expects them),
// and every other command of the line that names a path in the tree is
// refused (treeChangedAt).
func (j *judge) gitWrites(tree bool) {
	top := j.repoTop()
	if top == "" {
		return
	}
	if r, ok := j.quietResolve(top + "/.git"); ok && inside(r.Path, j.c.Roots) {
		j.acc.writes = addPath(j.acc.writes, r.Path)
	}
	if !tree {
		return
	}
	j.acc.writes = addPath(j.acc.writes, top)
	for _, t := range j.acc.treeChanged {
		if t.path == top && t.cmd == j.cmd {
			return
		}
	}
	j.acc.treeChanged = append(j.acc.treeChanged, relink{path: top, cmd: j.cmd, by: "git", word: top})
}

// repoTop is the folder of the working tree the command runs in: the
// nearest folder up from the working folder, inside the roots, that holds
// a .git; the root it is in when none does.
func (j *judge) repoTop() string {
	root := j.rootOf(j.cwd)
	for d := j.cwd; d != "" && inside(d, j.c.Roots); d = parentOf(d) {
		if r, err := j.resolvePath(d + "/.git"); err == nil && r.Exists {
			return d
		}
		if d == root || d == "/" {
			break
		}
	}
	return root
}

// treeChangedAt returns the change of a working tree, by another command
// of the line, that p is in, or nil. git's own commands are not held to
// it: they act on the repository's entries, not through the tree's links.
func (j *judge) treeChangedAt(p string) *relink {
	if j.inGit {
		return nil
	}
	for i := range j.acc.treeChanged {
		t := &j.acc.treeChanged[i]
		if t.cmd != j.cmd && (p == t.path || strings.HasPrefix(p, t.path+"/")) {
			return t
		}
	}
	return nil
}

// gitHooks asks a person when git would run a hook of the repository, or
// a program named by a key only writing and network commands read.
func (j *judge) gitHooks(sub string, hooks []string) {
	gw, ok := j.c.FS.(GitWrites)
	if !ok {
		j.acc.asks(rule.GitConfigExec, fmt.Sprintf("%s may run the repository's hooks, and the gate cannot check them here, so a person must approve it", sub), "")
		return
	}
	if found := gw.GitWriteExec(j.cwd, hooks); found != "" {
		j.acc.asks(rule.GitConfigExec, fmt.Sprintf("%s would run a program of the repository's (%s), so a person must approve it", sub, found),
			"ask the person, or ask the user to run the git command themselves")
	}
}

// gitOther asks about a git subcommand the tables do not know: its words
// are looked at for paths outside the workspace, and the repository's
// configuration still decides whether git runs programs.
func (j *judge) gitOther(argv []string, i int) {
	j.argPaths(argv, i+1)
	if j.acc.refused {
		return
	}
	if j.c.FS != nil {
		j.gitConfig()
		if j.acc.refused {
			return
		}
	}
	j.asksCode(rule.GitSubcommand, argv, fmt.Sprintf("git %s is not a subcommand admit judges, so a person decides", argv[i]), "")
}

// gitNativeSchemes are the URL schemes git speaks itself (or with the
// helpers of its own exec path).
var gitNativeSchemes = []string{"http", "https", "ssh", "git", "file", "ftp", "ftps", "git+ssh", "ssh+git"}

// RemoteHelper returns the remote helper git starts for a remote's URL
// (TRANSPORT::ADDRESS, or a scheme git does not speak itself: evil://x),
// git-remote-TRANSPORT found on the command's PATH, or "" for a URL, a
// folder or an scp-like address git reads itself. ext:: runs its
// address as a command line.
func RemoteHelper(url string) string {
	if transport, _, ok := strings.Cut(url, "::"); ok && transport != "" && !strings.ContainsAny(transport, "/:@") {
		return "git-remote-" + transport
	}
	if scheme, _, ok := strings.Cut(url, "://"); ok && scheme != "" && !strings.ContainsAny(scheme, "/@:") && !slices.Contains(gitNativeSchemes, strings.ToLower(scheme)) {
		return "git-remote-" + scheme
	}
	return ""
}

// gitTransports judges the operands of a git command that talks to a
// remote: one that starts a remote helper (ext::sh, evil://x) is
// refused, and a file:// URL is judged as the folder it names.
func (j *judge) gitTransports(sub string, ops []string) {
	for _, o := range ops {
		if helper := RemoteHelper(o); helper != "" {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("%s %q: git starts the remote helper %s for it, found on the PATH (ext:: runs its address as a command)", sub, o, helper),
				"use an https:// or ssh URL")
			return
		}
		scheme, rest, url := strings.Cut(o, "://")
		if url && strings.EqualFold(scheme, "file") {
			// file:///path is the folder /path, read as a repository.
			j.argPaths([]string{sub, "/" + strings.TrimLeft(strings.TrimPrefix(rest, "localhost"), "/")}, 1)
			if j.acc.refused {
				return
			}
		}
	}
}
