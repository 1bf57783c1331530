package workspace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"admit/policy/command"
)

const (
	// maxIncludeDepth is git's own limit on nested includes (10); a file
	// nested deeper is reported, as git refuses to run with it.
	maxIncludeDepth = 10
	// maxConfigBytes bounds one configuration or attributes file. Real ones
	// are a few KiB; a bigger one is reported rather than parsed.
	maxConfigBytes = 1 << 20
	// maxModuleConfigs bounds how many submodule configurations under
	// .git/modules are read: git status recurses into submodules, and their
	// configuration is read by the git that it starts there.
	maxModuleConfigs = 200
)

// gitRepo is where a repository keeps what git reads.
type gitRepo struct {
	worktree  string // "" for a bare repository
	gitDir    string // the repository's own git folder
	commonDir string // where config, info/attributes and modules live
}

// GitExec names the first thing in the repository containing dir that
// would make git run a program when an agent runs a read command there, or
// returns "". It looks at, in order: a ".git" file whose gitdir lies
// outside the roots; the repository's config (and config.worktree), with
// every include and includeIf followed whatever its condition (relative to
// the including file, "~/" expanded, up to git's depth of 10); the
// configuration of submodules under .git/modules; an index hook; and every
// nested repository the index tracks as a gitlink whose folder holds one
// (git status and git diff look into them, running git there with their
// own configuration), the same way, down to maxGitlinkDepth; see
// runsProgram for the keys. A driver key (diff.NAME.textconv,
// filter.NAME.clean, ...) is reported whether or not an attributes file
// assigns it, and the report names the assignment when .gitattributes or
// info/attributes has one. A file that cannot be read or parsed, inside
// the roots, is reported too: the gate fails closed.
//
// The result reads like `core.pager = "less" in .git/config`.
//
// The global and system configurations (~/.gitconfig, /etc/gitconfig) are
// not read: they belong to the user, not to the workspace, and an agent
// cannot write them through the gate.
func (r *Resolver) GitExec(dir string) string { return r.gitExec(dir, 0, nil) }

// GitConfigFiles lists the configuration files git reads for a command
// run in dir, as GitExec finds them: the repository's config and
// config.worktree, every file an include or includeIf names (whether or
// not it exists yet: a command may create it before git runs), the
// configurations of submodules and of nested repositories tracked as
// gitlinks. Paths are resolved. It lists what it can reach; what GitExec
// would report as unreadable it leaves out.
func (r *Resolver) GitConfigFiles(dir string) []string {
	files := []string{}
	r.gitExec(dir, 0, &files)
	return files
}

// gitExec is GitExec at a nesting depth of gitlinks; with files, it
// collects the configuration files it reads instead of stopping at the
// first finding.
func (r *Resolver) gitExec(dir string, depth int, files *[]string) string {
	repo, finding := r.findRepo(dir)
	if finding != "" || repo.gitDir == "" {
		return finding
	}
	if top := repo.worktree; top != "" && !r.roots.Contains(top) {
		// The workspace is a folder inside a larger repository (or in
		// none, under a repository at home): git show HEAD:FILE, git grep
		// -- :/ and git log -p read files and history outside the roots.
		return fmt.Sprintf("the repository's working tree %s is outside the workspace roots, so git reads files and history there", top)
	}
	if top := repo.worktree; top == "" && !r.roots.Contains(repo.gitDir) {
		return fmt.Sprintf("the repository %s is outside the workspace roots", repo.gitDir)
	}
	c := configScan{roots: r.roots, display: repo.worktree, files: files}
	if repo.worktree == "" {
		c.display = filepath.Dir(repo.gitDir)
	}
	c.scanFile(filepath.Join(repo.commonDir, "config"), 0)
	if c.found == "" && repo.gitDir != repo.commonDir {
		c.scanFile(filepath.Join(repo.gitDir, "config"), 0)
	}
	if c.found == "" {
		c.scanFile(filepath.Join(repo.gitDir, "config.worktree"), 0)
	}
	if c.found == "" {
		c.scanModules(filepath.Join(repo.commonDir, "modules"))
	}
	if c.found == "" && files == nil {
		c.found = indexHook(repo.commonDir, c.show)
	}
	if c.found == "" && repo.worktree != "" {
		c.found = r.nestedRepos(repo, depth, files, c.show)
	}
	if c.found == "" {
		return ""
	}
	if c.driver != "" {
		files := []string{filepath.Join(repo.commonDir, "info", "attributes")}
		if repo.worktree != "" {
			files = append([]string{filepath.Join(repo.worktree, ".gitattributes")}, files...)
		}
		for _, f := range files {
			if line := assigns(f, c.driverKind, c.driver); line != "" {
				return fmt.Sprintf("%s (assigned by %s: %q)", c.found, c.show(f), line)
			}
		}
	}
	return c.found
}

