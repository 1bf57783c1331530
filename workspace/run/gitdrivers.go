package run

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// driverHeader matches a config section that defines a filter or diff
// driver: [filter "name"] or [diff "name"].
var driverHeader = regexp.MustCompile(`^\s*\[\s*(filter|diff)\s+"((?:[^"\\]|\\.)*)"\s*\]`)

// includePath matches "path = FILE" inside [include] or [includeIf ...].
var includePath = regexp.MustCompile(`^\s*path\s*=\s*(.+?)\s*$`)

// gitDriverOverrides turns off the filter drivers (clean, smudge,
// process) that the repository containing dir defines in its config or the
// files it includes, since .gitattributes can make status and diff run
// them. An empty command is skipped by git's convert code. Diff drivers
// (textconv, command) are off through --no-textconv and --no-ext-diff.
func gitDriverOverrides(dir string) [][2]string {
	gitDir := findGitDir(dir)
	if gitDir == "" {
		return nil
	}
	seen := map[string]bool{}
	var out [][2]string
	var scan func(path string, depth int)
	scan = func(path string, depth int) {
		if depth > 4 || seen[path] {
			return
		}
		seen[path] = true
		f, err := openRegular(path) // a FIFO named as an include must not block admit
		if err != nil {
			return
		}
		defer f.Close()
		inInclude := false
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if m := driverHeader.FindStringSubmatch(line); m != nil {
				inInclude = false
				if m[1] == "filter" {
					name := m[2]
					out = append(out,
						[2]string{"filter." + name + ".clean", ""},
						[2]string{"filter." + name + ".smudge", ""},
						[2]string{"filter." + name + ".process", ""},
						[2]string{"filter." + name + ".required", "false"})
				}
				continue
			}
			trim := strings.TrimSpace(line)
			if strings.HasPrefix(trim, "[") {
				l := strings.ToLower(trim)
				inInclude = strings.HasPrefix(l, "[include]") || strings.HasPrefix(l, "[includeif")
				continue
			}
			if inInclude {
				if m := includePath.FindStringSubmatch(line); m != nil {
					p := strings.Trim(m[1], `"`)
					if !filepath.IsAbs(p) {
						p = filepath.Join(filepath.Dir(path), p)
					}
					scan(p, depth+1)
				}
			}
		}
	}
	scan(filepath.Join(gitDir, "config"), 0)
	scan(filepath.Join(gitDir, "config.worktree"), 0)
	return out
}

// findGitDir returns the .git folder of the repository containing dir
// (following a "gitdir:" file), or "".
func findGitDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if info, err := os.Stat(p); err == nil {
			if info.IsDir() {
				return p
			}
			b, err := readRegular(p, 4096)
			if err == nil {
				if g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					g = strings.TrimSpace(g)
					if !filepath.IsAbs(g) {
						g = filepath.Join(d, g)
					}
					return g
				}
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
