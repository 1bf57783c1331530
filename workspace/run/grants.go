package run

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"admit/internal/sysfile"
)

// What a confined run may read and write besides the workspace: the lists
// below are the whole of it (docs/confinement.md says the same, with the
// reasons).

// toolchainDir is a folder a toolchain keeps outside the workspace.
type toolchainDir struct {
	Path  string
	Write bool   // a cache rather than an install; both are only read and executed (caches.go)
	Why   string // the variable or program it was found from
}

// toolchainDirs finds the toolchains' installs and caches from env (the
// person's environment, scrubbed) and the programs on its PATH, as each
// tool documents its defaults; only folders that exist are returned.
// Credentials kept beside them (~/.cargo/credentials.toml, ~/.m2/
// settings.xml, ~/.gradle/gradle.properties, ~/.npmrc) are not included.
func toolchainDirs(env []string) []toolchainDir {
	home := envValue(env, "HOME")
	var out []toolchainDir
	add := func(path string, write bool, why string) {
		if path == "" || !filepath.IsAbs(path) {
			return
		}
		path = filepath.Clean(path)
		if unsafeGrant(path, home) {
			return
		}
		if _, err := os.Stat(path); err != nil {
			return
		}
		out = append(out, toolchainDir{Path: path, Write: write, Why: why})
	}
	fromHome := func(rel ...string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(append([]string{home}, rel...)...)
	}
	or := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	cacheHome, configHome := userCacheHome(env, home), userConfigHome(env, home)
	path := envValue(env, "PATH")

	// Go: GOROOT (or the install the go on PATH belongs to), the module
	// and build caches, and the person's go env file.
	goroot := envValue(env, "GOROOT")
	if goroot == "" {
		if bin := findOnPath(path, "go"); bin != "" {
			if root := filepath.Dir(filepath.Dir(bin)); dirExists(filepath.Join(root, "pkg", "tool")) {
				goroot = root
			}
		}
	}
	add(goroot, false, "GOROOT")
	gopath := or(strings.Split(envValue(env, "GOPATH"), ":")[0], fromHome("go"))
	add(or(envValue(env, "GOMODCACHE"), joinIf(gopath, "pkg", "mod")), true, "GOMODCACHE")
	add(or(envValue(env, "GOCACHE"), joinIf(cacheHome, "go-build")), true, "GOCACHE")
	add(joinIf(configHome, "go", "env"), false, "GOENV")

	// Node: the prefix node was installed under (nvm, fnm, a tarball) and
	// npm's cache.
	if bin := findOnPath(path, "node"); bin != "" && filepath.Base(filepath.Dir(bin)) == "bin" {
		add(filepath.Dir(filepath.Dir(bin)), false, "node's prefix")
	}
	add(or(or(envValue(env, "npm_config_cache"), envValue(env, "NPM_CONFIG_CACHE")), fromHome(".npm")), true, "npm cache")

	// Python: pip's cache, user installs, pyenv's versions.
	add(or(envValue(env, "PIP_CACHE_DIR"), joinIf(cacheHome, "pip")), true, "pip cache")
	if lib := fromHome(".local", "lib"); lib != "" {
		matches, _ := filepath.Glob(filepath.Join(lib, "python3*"))
		for _, m := range matches {
			add(m, false, "Python user site")
		}
	}
	add(or(envValue(env, "PYENV_ROOT"), fromHome(".pyenv")), false, "pyenv")

	// Rust: cargo's registry and git checkouts, its binaries and config,
	// rustup's toolchains.
	cargo := or(envValue(env, "CARGO_HOME"), fromHome(".cargo"))
	add(joinIf(cargo, "registry"), true, "cargo registry")
	add(joinIf(cargo, "git"), true, "cargo git")
	add(joinIf(cargo, ".package-cache"), true, "cargo lock")
	add(joinIf(cargo, "bin"), false, "cargo bin")
	add(joinIf(cargo, "config.toml"), false, "cargo config")
	add(joinIf(cargo, "config"), false, "cargo config")
	add(or(envValue(env, "RUSTUP_HOME"), fromHome(".rustup")), false, "RUSTUP_HOME")

	// Java: the JDK, Maven's repository, Gradle's caches and wrappers.
	add(envValue(env, "JAVA_HOME"), false, "JAVA_HOME")
	add(fromHome(".m2", "repository"), true, "Maven repository")
	gradle := or(envValue(env, "GRADLE_USER_HOME"), fromHome(".gradle"))
	for _, sub := range []string{"caches", "wrapper", "native", "jdks"} {
		add(joinIf(gradle, sub), true, "Gradle "+sub)
	}
	return out
}