// nestedRepos judges the repositories that repo's index tracks as
// gitlinks, in folders that hold one: git status runs git in each.
func (r *Resolver) nestedRepos(repo gitRepo, depth int, files *[]string, show func(string) string) string {
	index := filepath.Join(repo.gitDir, "index")
	links, err := readGitlinks(index, hashLen(repo.commonDir))
	if err != nil {
		if files != nil {
			return ""
		}
		return fmt.Sprintf("the index %s cannot be read, so the nested repositories git looks into are not known: %v", show(index), err)
	}
	n := 0
	for _, l := range links {
		sub := filepath.Join(repo.worktree, filepath.FromSlash(l))
		if _, err := os.Lstat(filepath.Join(sub, ".git")); err != nil {
			continue // not checked out: git does not look into it
		}
		n++
		switch {
		case n > maxGitlinks:
			if files != nil {
				return ""
			}
			return fmt.Sprintf("more than %d nested repositories are tracked as gitlinks: not all were checked", maxGitlinks)
		case depth+1 > maxGitlinkDepth:
			if files != nil {
				return ""
			}
			return fmt.Sprintf("the nested repository %s is more than %d repositories deep: not checked", show(sub), maxGitlinkDepth)
		}
		if f := r.gitExec(sub, depth+1, files); f != "" {
			return fmt.Sprintf("in the nested repository %s (tracked as a gitlink, which git status and git diff look into): %s", show(sub), f)
		}
	}
	return ""
}

// hashLen is the length of the repository's object names: 32 bytes
// with extensions.objectFormat = sha256, else 20.
func hashLen(commonDir string) int {
	data, err := readBounded(filepath.Join(commonDir, "config"))
	if err != nil {
		return 20
	}
	entries, err := parseGitConfig(data)
	if err != nil {
		return 20
	}
	for _, e := range entries {
		if e.section == "extensions" && e.sub == "" && e.key == "objectformat" && strings.EqualFold(e.value, "sha256") {
			return 32
		}
	}
	return 20
}

// findRepo walks up from dir as git's discovery does: at each folder, a
// ".git" folder or file, else the folder itself when it looks like a bare
// repository (HEAD, objects/, refs/). It goes up to "/": git does too.
func (r *Resolver) findRepo(dir string) (gitRepo, string) {
	res, err := resolve(filepath.Clean(dir))
	if err != nil {
		return gitRepo{}, fmt.Sprintf("cannot resolve %s: %v", dir, err)
	}
	d := res.Path
	for {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				gd, err := resolve(dotgit)
				if err != nil {
					return gitRepo{}, fmt.Sprintf("cannot resolve %s: %v", dotgit, err)
				}
				if r.roots.Contains(d) && !r.roots.Contains(gd.Path) {
					// A .git symlink planted in the workspace.
					return gitRepo{}, fmt.Sprintf("%s leads outside the workspace roots, to %s", dotgit, gd.Path)
				}
				return r.withCommonDir(gitRepo{worktree: d, gitDir: gd.Path})
			}
			if fi.Mode().IsRegular() {
				return r.gitFile(d, dotgit)
			}
		}
		if isGitDir(d) {
			return r.withCommonDir(gitRepo{gitDir: d})
		}
		if d == "/" {
			return gitRepo{}, ""
		}
		d = filepath.Dir(d)
	}
}

// gitFile follows a ".git" file ("gitdir: PATH").
func (r *Resolver) gitFile(worktree, dotgit string) (gitRepo, string) {
	inside := r.roots.Contains(worktree)
	data, err := readBounded(dotgit)
	if err != nil {
		if inside {
			return gitRepo{}, fmt.Sprintf(".git file %s cannot be read: %v", dotgit, err)
		}
		return gitRepo{}, ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		if inside {
			return gitRepo{}, fmt.Sprintf(".git file %s has no gitdir line", dotgit)
		}
		return gitRepo{}, ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(worktree, target)
	}
	gd, err := resolve(target)
	if err != nil || !gd.Exists {
		if inside {
			return gitRepo{}, fmt.Sprintf("gitdir: %s in %s cannot be resolved", target, dotgit)
		}
		return gitRepo{}, ""
	}
	if inside && !r.roots.Contains(gd.Path) {
		return gitRepo{}, fmt.Sprintf("gitdir: %s in %s is outside the workspace roots", target, dotgit)
	}
	repo, finding := r.withCommonDir(gitRepo{worktree: worktree, gitDir: gd.Path})
	if finding == "" && inside && !r.roots.Contains(repo.commonDir) {
		finding = fmt.Sprintf("commondir %s of %s is outside the workspace roots", repo.commonDir, gd.Path)
	}
	return repo, finding
}

