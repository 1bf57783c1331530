package command

import (
	"path"
	"strings"
	"sync"
	"unicode"
)

// Protection says whether a change to a path is refused or needs a person.
type Protection struct {
	Protected bool   // the path is protected
	Ask       bool   // a person may approve the change; false means it is refused outright
	Why       string // what the path is and why it is protected
}

// A guard is one protected place, found at any depth of a workspace: a
// sequence of names from some folder down ("site-packages", "*.pth"). A
// name may hold one '*', matched against the name's canonical spelling.
// When dir is set the last name is a folder, and everything under it is
// protected too; a folder that holds a guard's place (".github" for
// ".github/workflows") is protected as the place is, since moving or
// removing the folder changes what is inside.
type guard struct {
	path []string
	star []int // where path[i]'s '*' is, or -1: found once, not per name judged
	dir  bool
	ask  bool // false: refused
	why  string
}

// The classes. Each says why the place runs code (or widens what an agent
// may do) without going through this gate; docs/protected-paths.md has the
// same list with its sources.
const (
	whyAdmit     = "it holds the gate's own policy, which an agent never changes (at any depth: a nested one must not be planted either)"
	whyGit       = "git metadata: its config and hooks make git run programs"
	whyGitAttr   = "it selects the filter and diff programs git runs"
	whyGitMod    = "it names repositories and update commands git uses"
	whyLFS       = "git-lfs reads it; its transfer agents are programs git runs"
	whyHooks     = "it holds git hooks, or names the programs a git hook manager runs on commit and push"
	whyCI        = "it defines CI jobs: commands that run with the repository's secrets"
	whyEditor    = "editor settings, tasks and launch configurations can run programs"
	whyDevCon    = "it defines the container and the commands the editor starts in it"
	whyDirenv    = "direnv runs it as a shell script when the folder is entered"
	whyVim       = "Neovim and Vim run it as configuration when they open the folder (exrc)"
	whyAgent     = "a coding agent's own settings: its hooks and MCP servers run programs, its permissions widen what it may do, all outside this gate"
	whyMCP       = "it names MCP server programs a coding agent starts"
	whyPkg       = "package-manager configuration: it can name the programs and registries an install or a build runs or fetches"
	whyToolchain = "it names the toolchain (or the path of one) that builds run, and what is downloaded to get it"
	whyPython    = "Python runs it at every start of the virtual environment's interpreter"
)

// guards are the protected places at every depth of a workspace, indexed
// by their first name. The names are canonical (see canonicalName). It is
// built once, on first use (a process that never judges a path, admit
// hook talking to the editor's server, does not pay for it), and never
// changed.
var guards = sync.OnceValue(func() guardTable { return indexGuards(buildGuards()) })

type guardTable struct {
	all     []guard
	byFirst map[string][]int // guards whose first name is this one
	wild    []int            // guards whose first name has a '*'
	firsts  [256]bool        // the first bytes of byFirst's names: most names judged start with none
}

func indexGuards(all []guard) guardTable {
	t := guardTable{all: all, byFirst: map[string][]int{}}
	for i := range all {
		g := &all[i]
		g.star = make([]int, len(g.path))
		for k, name := range g.path {
			g.star[k] = strings.IndexByte(name, '*')
		}
		if g.star[0] >= 0 {
			t.wild = append(t.wild, i)
		} else {
			t.byFirst[g.path[0]] = append(t.byFirst[g.path[0]], i)
			t.firsts[g.path[0][0]] = true
		}
	}
	return t
}

// candidates are the guards that may match names starting with name.
func (t *guardTable) candidates(name string, buf []int) []int {
	if strings.IndexByte(name, '~') > 0 {
		// Perhaps a short (8.3) name: try them all.
		for i := range t.all {
			buf = append(buf, i)
		}
		return buf
	}
	if name != "" && t.firsts[name[0]] {
		buf = append(buf, t.byFirst[name]...)
	}
	return append(buf, t.wild...)
}

