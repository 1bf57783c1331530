package command

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The test FS answers GitWrites from the repository's files as they are:
// the remotes of its config (includes not followed: the corpus's real
// resolver does that), and executable hooks.

func (f *testFS) repoOf(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil && fi.IsDir() {
			return filepath.Join(d, ".git")
		}
		if d == "/" {
			return ""
		}
	}
}

func (f *testFS) GitRemotes(dir string) ([]string, bool) {
	gd := f.repoOf(dir)
	if gd == "" {
		return nil, false
	}
	data, err := os.ReadFile(filepath.Join(gd, "config"))
	if err != nil {
		return nil, false
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(line, `[remote "`); ok {
			out = append(out, strings.TrimSuffix(name, `"]`))
		}
	}
	return out, true
}

// GitCredentials: a config line holding "@" after "://" with a ":" in
// the user part is remote.origin.url's credential.
func (f *testFS) GitCredentials(dir string) ([]string, bool) {
	gd := f.repoOf(dir)
	if gd == "" {
		return nil, true
	}
	data, err := os.ReadFile(filepath.Join(gd, "config"))
	if err != nil {
		return nil, true
	}
	for _, line := range strings.Split(string(data), "\n") {
		if _, rest, ok := strings.Cut(line, "://"); ok && strings.Contains(rest, "@") && strings.Contains(rest[:strings.Index(rest, "@")], ":") {
			return []string{"remote.origin.url"}, true
		}
	}
	return nil, true
}

func (f *testFS) GitWriteExec(dir string, hooks []string) string {
	gd := f.repoOf(dir)
	if gd == "" {
		return ""
	}
	if data, err := os.ReadFile(filepath.Join(gd, "config")); err == nil && strings.Contains(string(data), "[credential]") {
		return "credential.helper in " + filepath.Join(gd, "config")
	}
	for _, h := range hooks {
		if fi, err := os.Stat(filepath.Join(gd, "hooks", h)); err == nil && fi.Mode()&0o111 != 0 {
			return "the hook " + h
		}
	}
	return ""
}