func joinIf(base string, rel ...string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(append([]string{base}, rel...)...)
}

func dirExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// unsafeGrant reports a folder that is never granted outright: the file
// system root, the home folder, or a folder above it (each would open the
// person's files).
func unsafeGrant(path, home string) bool {
	if path == "/" {
		return true
	}
	if home != "" {
		h := filepath.Clean(home)
		if path == h || strings.HasPrefix(h, strings.TrimSuffix(path, "/")+"/") {
			return true
		}
	}
	return false
}

// findOnPath returns the resolved file a plain name runs on path, or "".
func findOnPath(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		cand := filepath.Join(dir, name)
		if info, err := os.Stat(cand); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			if real, err := filepath.EvalSymlinks(cand); err == nil {
				return real
			}
		}
	}
	return ""
}

// pathDirs are the PATH folders a program may be found in: read and
// execute, except the home folder and its ancestors and the workspace
// (whose programs the exec handler never starts by name).
func pathDirs(env []string, roots []string) []string {
	home := envValue(env, "HOME")
	var out []string
	for _, dir := range filepath.SplitList(envValue(env, "PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		real := resolve(dir)
		if unsafeGrant(real, home) || within(real, roots) || slices.Contains(out, real) {
			continue
		}
		out = append(out, real)
	}
	return out
}

// gitDirsOutside are the git folders of the roots' own repositories that
// live outside the roots (a worktree's gitdir and the common folder it
// shares with its main checkout): read-only, so git works in a worktree.
// Only a root's own .git file is followed (a protected path the agent
// cannot write), and only to a folder that has git's HEAD in it.
func gitDirsOutside(roots []string) []string {
	var out []string
	for _, root := range roots {
		b, err := readRegular(filepath.Join(root, ".git"), 4096)
		if err != nil {
			continue
		}
		g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			continue
		}
		g = strings.TrimSpace(g)
		if !filepath.IsAbs(g) {
			g = filepath.Join(root, g)
		}
		g = resolve(g)
		if !isGitDir(g) || within(g, roots) {
			continue
		}
		out = append(out, g)
		if c, err := readRegular(filepath.Join(g, "commondir"), 4096); err == nil {
			common := strings.TrimSpace(string(c))
			if !filepath.IsAbs(common) {
				common = filepath.Join(g, common)
			}
			if common = resolve(common); isGitDir(common) && !within(common, roots) {
				out = append(out, common)
			}
		}
	}
	return out
}

func isGitDir(p string) bool {
	info, err := os.Lstat(filepath.Join(p, "HEAD"))
	return err == nil && info.Mode().IsRegular() && filepath.Base(p) != "/"
}

// maxWalkEntries bounds the walk of a workspace before a run of a
// program that runs code: beyond it the run is refused, never planned
// from part of the tree.
const maxWalkEntries = 1_000_000

// survey is what a workspace holds that a run of code must not write.
type survey struct {
	// protected are existing paths the Protected function names (not
	// descended into): made read-only.
	protected []string
	// special are hard-linked regular files (another link may be outside
	// the workspace: a pnpm store, a file of the person's), FIFOs,
	// sockets and devices: never granted for writing, whatever folder
	// they are in.
	special []string
	// linkBinds are what the confiner binds read-only so that the
	// metadata of hard-linked files (shared with the other link: mode,
	// times, extended attributes), which Landlock does not govern, stays
	// as it is too: each folder all of whose files are hard-linked (a
	// package pnpm linked in), topmost only, and each hard-linked file
	// elsewhere. Past maxLinkBinds the rest is left to Landlock alone
	// (linkBindsCapped), which still keeps their contents.
	linkBinds       []string
	linkBindsCapped bool
	entries         int
}

