package run

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// What a confined run may read and write on Linux besides the workspace:
// the lists below are the whole of it (docs/confinement.md says the same,
// with the reasons).

// systemDirs hold programs and their libraries: read and execute.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// systemEtc are the pieces of /etc that ordinary programs read: the
// dynamic loader's cache and configuration, CA certificates, the user and
// group names, name-service and resolver settings, the time zone, locale
// and MIME tables, and the configuration folders of toolchains that keep
// it under /etc on Debian-like systems (Java, Python, Perl, Maven, pip,
// npm's global npmrc). Not /etc/shadow, sudoers, ssh, ssl private keys
// (only /etc/ssl/certs), machine-id, or anything else.
var systemEtc = []string{
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
	"/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/pki/tls/certs", "/etc/pki/ca-trust",
	"/etc/ca-certificates", "/etc/ca-certificates.conf", "/etc/crypto-policies",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/hosts",
	"/etc/hostname", "/etc/resolv.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
	"/etc/networks", "/etc/localtime", "/etc/timezone", "/etc/locale.alias", "/etc/locale.conf",
	"/etc/default/locale", "/etc/mime.types", "/etc/magic", "/etc/magic.mime", "/etc/os-release",
	"/etc/lsb-release", "/etc/debian_version", "/etc/alternatives", "/etc/terminfo",
	"/etc/inputrc", "/etc/perl", "/etc/maven", "/etc/pip.conf", "/etc/npmrc",
}

// systemEtcGlobs are versioned toolchain folders: /etc/java-17-openjdk is
// the conf folder of the JDK, /etc/python3.11 holds sitecustomize.py.
var systemEtcGlobs = []string{"/etc/java-*", "/etc/python3*"}

// kernelDirs are read-only views of the kernel programs consult (cgroup
// limits for GOMAXPROCS and Node's heap, CPU counts, /proc/self). Other
// processes' memory, environment and descriptors stay closed: Landlock
// refuses ptrace-mode access to processes outside the run's domain.
var kernelDirs = []string{"/proc", "/sys"}

// devices a program may open itself. /dev/tty is not among them: a
// confined program has no business with the person's terminal.
var devices = []pathRule{
	{Path: "/dev/null", Access: llReadWrite},
	{Path: "/dev/zero", Access: llReadWrite},
	{Path: "/dev/full", Access: llReadWrite},
	{Path: "/dev/random", Access: llRead},
	{Path: "/dev/urandom", Access: llRead},
}

// llReadWrite reads and writes a file.
const llReadWrite = llRead | llWrite

// systemRules are the rules for the system's folders, the pieces of /etc,
// the kernel's views and the devices, listed once per process (a JDK
// installed meanwhile is seen after a restart). A path that does not
// exist is skipped when the ruleset is built; the folders are resolved
// here, so that mergeRules can tell which rules /usr already covers
// (/bin, /lib on a merged /usr; /usr/bin on PATH).
var systemRules = sync.OnceValue(func() []pathRule {
	var rules []pathRule
	for _, d := range systemDirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			rules = append(rules, pathRule{Path: d, Access: llRead | llExec, Real: real})
		}
	}
	for _, p := range systemEtc {
		rules = append(rules, pathRule{Path: p, Access: llRead})
	}
	if entries, err := os.ReadDir("/etc"); err == nil {
		for _, e := range entries {
			for _, g := range systemEtcGlobs {
				if ok, _ := filepath.Match(g, "/etc/"+e.Name()); ok {
					rules = append(rules, pathRule{Path: "/etc/" + e.Name(), Access: llRead})
					break
				}
			}
		}
	}
	for _, d := range kernelDirs {
		rules = append(rules, pathRule{Path: d, Access: llRead, Real: d})
	}
	return append(rules, devices...)
})

// baseRules are the reads every confined run gets: system folders, the
// pieces of /etc, the kernel's views, the devices, PATH folders, the
// workspace's own git folders kept outside it.
func baseRules(env []string, roots []string) []pathRule {
	rules := slices.Clone(systemRules())
	for _, d := range pathDirs(env, roots) {
		rules = append(rules, pathRule{Path: d, Access: llRead | llExec, Real: d})
	}
	for _, g := range gitDirsOutside(roots) {
		rules = append(rules, pathRule{Path: g, Access: llRead, Real: g})
	}
	return rules
}

