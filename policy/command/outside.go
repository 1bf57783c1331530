package command

import (
	"path"
	"strings"
	"unicode"

	"admit/policy/rule"
)

// plainConfigKeys are git configuration keys that hold no secret and run
// nothing when read: who the person is, their editor's name, the
// repository's remotes and branches. git config reads them from every
// scope (the person's ~/.gitconfig too) without --local, which only this
// key is read from.
var plainConfigKeys = []string{
	"user.name", "user.email", "user.signingkey", "core.editor", "core.autocrlf", "core.filemode", "core.ignorecase", "core.bare",
	"init.defaultbranch", "pull.rebase", "pull.ff", "push.default", "push.autosetupremote", "merge.ff", "commit.gpgsign", "tag.gpgsign",
	"remote.*.url", "remote.*.pushurl", "remote.*.fetch", "branch.*.remote", "branch.*.merge", "branch.*.rebase",
}

// plainConfigKey reports a git config read of one key of
// plainConfigKeys: git config NAME, --get NAME, get NAME.
func plainConfigKey(ps *parsed) bool {
	ops := ps.operands
	if ps.has("list") != nil && !hasName(ps, "--get") {
		return false
	}
	var key string
	switch {
	case len(ops) == 1:
		key = ops[0]
	case len(ops) == 2 && ops[0] == "get":
		key = ops[1]
	default:
		return false
	}
	key = strings.ToLower(key)
	for _, k := range plainConfigKeys {
		if ok, _ := path.Match(k, key); ok && strings.Count(k, ".") == strings.Count(key, ".") {
			return true
		}
	}
	return false
}

// Reads outside the workspace: a file read or a folder listed, named as
// outside on the line (not
// a link of the workspace leading out, which a hostile repository could
// plant) is asked, not refused, when it is neither a secret, nor one of
// the person's places, nor a credential store, a history or the
// processes' memory; the system's identity files are read unasked. A
// folder outside is only listed (its names), never read recursively.

// identityFiles say what system the session runs on, and nothing about
// the person.
var identityFiles = map[string]bool{
	"/etc/os-release": true, "/usr/lib/os-release": true, "/etc/lsb-release": true, "/etc/debian_version": true,
	"/etc/redhat-release": true, "/etc/alpine-release": true, "/etc/fedora-release": true, "/etc/arch-release": true,
	"/etc/issue": true, "/etc/hostname": true, "/etc/timezone": true, "/etc/shells": true,
	"/proc/cpuinfo": true, "/proc/meminfo": true, "/proc/version": true, "/proc/loadavg": true, "/proc/uptime": true,
	"/proc/sys/kernel/osrelease": true, "/proc/sys/kernel/hostname": true, "/sys/fs/cgroup/cpu.max": true, "/sys/fs/cgroup/memory.max": true,
}

// privateHome are the places under the home folder that hold the
// person's credentials, keys, browsing and shell history.
var privateHome = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".config/op", ".docker", ".kube",
	".password-store", ".local/share/keyrings", ".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
	"Library", ".netrc", ".git-credentials", ".config/git/credentials", ".pgpass", ".npmrc", ".pypirc", ".cargo/credentials",
	".cargo/credentials.toml", ".gem/credentials", ".terraform.d", ".vault-token", ".local/share/fish/fish_history",
	".lesshst", ".viminfo", ".wget-hsts", ".Xauthority", ".ICEauthority",
	// Shell start-up files, which often export tokens.
	".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".config/fish",
	".env", ".envrc",
}

// privateSystem are the system's files that hold secrets (readable to
// root, as sessions in containers often are).
var privateSystem = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh", "/etc/ssl/private", "/var/lib/sss", "/root"}

// outsideRead judges a read, probe or listing of a path named outside the
// workspace; it reports whether it judged it (asked or allowed). false
// leaves it to the access engine, which refuses it.
func (j *judge) outsideRead(prog string, a access) bool {
	if j.c.FS == nil {
		return false
	}
	abs := j.cleanAbs(a.word)
	if inside(abs, j.c.Roots) || walkers[leadingWord(prog)] {
		return false // the common path, inside, is told before the program's name is looked up
	}
	r, err := j.resolvePath(abs)
	if err != nil || inside(r.Path, j.c.Roots) {
		return false
	}
	if (a.mode == modeRead || a.mode == modeProbe) && (identityFiles[abs] && (identityFiles[r.Path] || strings.HasPrefix(r.Path, "/usr/lib/"))) {
		return true
	}
	if j.privateOutside(abs) || j.privateOutside(r.Path) {
		return false
	}
	switch a.mode {
	case modeProbe:
		return false // a script run from outside (source, python3 /tmp/x.py) stays refused
	case modeRead:
		if !r.Exists || r.Dir || NotAFile(r) != "" {
			return false
		}
	case modeList:
		if r.Exists && !r.Dir {
			return false
		}
	}
	shown := abs
	if r.Path != abs {
		shown += " (" + r.Path + ")"
	}
	j.acc.asks(rule.OutsideRead, prog+" reads "+shown+", outside the workspace, so a person decides", "work on files inside the workspace")
	return true
}

// walkers are the programs that walk a folder and may act on what they
// find (find -exec, grep -r reads every file), and those that copy what
// they read into the workspace (whose readback needs the source inside):
// outside the workspace they stay refused.
var walkers = map[string]bool{"find": true, "grep": true, "rg": true, "xargs": true, "du": true, "git": true, "cp": true, "mv": true, "ln": true, "install": true, "dd": true}

// privateOutside reports a path outside the workspace whose contents or
// names are the person's or the system's secrets.
func (j *judge) privateOutside(p string) bool {
	if j.c.secrets().Secret(p) != "" {
		return true
	}
	if pr := j.protection(p); pr.Protected && !strings.HasPrefix(pr.Why, "it holds ") {
		return true // a place of the person's, or inside one; a folder holding one is only listed
	}
	if strings.HasPrefix(p, "/proc/") || p == "/proc" {
		return true // the processes' environments, command lines and memory
	}
	h := j.c.Home
	underHome := h != "" && (p == h || strings.HasPrefix(p, h+"/"))
	for _, s := range privateSystem {
		if !underHome && (p == s || strings.HasPrefix(p, s+"/")) {
			return true
		}
	}
	if underHome && p != h {
		rel := p[len(h)+1:]
		if strings.HasSuffix(rel, "_history") || strings.HasSuffix(rel, "_history.db") {
			return true
		}
		for _, s := range privateHome {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				return true
			}
		}
	}
	return false
}

// leadingWord is the first of the blank-separated words of s ("git" of
// "git diff"), or "" when it has none.
func leadingWord(s string) string {
	i := strings.IndexByte(s, ' ')
	if i < 0 {
		i = len(s)
	}
	if i > 0 && blanklessASCII(s[:i]) {
		return s[:i] // "git diff", "cat": a plain name first
	}
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		s = s[:i]
	}
	return s
}

// blanklessASCII reports whether s is printable ASCII without blanks.
func blanklessASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