// withCommonDir reads the "commondir" file of a linked worktree.
func (r *Resolver) withCommonDir(repo gitRepo) (gitRepo, string) {
	repo.commonDir = repo.gitDir
	data, err := readBounded(filepath.Join(repo.gitDir, "commondir"))
	if err != nil {
		return repo, ""
	}
	cd := strings.TrimSpace(string(data))
	if cd == "" {
		return repo, ""
	}
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(repo.gitDir, cd)
	}
	res, err := resolve(cd)
	if err != nil {
		return repo, fmt.Sprintf("commondir %s of %s cannot be resolved: %v", cd, repo.gitDir, err)
	}
	repo.commonDir = res.Path
	return repo, ""
}

// isGitDir is git's is_git_directory: HEAD, objects/ and refs/.
func isGitDir(d string) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || fi.IsDir() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// configScan walks configuration files and keeps the first finding; or,
// with files, collects every configuration file it would read and keeps
// no finding.
type configScan struct {
	roots   *Roots
	display string // paths under it are shown relative to it
	found   string
	files   *[]string
	// driver and driverKind name the attribute driver of the finding
	// ("diff", "x"), for the attributes lookup.
	driver, driverKind string
}

// show is how a file is named in a finding.
func (c *configScan) show(p string) string {
	if rel, err := filepath.Rel(c.display, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// report keeps a finding; it reports whether the scan stops there
// (it goes on when it collects files).
func (c *configScan) report(finding string) bool {
	if c.files != nil {
		return false
	}
	c.found = finding
	return true
}

// scanFile reads one configuration file and those it includes.
func (c *configScan) scanFile(path string, depth int) {
	if c.found != "" {
		return
	}
	res, err := resolve(path)
	inside := err == nil && c.roots.Contains(res.Path)
	if err != nil {
		c.report(fmt.Sprintf("%s cannot be resolved: %v", c.show(path), err))
		return
	}
	if c.files != nil {
		if slices.Contains(*c.files, res.Path) {
			return // an include loop: read once
		}
		*c.files = append(*c.files, res.Path)
	}
	data, err := readBounded(res.Path)
	if err != nil {
		// git skips a missing file; one it cannot read, inside the
		// roots, might hide anything: fail closed.
		if inside && !errors.Is(err, fs.ErrNotExist) {
			c.report(fmt.Sprintf("%s cannot be read: %v", c.show(path), err))
		}
		return
	}
	entries, err := parseGitConfig(data)
	if err != nil {
		c.report(fmt.Sprintf("%s cannot be parsed: %v", c.show(path), err))
		return
	}
	for _, e := range entries {
		if isInclude(e) {
			if !e.hasValue || e.value == "" {
				continue
			}
			if depth+1 > maxIncludeDepth {
				if c.report(fmt.Sprintf("%s = %q in %s: includes nested deeper than %d", e.name(), e.value, c.show(path), maxIncludeDepth)) {
					return
				}
				continue
			}
			inc, ok := includePath(e.value, filepath.Dir(path))
			if !ok {
				if c.report(fmt.Sprintf("%s = %q in %s: home folder unknown", e.name(), e.value, c.show(path))) {
					return
				}
				continue
			}
			c.scanFile(inc, depth+1)
			if c.found != "" {
				return
			}
			continue
		}
		if c.files != nil {
			continue // collecting: only includes matter
		}
		if why := c.outsideWorktree(e, path); why != "" {
			c.found = why
			return
		}
		if runsProgram(e) || runsProgramToo(e) {
			v := e.value
			if !e.hasValue {
				v = "true"
			}
			c.found = fmt.Sprintf("%s = %q in %s", e.name(), v, c.show(path))
			if (e.section == "diff" || e.section == "filter") && e.sub != "" {
				c.driverKind, c.driver = e.section, e.sub
			}
			return
		}
	}
}

// includePath is where include.path = v points, from the including
// file's folder.
func includePath(v, from string) (string, bool) {
	if v == "~" || strings.HasPrefix(v, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		return filepath.Join(home, strings.TrimPrefix(v, "~")), true
	}
	if filepath.IsAbs(v) {
		return filepath.Clean(v), true
	}
	return filepath.Join(from, v), true
}

// scanModules reads the configuration of each submodule repository kept
// under modules/ (nested ones included), up to maxModuleConfigs.
func (c *configScan) scanModules(dir string) {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || c.found != "" {
			return fs.SkipDir
		}
		if !d.IsDir() || !isGitDir(p) {
			return nil
		}
		n++
		if n > maxModuleConfigs {
			c.report(fmt.Sprintf("more than %d submodule repositories under %s: not all were checked", maxModuleConfigs, c.show(dir)))
			return fs.SkipAll
		}
		c.scanFile(filepath.Join(p, "config"), 0)
		if c.found != "" {
			return fs.SkipAll
		}
		// objects/ and refs/ hold no configuration.
		return nil
	})
}