// mergeRules drops each rule that another rule already grants: one whose
// resolved path is a folder's granted with at least the same rights, or
// beneath it (Landlock's rights on a folder reach everything beneath it).
// Only rules whose resolved path is known (Real) take part, and a rule
// is only ever dropped, never widened: what the merged rules grant is
// what the rules granted, or less if a path was relinked since it was
// resolved. NoFollow rules (the workspace's) are kept as they are.
func mergeRules(rules []pathRule) []pathRule {
	out := make([]pathRule, 0, len(rules))
	for i, p := range rules {
		dropped := false
		if p.Real != "" {
			for j, f := range rules {
				// Of two rules granting each other (the same path and
				// rights), the first stays.
				if i != j && covers(f, p) && !(j > i && covers(p, f)) {
					dropped = true
					break
				}
			}
		}
		if !dropped {
			out = append(out, p)
		}
	}
	return out
}

// covers reports whether rule f already grants what rule p does.
func covers(f, p pathRule) bool {
	return f.Real != "" && p.Real != "" && !f.NoFollow && !p.NoFollow &&
		p.Access&^f.Access == 0 && within(p.Real, []string{f.Real})
}

// coveredBy reports whether one of rules already grants what p does.
func coveredBy(rules []pathRule, p pathRule) bool {
	return slices.ContainsFunc(rules, func(f pathRule) bool { return covers(f, p) })
}

// workspaceRules grant a run of code the workspace: everything (read,
// write, execute, make and remove entries) except the blocked paths.
//
// Landlock rights on a folder reach everything beneath it, and a ruleset
// only adds rights, so a path is kept out by granting around it: a folder
// with nothing blocked beneath gets every right; a folder above a blocked
// path gets each of its other entries on their own (files their write
// rights, folders recursively); and it gets the rights to make and remove
// entries only when nothing beneath it must stay as it is (noEntries),
// since making an entry in a folder is granted to every folder beneath
// it, a protected .git/hooks included.
//
// Hard-linked files (and FIFOs, sockets, devices) are blocked but do not
// take away a folder's entries: replacing or removing the workspace's
// link never touches the other link's data. So for them the choice is to
// keep writes away, not to refuse the run (pnpm's node_modules is made of
// hard links, and refusing it would refuse every Node project that uses
// pnpm) nor to detect after the fact (the other copy would already have
// changed). A new file made in a folder that holds one cannot be written
// either: the folder has no write right of its own.
//
// noEntries are the protected paths when no mount namespace makes them
// read-only; then the folders above them (the workspace root, typically)
// cannot gain new entries: docs/confinement.md says what that costs.
func workspaceRules(root string, blocked, noEntries []string) ([]pathRule, error) {
	rules := []pathRule{{Path: root, Access: llRead | llExec, NoFollow: true}}
	isBlocked := map[string]bool{}
	aboveBlocked := map[string]bool{}
	aboveNoEntries := map[string]bool{}
	mark := func(p string, above map[string]bool) {
		for d := filepath.Dir(p); within(d, []string{root}); d = filepath.Dir(d) {
			if above[d] {
				break
			}
			above[d] = true
			if d == root {
				break
			}
		}
	}
	for _, p := range blocked {
		isBlocked[p] = true
		mark(p, aboveBlocked)
	}
	for _, p := range noEntries {
		isBlocked[p] = true
		mark(p, aboveBlocked)
		mark(p, aboveNoEntries)
	}
	var visit func(dir string) error
	visit = func(dir string) error {
		if !aboveBlocked[dir] {
			rules = append(rules, pathRule{Path: dir, Access: llAll, NoFollow: true})
			return nil
		}
		if !aboveNoEntries[dir] {
			rules = append(rules, pathRule{Path: dir, Access: llEntries, NoFollow: true})
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("read %s: %w", dir, err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case isBlocked[p]:
			case e.IsDir():
				if err := visit(p); err != nil {
					return err
				}
			case e.Type().IsRegular():
				rules = append(rules, pathRule{Path: p, Access: llRead | llExec | llWrite, NoFollow: true})
			}
		}
		return nil
	}
	return rules, visit(root)
}

// userCacheHome is where toolchains keep their caches by default, as Go's
// os.UserCacheDir says for Linux: $XDG_CACHE_HOME, else ~/.cache.
func userCacheHome(env []string, home string) string {
	if v := envValue(env, "XDG_CACHE_HOME"); v != "" {
		return v
	}
	return joinIf(home, ".cache")
}

// userConfigHome is $XDG_CONFIG_HOME, else ~/.config (os.UserConfigDir).
func userConfigHome(env []string, home string) string {
	if v := envValue(env, "XDG_CONFIG_HOME"); v != "" {
		return v
	}
	return joinIf(home, ".config")
}