func buildGuards() []guard {
	var g []guard
	add := func(ask bool, why string, dir bool, paths ...string) {
		for _, p := range paths {
			g = append(g, guard{path: strings.Split(p, "/"), dir: dir, ask: ask, why: why})
		}
	}
	dirs := func(why string, paths ...string) { add(true, why, true, paths...) }
	files := func(why string, paths ...string) { add(true, why, false, paths...) }

	add(false, whyAdmit, true, ".admit")

	// git and what it reads from the work tree.
	dirs(whyGit, ".git")
	files(whyGitAttr, ".gitattributes")
	files(whyGitMod, ".gitmodules")
	files(whyLFS, ".lfsconfig")

	// Git hook managers, in every spelling they accept, with their -local
	// overrides and script folders.
	dirs(whyHooks, ".husky", ".githooks", ".git-hooks", ".lefthook", ".lefthook-local", ".cargo-husky")
	for _, dot := range []string{"", "."} {
		for _, name := range []string{"lefthook", "lefthook-local"} {
			for _, ext := range []string{"yml", "yaml", "toml", "json", "jsonc"} {
				files(whyHooks, dot+name+"."+ext)
			}
		}
		for _, ext := range []string{"json", "js", "cjs", "mjs"} {
			files(whyHooks, dot+"simple-git-hooks."+ext)
		}
		files(whyHooks, dot+"rusty-hook.toml", dot+"hk.pkl", dot+"hk.local.pkl")
	}
	files(whyHooks, ".pre-commit-config.yaml", ".pre-commit-config.yml", ".pre-commit-hooks.yaml",
		".overcommit.yml", "captainhook.json")

	// CI.
	dirs(whyCI, ".github/workflows", ".github/actions", ".circleci", ".buildkite", ".woodpecker",
		".azure-pipelines", ".forgejo/workflows", ".gitea/workflows")
	files(whyCI, ".gitlab-ci.yml", ".gitlab-ci.yaml", ".travis.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml",
		".drone.yml", ".woodpecker.yml", "jenkinsfile")

	// Editors and the folder's environment.
	dirs(whyEditor, ".vscode", ".idea", ".zed")
	files(whyEditor, "*.code-workspace")
	dirs(whyDevCon, ".devcontainer")
	files(whyDevCon, ".devcontainer.json")
	files(whyDirenv, ".envrc")
	files(whyVim, ".nvim.lua", ".nvimrc", ".exrc")

	// The coding agents' hook and MCP files (see docs/protected-paths.md
	// for each agent's documentation).
	dirs(whyAgent,
		".claude", ".codex", ".gemini", ".cursor", ".windsurf", ".continue", ".opencode", ".cline",
		".clinerules/hooks", ".kiro/settings", ".kiro/hooks", ".kiro/agents",
		".amazonq/agents", ".amazonq/cli-agents", ".github/hooks", ".github/copilot", ".github/agents")
	files(whyAgent, "opencode.json", "opencode.jsonc", ".roomodes", ".aider.conf.yml")
	files(whyMCP, ".mcp.json", ".github/mcp.json", ".roo/mcp.json", ".amazonq/mcp.json")

	// Package managers and toolchains that run or fetch code by their
	// configuration.
	files(whyPkg, ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".pnpmfile.mjs", "bunfig.toml", ".bunfig.toml",
		".cargo/config", ".cargo/config.toml", "pip.conf", "pip.ini", "uv.toml",
		"gradle/wrapper/gradle-wrapper.properties", "mise.toml", ".mise.toml", "mise.*.toml", ".mise.*.toml",
		"mise/config.toml", "mise/config.local.toml", ".mise/config.toml", ".mise/config.local.toml",
		".tool-versions")
	dirs(whyPkg, ".mvn", "mise/conf.d", ".mise/conf.d")
	files(whyToolchain, "rust-toolchain", "rust-toolchain.toml")
	for _, sp := range []string{"site-packages", "dist-packages"} {
		files(whyPython, sp+"/*.pth", sp+"/sitecustomize.py", sp+"/usercustomize.py")
	}
	files(whyPython, "pyvenv.cfg")
	return g
}

// Protect says whether path (absolute; cleaned here) may be changed by
// an agent in the workspace roots. Under .admit/, at any depth, a change
// is refused; the places in guards (git and hook-manager files, CI, editor
// and agent settings, package-manager configuration that runs or fetches
// code, Python start-up files in a virtual environment) ask a person, at
// any depth. The workspace folder itself is refused. Names are compared
// as a case-insensitive file system would (see canonicalName). Paths
// outside every root are not protected here: the caller refuses them. A
// path that is not absolute is refused.
//
// Protect knows nothing of the person's own places outside the workspace;
// ProtectFor adds them.
func Protect(p string, roots []string) Protection {
	return ProtectFor(p, roots, nil)
}