// assigns returns the first line of the attributes file that sets
// kind=driver ("diff=x", "filter=x"), or "".
func assigns(file, kind, driver string) string {
	data, err := readBounded(file)
	if err != nil {
		return ""
	}
	want := kind + "=" + driver
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		for _, f := range fields[1:] {
			if f == want {
				return line
			}
		}
	}
	return ""
}

// readBounded reads a small file, refusing one over maxConfigBytes or one
// that is not a regular file (a FIFO would block).
func readBounded(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s", ErrNotRegular, p)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, p, maxConfigBytes)
	}
	return data, nil
}

// runsProgramToo covers keys runsProgram leaves out that read commands
// also act on: log.showSignature makes log and show run gpg (as
// --show-signature, which the policy refuses),
// core.alternateRefsCommand runs for rev-list --alternate-refs, git help
// runs man.viewer, help.browser and their commands, and git archive a
// tar.FORMAT.command.
func runsProgramToo(e configEntry) bool {
	switch {
	case e.section == "log" && e.sub == "" && e.key == "showsignature":
		v, ok := gitBool(e)
		return !ok || v
	case e.section == "core" && e.sub == "" && e.key == "alternaterefscommand":
		return e.hasValue && e.value != ""
	case e.section == "pretty" && e.sub == "" || e.section == "format" && e.sub == "" && e.key == "pretty":
		// --pretty=NAME, or log's default format, with a placeholder
		// that verifies signatures runs gpg.
		return e.hasValue && command.SignatureFormat(e.value) != ""
	case e.section == "man" && (e.sub == "" && e.key == "viewer" || e.sub != "" && (e.key == "cmd" || e.key == "path")),
		e.section == "help" && e.sub == "" && (e.key == "browser" || e.key == "format"),
		e.section == "web" && e.sub == "" && e.key == "browser",
		e.section == "browser" && e.sub != "" && (e.key == "cmd" || e.key == "path"):
		// git help shows a page with the viewer or browser they name.
		return e.hasValue && e.value != "" && !(e.section == "help" && e.key == "format" && (e.value == "man" || e.value == "info"))
	case e.section == "tar" && e.sub != "" && e.key == "command":
		// git archive --format=NAME pipes the tar through the command.
		return e.hasValue && e.value != ""
	case e.section == "shortlog" && e.sub == "" && e.key == "group":
		// shortlog's default --group, format:FORMAT among them.
		f, ok := strings.CutPrefix(e.value, "format:")
		return e.hasValue && ok && command.SignatureFormat(f) != ""
	}
	return false
}

// outsideWorktree reports a core.worktree that puts the working tree
// outside the roots: git status, diff and ls-files would then read files
// there.
func (c *configScan) outsideWorktree(e configEntry, file string) string {
	if e.section != "core" || e.sub != "" || e.key != "worktree" || !e.hasValue || e.value == "" {
		return ""
	}
	wt := e.value
	if !filepath.IsAbs(wt) {
		// Relative to the git directory holding the configuration.
		wt = filepath.Join(filepath.Dir(file), wt)
	}
	res, err := resolve(filepath.Clean(wt))
	if err == nil && c.roots.Contains(res.Path) {
		return ""
	}
	return fmt.Sprintf("core.worktree = %q in %s puts the working tree outside the workspace", e.value, c.show(file))
}

// indexHook reports an executable post-index-change hook: git status
// and git diff refresh and write the index, and writing it runs that
// hook. (A core.hooksPath elsewhere is reported as a key.)
func indexHook(gitDir string, show func(string) string) string {
	p := filepath.Join(gitDir, "hooks", "post-index-change")
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return fmt.Sprintf("the hook %s runs when git status or git diff writes the index", show(p))
}
