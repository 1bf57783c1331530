package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"admit/policy/command"
)

// The resolver answers the git questions of writing commands.
var _ command.GitWrites = (*Resolver)(nil)

// What git commands that write, or talk to a remote, depend on beyond
// what GitExec reads for the reading ones: the repository's remotes (a
// push goes only to one of them), its hooks, and the keys only those
// commands read. The Resolver implements command.GitWrites with them.

// gitEntries reads the configuration files of the repository containing
// dir (config, config.worktree and what they include, as GitExec follows
// them) and calls visit for each entry; found is why they cannot be read
// in full, or "".
func (r *Resolver) gitEntries(dir string, visit func(e configEntry, file string)) (repo gitRepo, found string) {
	repo, found = r.findRepo(dir)
	if found != "" || repo.gitDir == "" {
		return repo, found
	}
	files := []string{filepath.Join(repo.commonDir, "config")}
	if repo.gitDir != repo.commonDir {
		files = append(files, filepath.Join(repo.gitDir, "config"))
	}
	files = append(files, filepath.Join(repo.gitDir, "config.worktree"))
	for _, f := range files {
		if found := r.configEntries(f, visit); found != "" {
			return repo, found
		}
	}
	return repo, ""
}

// configEntries calls visit for each entry of the configuration file
// path and of the files it includes, as git follows them; found is why
// they cannot be read in full, or "".
func (r *Resolver) configEntries(path string, visit func(e configEntry, file string)) (found string) {
	var walk func(path string, depth int) string
	walk = func(path string, depth int) string {
		res, err := resolve(path)
		if err != nil {
			return fmt.Sprintf("%s cannot be resolved: %v", path, err)
		}
		data, err := readBounded(res.Path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || !r.roots.Contains(res.Path) {
				return ""
			}
			return fmt.Sprintf("%s cannot be read: %v", path, err)
		}
		entries, err := parseGitConfig(data)
		if err != nil {
			return fmt.Sprintf("%s cannot be parsed: %v", path, err)
		}
		for _, e := range entries {
			if isInclude(e) && e.hasValue && e.value != "" {
				if depth+1 > maxIncludeDepth {
					return fmt.Sprintf("%s: includes nested deeper than %d", path, maxIncludeDepth)
				}
				inc, ok := includePath(e.value, filepath.Dir(path))
				if !ok {
					return fmt.Sprintf("%s = %q in %s: home folder unknown", e.name(), e.value, path)
				}
				if f := walk(inc, depth+1); f != "" {
					return f
				}
				continue
			}
			visit(e, path)
		}
		return ""
	}
	return walk(path, 0)
}

// GitRemotes lists the remotes the configuration of the repository
// containing dir names (a [remote "NAME"] section with a url); ok is
// false when there is no repository or its configuration cannot be read.
func (r *Resolver) GitRemotes(dir string) ([]string, bool) {
	var remotes []string
	repo, found := r.gitEntries(dir, func(e configEntry, _ string) {
		if e.section == "remote" && e.sub != "" && (e.key == "url" || e.key == "pushurl") && !slices.Contains(remotes, e.sub) {
			remotes = append(remotes, e.sub)
		}
	})
	if found != "" || repo.gitDir == "" {
		return nil, false
	}
	return remotes, true
}

// GitWriteExec names what would make git run a program of the
// repository's, or send what it pushes somewhere its remotes do not say,
// when a command that writes or talks to a remote runs in the repository
// containing dir: an executable hook among hooks (in the repository's
// hooks folder; a core.hooksPath is GitExec's finding), or a key only
// such commands read. "" when nothing does; a configuration that cannot
// be read is reported, to fail closed.
func (r *Resolver) GitWriteExec(dir string, hooks []string) string {
	found := ""
	repo, bad := r.gitEntries(dir, func(e configEntry, file string) {
		if found == "" && writeRunsProgram(e) {
			v := e.value
			if !e.hasValue {
				v = "true"
			}
			found = fmt.Sprintf("%s = %q in %s", e.name(), v, file)
		}
	})
	switch {
	case bad != "":
		return bad
	case found != "":
		return found
	case repo.gitDir == "":
		return ""
	}
	for _, h := range hooks {
		p := filepath.Join(repo.commonDir, "hooks", h)
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return fmt.Sprintf("the hook %s", p)
		}
	}
	return ""
}

// writeRunsProgram reports a key that commands which write or talk to a
// remote read, and that runs a program or redirects where git connects:
// the editors, credential helpers, askpass, merge drivers, the programs
// a remote runs for a fetch or a push, URL rewrites, transports allowed
// beyond git's defaults, and signing.
func writeRunsProgram(e configEntry) bool {
	set := e.hasValue && e.value != ""
	switch e.section {
	case "core":
		return (e.key == "editor" || e.key == "askpass" || e.key == "sshcommand" || e.key == "hookspath") && set
	case "sequence":
		return e.key == "editor" && set
	case "credential":
		return e.key == "helper" && set
	case "merge", "mergetool", "difftool":
		return e.sub != "" && (e.key == "driver" || e.key == "cmd") && set
	case "remote":
		// A URL git reaches through a remote helper (ext::, evil://)
		// starts git-remote-NAME, found on the PATH.
		return e.sub != "" && ((e.key == "receivepack" || e.key == "uploadpack" || e.key == "proxy" || e.key == "vcs") && set ||
			(e.key == "url" || e.key == "pushurl") && command.RemoteHelper(e.value) != "")
	case "url":
		return e.sub != "" && (e.key == "insteadof" || e.key == "pushinsteadof")
	case "protocol":
		return e.key == "allow" && e.value == "always"
	case "gpg":
		return e.key == "program" && set
	case "commit", "tag":
		return e.key == "gpgsign" && (!e.hasValue || e.value == "true")
	case "submodule":
		return e.sub != "" && e.key == "update" && len(e.value) > 0 && e.value[0] == '!'
	case "uploadpack", "receive":
		return e.key == "packobjectshook" || e.key == "procreceiverefs"
	}
	return false
}