// ProtectFor is Protect, and refuses (never asks) a change to one of the
// person's own places (see PersonalPlaces) or to a folder that holds one,
// inside the roots or not. personal may be nil.
func ProtectFor(p string, roots []string, personal *Personal) Protection {
	if !path.IsAbs(p) {
		return Protection{Protected: true, Why: "it is not an absolute path, so what it names cannot be told"}
	}
	p = cleanPath(p)
	if pr := personal.protect(p); pr.Protected {
		return pr
	}
	for _, root := range roots {
		root = cleanPath(root)
		var rel string
		switch {
		case p == root:
			return Protection{Protected: true, Why: "it is the workspace folder itself, which holds the policy in .admit/"}
		case root == "/":
			rel = strings.TrimPrefix(p, "/")
		case strings.HasPrefix(p, root) && p[len(root)] == '/':
			rel = p[len(root)+1:]
		default:
			continue
		}
		var buf [8]string // most paths have fewer names: no allocation
		return protectRel(splitNames(buf[:0], rel))
	}
	return Protection{}
}

// splitNames appends rel's "/"-separated names to dst, as strings.Split
// gives them.
func splitNames(dst []string, rel string) []string {
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return append(dst, rel)
		}
		dst, rel = append(dst, rel[:i]), rel[i+1:]
	}
}

// protectRel judges the names below a root, the strictest guard first.
func protectRel(names []string) Protection {
	var pbuf [8]string
	parts := pbuf[:0]
	for _, n := range names {
		parts = append(parts, canonicalName(n))
	}
	var found Protection
	var buf [16]int
	table := guards()
	for i := range parts {
		for _, gi := range table.candidates(parts[i], buf[:0]) {
			g := &table.all[gi]
			k := min(len(g.path), len(parts)-i)
			if !matchNames(parts[i:i+k], g.path[:k], g.star) {
				continue
			}
			if k == len(g.path) && !g.dir && i+k != len(parts) {
				continue // a file's name as a folder: "x.npmrc/y" is not .npmrc
			}
			shown := strings.Join(names[i:i+k], "/")
			if k < len(g.path) || g.dir {
				shown += "/"
			}
			why := shown + ": " + g.why
			if k < len(g.path) {
				why = shown + " holds " + strings.Join(g.path, "/") + ": " + g.why
			}
			if !g.ask {
				return Protection{Protected: true, Why: why}
			}
			if !found.Protected {
				found = Protection{Protected: true, Ask: true, Why: why}
			}
		}
	}
	return found
}

func matchNames(parts, pats []string, stars []int) bool {
	for i, pat := range pats {
		if !matchName(parts[i], pat, stars[i]) {
			return false
		}
	}
	return true
}

// matchName compares a canonical name with a guard's name: equal, or
// matching its one '*' (at star, -1 for none), or a short (8.3) name a
// file system may give it.
func matchName(name, pat string, star int) bool {
	if star >= 0 {
		before, after := pat[:star], pat[star+1:]
		return len(name) >= len(before)+len(after) && strings.HasPrefix(name, before) && strings.HasSuffix(name, after)
	}
	return name == pat || strings.IndexByte(name, '~') > 0 && shortAlias(name, pat)
}

// canonicalName is how a name compares with the protected names on the
// file systems agents work on: letters case-folded (macOS, Windows,
// casefold folders: ".ADMIT" is ".admit", and with U+017F ".vſcode" is
// ".vscode"), the code points HFS+ ignores dropped (".a\u200cdmit"), an
// NTFS stream suffix dropped (".admit::$INDEX_ALLOCATION" is the folder
// itself) and trailing dots and spaces dropped, which Windows strips
// (".admit. " is ".admit"). Only the comparison uses it: the path a
// program writes is the one judged everywhere else.
func canonicalName(s string) string {
	// Most names are plain: ASCII with no upper case letter, no ':', and
	// no trailing dot or space, which every step below leaves as they are.
	plain := s != "" && s[len(s)-1] != '.' && s[len(s)-1] != ' '
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c < 0x80 && c != ':' && (c < 'A' || c > 'Z')
	}
	if plain {
		return s
	}
	s = foldName(s)
	if strings.ContainsFunc(s, hfsIgnorable) {
		s = strings.Map(func(r rune) rune {
			if hfsIgnorable(r) {
				return -1
			}
			return r
		}, s)
	}
	if i := strings.IndexByte(s, ':'); i > 0 {
		s = s[:i]
	}
	if t := strings.TrimRight(s, ". "); t != "" && t != s && strings.Trim(t, ".") != "" {
		s = t
	}
	return s
}

