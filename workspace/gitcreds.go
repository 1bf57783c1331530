package workspace

import (
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// GitCredentials lists the settings of the repository containing dir
// (its config, config.worktree and every file they include, a ".git"
// file's gitdir and a worktree's common folder followed, as GitExec
// does) whose value or name holds a credential that git prints when it
// shows the setting or the URL it makes: a URL with a password or a
// token as its user (remote.NAME.url, url.BASE.insteadOf's BASE,
// submodule.NAME.url, a proxy), an http.extraHeader, a key named for a
// password or a token (sendemail.smtpPass). Each is named as git config
// names it, with a subsection that holds the credential shown as "*", so
// the list itself holds none. ok is false when the configuration cannot
// be read: the caller fails closed. Of the person's global and system
// configurations (with the home folder SetHome gave), the URL rewrites
// are read: git remote -v applies a url.BASE.insteadOf of ~/.gitconfig,
// the usual place of a CI job's token, to the repository's remotes.
func (r *Resolver) GitCredentials(dir string) (names []string, ok bool) {
	add := func(e configEntry, _ string) {
		if n := credentialName(e); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var remotes []string // the remotes' URLs, which a rewrite may apply to
	repo, bad := r.gitEntries(dir, func(e configEntry, file string) {
		add(e, file)
		if e.section == "remote" && (e.key == "url" || e.key == "pushurl") && e.hasValue {
			remotes = append(remotes, e.value)
		}
	})
	if bad != "" {
		return nil, false
	}
	if repo.gitDir == "" {
		return nil, true // no repository: git prints no setting
	}
	for _, f := range r.personGitConfigs() {
		// What cannot be read there is the person's, and git reads it as
		// it can: only what is read counts. A rewrite counts where it
		// applies to one of the repository's remotes.
		_ = r.configEntries(f, func(e configEntry, file string) {
			if e.section == "url" && (e.key == "insteadof" || e.key == "pushinsteadof") && e.hasValue && e.value != "" && urlCredential(e.sub) &&
				slices.ContainsFunc(remotes, func(u string) bool { return strings.HasPrefix(u, e.value) }) {
				add(e, file)
			}
		})
	}
	return names, true
}

// personGitConfigs are the person's global and the system's git
// configuration files: none until SetHome names the home folder.
func (r *Resolver) personGitConfigs() []string {
	if r.home == "" {
		return nil
	}
	return []string{"/etc/gitconfig", filepath.Join(r.home, ".config", "git", "config"), filepath.Join(r.home, ".gitconfig")}
}

// credentialName is the entry's name when it holds a credential, its
// subsection shown as "*" when that is where the credential is; else "".
func credentialName(e configEntry) string {
	sub := e.sub
	inSub := urlCredential(sub)
	if inSub {
		sub = "*"
	}
	name := e.section + "." + e.key
	if e.sub != "" {
		name = e.section + "." + sub + "." + e.key
	}
	switch {
	case inSub:
		return name // [url "https://user:tok@host/"], [http "https://tok@host"]
	case !e.hasValue || e.value == "":
		return ""
	case urlCredential(e.value):
		return name // remote.origin.url, url.X.insteadOf, http.proxy, submodule.X.url
	case e.key == "extraheader":
		return name // http.extraHeader: "Authorization: Bearer ..." and its kin
	case secretKey.MatchString(e.key):
		return name // sendemail.smtpPass, a tool's token
	}
	return ""
}

// secretKey matches the key of a setting that holds a password or a
// token by its name.
var secretKey = regexp.MustCompile(`(pass|passwd|password|token|secret|apikey|privatekey|credential)$`)

// tokenUser matches a URL's user part that is a token rather than a
// name: the prefixes of the hosts' tokens, or a long run of token
// characters.
var tokenUser = regexp.MustCompile(`^(gh[pousr]_|github_pat_|glpat-|gldt-|xox[abpr]-|ya29\.|AKIA)|^[A-Za-z0-9_\-.]{32,}$`)

// urlCredential reports a URL (or a URL inside a value) whose user part
// carries a password, or is a token itself: https://user:pass@host/,
// https://ghp_x@github.com/. ssh://git@host and git@host:path name only
// a user.
func urlCredential(v string) bool {
	for _, w := range strings.Fields(v) {
		i := strings.Index(w, "://")
		if i < 0 {
			continue
		}
		rest := w[i+3:]
		if end := strings.IndexAny(rest, "/?#"); end >= 0 {
			rest = rest[:end]
		}
		at := strings.LastIndexByte(rest, '@')
		if at < 0 {
			continue
		}
		userinfo := rest[:at]
		user, pass, hasPass := strings.Cut(userinfo, ":")
		if u, err := url.PathUnescape(user); err == nil {
			user = u
		}
		if hasPass && pass != "" || tokenUser.MatchString(user) {
			return true
		}
	}
	return false
}

// GitFileCredentials lists the settings of one file in git's
// configuration format that is not a repository's configuration
// (.gitmodules: submodule.NAME.url = https://user:token@host/x) whose
// value or name holds a credential, named as GitCredentials names them;
// ok is false when the file cannot be read. A missing file holds none.
func (r *Resolver) GitFileCredentials(file string) (names []string, ok bool) {
	bad := r.configEntries(file, func(e configEntry, _ string) {
		if n := credentialName(e); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	})
	return names, bad == ""
}