// maxLinkBinds bounds the read-only mounts made for hard links: a mount
// namespace takes many thousands, but each costs two system calls and a
// mountinfo line every program that reads it pays for.
const maxLinkBinds = 4096

// surveyWorkspace walks the roots without following symlinks.
func surveyWorkspace(roots []string, protected func(string) bool) (survey, error) {
	var sv survey
	bind := func(p string) {
		if len(sv.linkBinds) >= maxLinkBinds {
			sv.linkBindsCapped = true
			return
		}
		sv.linkBinds = append(sv.linkBinds, p)
	}
	// walk returns whether every file beneath dir is hard-linked (and
	// there is at least one), with nothing protected or special beside.
	var walk func(dir string, isRoot bool) (allLinked bool, err error)
	walk = func(dir string, isRoot bool) (bool, error) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return false, fmt.Errorf("read %s: %w", dir, err)
		}
		if sv.entries += len(entries); sv.entries > maxWalkEntries {
			return false, fmt.Errorf("the workspace holds more than %d entries", maxWalkEntries)
		}
		all, any := true, false
		var linkedFiles, linkedDirs []string
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if protected(p) {
				sv.protected = append(sv.protected, p)
				if g := gitdirOf(p, e, roots); g != "" && !slices.Contains(sv.protected, g) {
					sv.protected = append(sv.protected, g)
				}
				all = false
				continue
			}
			switch t := e.Type(); {
			case t.IsDir():
				sub, err := walk(p, false)
				if err != nil {
					return false, err
				}
				if sub {
					linkedDirs = append(linkedDirs, p)
					any = true
				} else {
					all = false
				}
			case t&fs.ModeSymlink != 0:
			case t.IsRegular():
				info, err := e.Info()
				if err != nil {
					return false, fmt.Errorf("stat %s: %w", p, err)
				}
				id, err := sysfile.LstatOf(p, info)
				if err != nil {
					return false, fmt.Errorf("stat %s: %w", p, err)
				}
				if id.Links > 1 {
					sv.special = append(sv.special, p)
					linkedFiles = append(linkedFiles, p)
					any = true
				} else {
					all = false
				}
			default: // FIFO, socket, device
				sv.special = append(sv.special, p)
				all = false
			}
		}
		if all && any && !isRoot {
			return true, nil // the parent binds this folder whole, or a folder above it
		}
		for _, p := range linkedDirs {
			bind(p)
		}
		for _, p := range linkedFiles {
			bind(p)
		}
		return false, nil
	}
	for _, root := range roots {
		if _, err := walk(root, true); err != nil {
			return sv, err
		}
	}
	// A protected name that is a link to a file of the workspace (.github
	// -> ci) is kept where it points too: a program that writes through
	// the link writes there.
	for _, p := range sv.protected {
		if info, err := os.Lstat(p); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if t, err := filepath.EvalSymlinks(p); err == nil && within(t, roots) && !slices.Contains(sv.protected, t) {
			sv.protected = append(sv.protected, t)
		}
	}
	return sv, nil
}

// readRegular reads at most max bytes of a regular file, never blocking
// on a FIFO or opening a device: the open is non-blocking and anything
// but a regular file is refused.
func readRegular(path string, max int) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, max)
	n, err := f.Read(buf)
	if n > 0 {
		return buf[:n], nil
	}
	return nil, err
}

// gitdirOf is the folder a .git file names ("gitdir: X", a worktree's or
// a separated repository's) when it lies in a root: its hooks and config
// run on the person's next git command as much as .git's own do, so it
// is kept whole, like a .git folder.
func gitdirOf(p string, e fs.DirEntry, roots []string) string {
	if e.Name() != ".git" || !e.Type().IsRegular() {
		return ""
	}
	b, err := os.ReadFile(p)
	if err != nil || len(b) > 4096 {
		return ""
	}
	g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(p), g)
	}
	g = filepath.Clean(g)
	for _, r := range roots {
		if rel, err := filepath.Rel(r, g); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			if info, err := os.Lstat(g); err == nil && info.IsDir() {
				return g
			}
		}
	}
	return ""
}