// hfsIgnorable are the code points HFS+ leaves out of a name when it
// compares names (as git's is_hfs_dotgit lists them): zero-width joiners
// and marks, directional formatting, the byte order mark.
func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

// shortAlias says whether name, shaped like an 8.3 short name ("ADMIT~1",
// "GITHUB~1", "DEVCON~1.JSO", or the hashed "AD3F2C~1"), may be the short
// name NTFS or FAT gives to the long name pat: Windows, and Linux mounts
// of those file systems, open the long file by it.
func shortAlias(name, pat string) bool {
	base, ext, _ := strings.Cut(name, ".")
	prefix, num, ok := strings.Cut(base, "~")
	if !ok || prefix == "" || len(prefix) > 6 || num == "" || len(ext) > 3 || strings.Trim(num, "0123456789") != "" {
		return false
	}
	// The long name as a short name is made from it: leading dots and
	// spaces dropped, the extension after the last dot cut to 3.
	long := strings.TrimLeft(pat, ".")
	lbase, lext := long, ""
	if i := strings.LastIndexByte(long, '.'); i > 0 {
		lbase, lext = long[:i], long[i+1:]
	}
	lbase = strings.NewReplacer(".", "", " ", "").Replace(lbase)
	if lext[:min(3, len(lext))] != ext {
		return false
	}
	if prefix == lbase[:min(6, len(lbase))] {
		return true
	}
	// The hashed form: two letters of the name and four hex digits.
	return len(prefix) == 6 && len(lbase) >= 2 && prefix[:2] == lbase[:2] && strings.Trim(prefix[2:], "0123456789abcdef") == ""
}

// foldName maps every letter of s to the lower case of its fold class,
// so that names a case-insensitive file system takes for ".git" (".GIT",
// ".Git", and with U+017F also ".vſcode") compare
// equal to the protected ones.
func foldName(s string) string {
	ascii, upper := true, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			ascii = false
		case 'A' <= c && c <= 'Z':
			upper = true
		}
	}
	if ascii {
		if !upper {
			return s
		}
		// ASCII letters fold to their lower case (K and S too: the Kelvin
		// sign and the long s fold to k and s, not the other way).
		b := []byte(s)
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return string(b)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(simpleLower(r))
	}
	return b.String()
}

// simpleLower is the lower case of the smallest rune in r's simple
// case-folding orbit: "a" for "A", "s" for U+017F (long s), "k" for
// U+212A (Kelvin sign).
func simpleLower(r rune) rune {
	low := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		low = min(low, f)
	}
	return unicode.ToLower(low)
}

// RootNames are the protected names a workspace root may not have yet,
// for a run of code to be kept from making them (workspace/run): folders
// (a protected folder, or one that holds a protected place: ".github" for
// ".github/workflows") and files, each a single name without a pattern.
// Left out of folders, and so kept only by undoing them after the run:
// ".mvn", whose mere presence moves Maven's project root (an empty one is
// not nothing), and "site-packages" and "dist-packages", protected only
// inside a Python prefix.
func RootNames() (folders, files []string) {
	seen := map[string]bool{}
	for _, g := range guards().all {
		name := g.path[0]
		folder := g.dir || len(g.path) > 1
		if strings.Contains(name, "*") || seen[name] || folder && notPlaceholder[name] {
			continue
		}
		seen[name] = true
		if folder {
			folders = append(folders, name)
		} else {
			files = append(files, name)
		}
	}
	return folders, files
}

// notPlaceholder are the folders RootNames leaves out.
var notPlaceholder = map[string]bool{".mvn": true, "site-packages": true, "dist-packages": true}
