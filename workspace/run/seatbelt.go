package run

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// macOS confines a run with its own sandbox, Seatbelt: each program
// starts as `/usr/bin/sandbox-exec -f PROFILE -D KEY=PATH ... -D
// PROGRAM=PATH -- PROGRAM ARGS`, and the kernel holds it, and every
// process it starts, to the profile. The profile is written once per run
// to a file of admit's own (0600, in a folder the run cannot write): a
// workspace with thousands of hard-linked files would make a profile
// longer than a command line may be. The profile denies everything by default and allows what
// docs/confinement.md lists for Linux, with macOS's own system folders:
// reads of the workspace, the system and the toolchains; writes to the
// admitted targets (or, for a program that runs code, the workspace minus
// its protected paths and hard-linked and special files) and the private
// temporary folder; the network only when the spec opens it; no unix
// socket (the system's name resolver's alone, when the network is open);
// signals and process information only within the run.
//
// Everything here is a pure function of its inputs (the plan, the lists),
// so its text is tested on every system; the darwin files start the
// programs and probe that sandbox-exec works here (walls_darwin.go runs a
// probe plan of every kind of rule through it, and a write it must deny).
// Paths reach the profile as parameters (-D), never inside its text, so a
// file name cannot change the profile; the program a run starts is the
// parameter PROGRAM (programParams), so every program of a run shares
// one profile.

// sandboxExec is the system's sandbox-exec: never one found on PATH.
const sandboxExec = "/usr/bin/sandbox-exec"

// macSystemExec are the folders of macOS's programs and libraries, as the
// sandbox sees them (real paths, no symlinks): read, execute and map as
// code. /System is named piece by piece: its Volumes/Data holds every
// person's files again under another path. /usr covers /usr/local and
// /opt/homebrew is Homebrew's prefix on Apple silicon: installs, as /usr
// is on Linux. The command line tools and Xcode hold git, clang and
// make (/usr/bin/git runs them through xcrun).
var macSystemExec = []string{
	"/usr", "/bin", "/sbin",
	"/System/Library", "/System/Cryptexes", "/System/Volumes/Preboot/Cryptexes", "/System/iOSSupport",
	"/Library/Apple", "/Library/Developer/CommandLineTools", "/Applications/Xcode.app",
	"/opt/homebrew",
}

// macSystemRead are the files and folders of macOS's configuration that
// ordinary programs read (under /private/etc, which /etc links to): the
// resolver, user and group names, services, the time zone (its link
// and the zone files), CA certificates and OpenSSL's configuration, and
// the link xcode-select keeps to the developer folder. Not
// master.passwd, sudoers, ssh or anything else.
var macSystemRead = []string{
	"/private/etc/hosts", "/private/etc/resolv.conf", "/private/etc/passwd", "/private/etc/group",
	"/private/etc/services", "/private/etc/protocols", "/private/etc/networks", "/private/etc/localtime",
	"/private/etc/ssl/cert.pem", "/private/etc/ssl/certs", "/private/etc/ssl/openssl.cnf",
	"/private/var/db/timezone", "/private/var/db/xcode_select_link",
}

// macServices are the system services (mach-lookup names) a program may
// reach: user and group lookups, notifications, logging, the per-user
// temporary folder's helper, and certificate trust (TLS). Not the
// keychain (com.apple.SecurityServer), and not the preferences daemon:
// cfprefsd would read any application's preferences for the program,
// past the file system's walls (a program then sees the defaults).
var macServices = []string{
	"com.apple.system.opendirectoryd.libinfo", "com.apple.system.opendirectoryd.membership",
	"com.apple.system.DirectoryService.libinfo_v1", "com.apple.system.notification_center",
	"com.apple.system.logger", "com.apple.logd", "com.apple.bsd.dirhelper",
	"com.apple.trustd", "com.apple.trustd.agent",
}

// macNetServices are reached only when the network is open: the DNS
// configuration, the network daemons, and certificate revocation checks.
var macNetServices = []string{
	"com.apple.SystemConfiguration.DNSConfiguration", "com.apple.SystemConfiguration.configd",
	"com.apple.networkd", "com.apple.ocspd",
}

// macResolverSocket is the system resolver's socket (mDNSResponder): the
// one unix socket a run may reach, and only when the network is open
// (getaddrinfo asks it).
const macResolverSocket = "/private/var/run/mDNSResponder"

// macSysctls are the kernel values a program may read: the hardware and
// CPU (counts, features, page size), the system's name and versions, and
// its own process entry. Not the arguments or environment of other
// processes (kern.procargs2).
var macSysctls = []string{
	"kern.argmax", "kern.hostname", "kern.maxfilesperproc", "kern.maxproc", "kern.osproductversion",
	"kern.osrelease", "kern.ostype", "kern.osvariant_status", "kern.osversion", "kern.secure_kernel",
	"kern.usrstack64", "kern.version", "kern.ngroups", "kern.boottime", "sysctl.proc_cputype",
	"sysctl.proc_translated", "vm.loadavg", "vm.pagesize",
}

// macSysctlPrefixes are read by prefix: the hardware, the CPU, and a
// process's own entry by pid or group.
var macSysctlPrefixes = []string{"hw.", "machdep.cpu.", "kern.proc.pid.", "kern.proc.pgrp."}

// seatbeltPlan is what a run's programs may do, as paths; profile turns
// it into Seatbelt's language. Every path is a real path (no symlinks:
// the sandbox matches the path the kernel resolved).
type seatbeltPlan struct {
	Read  []string // read, files and folders beneath
	Exec  []string // read, execute and map as code, beneath
	Write []string // every write beneath (contents, entries, metadata), except Keep
	// WriteFiles are a judged command's file targets: their contents,
	// mode, times and extended attributes, not their entry (removing or
	// renaming one needs its folder in Write, as on Linux).
	WriteFiles []string
	// Keep are never written, even beneath Write: the protected paths
	// (existing or not), hard-linked files, FIFOs, sockets and devices.
	// The folders above each one, up to its Write folder, are not
	// renamed, removed or changed either, so a kept path cannot be moved
	// from under its name and written elsewhere.
	Keep []string
	// Absent are the protected names a root must not gain (root/NAME,
	// for each name of Spec.RootFolders and RootFiles): never made
	// beneath Write, in any case of their ASCII letters (APFS compares
	// names without case, and a name not made yet has no real spelling
	// to match).
	Absent []string
	// Hidden are secret files (Spec.Hidden) denied to every read and
	// write, last in the profile so that no grant above opens them; they
	// are kept too, so that no folder above one is renamed to move it
	// from under its name.
	Hidden  []string
	Network bool // TCP and UDP, any address; the resolver's socket
}

// profile is the plan's Seatbelt profile and the -D parameters that give
// its paths.
func (p seatbeltPlan) profile() (text string, params []string) {
	var b strings.Builder
	keys := map[string]string{} // path -> parameter
	param := func(kind, path string) string {
		if k, ok := keys[kind+"\x00"+path]; ok {
			return k
		}
		k := fmt.Sprintf("%s_%d", kind, len(keys))
		keys[kind+"\x00"+path] = k
		params = append(params, "-D", k+"="+path)
		return k
	}
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	list := func(op, filter string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString("(allow " + op)
		for _, it := range items {
			b.WriteString(fmt.Sprintf("\n  (%s %q)", filter, it))
		}
		b.WriteString(")\n")
	}
	paths := func(op, filter, kind string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString("(allow " + op)
		for _, it := range items {
			b.WriteString(fmt.Sprintf("\n  (%s (param %q))", filter, param(kind, it)))
		}
		b.WriteString(")\n")
	}

	line("(version 1)")
	line("; admit: a confined run (workspace/run/seatbelt.go). Nothing is allowed but what follows.")
	line("(deny default)")
	line("(allow process-fork)")
	line("(allow signal (target same-sandbox))")
	line("(allow process-info* (target same-sandbox))")
	line("(allow ipc-posix-sem)")
	line(`(allow ipc-posix-shm-read* (ipc-posix-name "apple.shm.notification_center"))`)
	list("sysctl-read", "sysctl-name", macSysctls)
	list("sysctl-read", "sysctl-name-prefix", macSysctlPrefixes)
	list("mach-lookup", "global-name", macServices)

	line("; the root and the links to /private: their metadata")
	line(`(allow file-read-metadata file-test-existence (literal "/") (literal "/etc") (literal "/tmp") (literal "/var"))`)
	line("; devices: the run's own descriptors, null, zero and the random sources; not the terminal")
	line(`(allow file-read* file-test-existence file-write-data (literal "/dev/null") (literal "/dev/zero"))`)
	line(`(allow file-read* file-test-existence (literal "/dev/random") (literal "/dev/urandom"))`)
	line(`(allow file-read-data file-read-metadata file-write-data (subpath "/dev/fd"))`)

	granted := slices.Concat(p.Read, p.Exec, p.Write, p.WriteFiles)
	line("; the folders above what is granted: their metadata (a path is walked from /)")
	paths("file-read-metadata file-test-existence", "path-ancestors", "P", dedupe(granted))
	line("; reads")
	paths("file-read* file-test-existence", "subpath", "P", p.Read)
	line("; programs and libraries, and the program this process starts (a judged command's)")
	paths("file-read* file-test-existence process-exec file-map-executable", "subpath", "P", p.Exec)
	line(`(allow file-read* file-test-existence process-exec file-map-executable (literal (param "PROGRAM")))`)
	line(`(allow file-read-metadata file-test-existence (path-ancestors (param "PROGRAM")))`)

	line("; writes")
	keepAbove := keptAncestors(p.Keep, p.Write)
	for _, w := range p.Write {
		var not []string
		for _, k := range p.Keep {
			if within(k, []string{w}) {
				kp := param("P", k)
				not = append(not, fmt.Sprintf("(require-not (literal (param %q))) (require-not (subpath (param %q)))", kp, kp))
			}
		}
		for _, a := range keepAbove {
			if within(a, []string{w}) {
				not = append(not, fmt.Sprintf("(require-not (literal (param %q)))", param("P", a)))
			}
		}
		for _, a := range p.Absent {
			if within(a, []string{w}) && a != w {
				if re, ok := absentRegex(a); ok {
					not = append(not, fmt.Sprintf("(require-not (regex #\"%s$\")) (require-not (regex #\"%s/\"))", re, re))
				}
			}
		}
		wp := param("P", w)
		if len(not) == 0 {
			line("(allow file-read* file-test-existence file-write* (subpath (param %q)))", wp)
			continue
		}
		line("(allow file-read* file-test-existence (subpath (param %q)))", wp)
		line("(allow file-write* (require-all (subpath (param %q))\n  %s))", wp, strings.Join(not, "\n  "))
	}
	paths("file-read* file-test-existence file-write-data file-write-mode file-write-times file-write-xattr file-write-flags", "literal", "P", p.WriteFiles)

	if len(p.Hidden) > 0 {
		// Seatbelt takes the last rule that matches: these come after
		// every grant.
		line("; secret files hidden from the run: neither read nor written")
		for _, h := range p.Hidden {
			line("(deny file-read* file-write* (literal (param %q)))", param("P", h))
		}
	}
	if p.Network {
		line("; the network: TCP and UDP, any address, and the system's resolver")
		line("(allow system-socket (socket-domain AF_INET) (socket-domain AF_INET6) (socket-domain AF_UNIX))")
		line(`(allow network-outbound (remote ip "*:*"))`)
		line(`(allow network-inbound (local ip "*:*"))`)
		line(`(allow network-bind (local ip "*:*"))`)
		line("(allow network-outbound (literal %q))", macResolverSocket)
		list("mach-lookup", "global-name", macNetServices)
	} else {
		line("; no network, no socket")
	}
	return b.String(), params
}

// absentRegex is a regular expression for the path p (root/NAME) that
// names no folder of the root's, only how deep it is: each of the root's
// folders is "/[^/]+", so no file name reaches the profile's text. The
// name is matched without the case of its ASCII letters; a name of other
// characters than letters, digits, '.', '_' and '-' is not matched (false).
func absentRegex(p string) (string, bool) {
	root, name := filepath.Dir(p), filepath.Base(p)
	var b strings.Builder
	b.WriteString("^")
	if root != "/" {
		b.WriteString(strings.Repeat("/[^/]+", strings.Count(root, "/")))
	}
	b.WriteString("/")
	for _, c := range name {
		switch {
		case 'a' <= c && c <= 'z':
			fmt.Fprintf(&b, "[%c%c]", c, c-'a'+'A')
		case 'A' <= c && c <= 'Z':
			fmt.Fprintf(&b, "[%c%c]", c-'A'+'a', c)
		case '0' <= c && c <= '9', c == '_', c == '-':
			b.WriteRune(c)
		case c == '.':
			b.WriteString("[.]")
		default:
			return "", false
		}
	}
	return b.String(), true
}

// keptAncestors are the folders between each kept path and the Write
// folder it is beneath (that folder included): renaming one would move
// the kept path from under its name.
func keptAncestors(keep, write []string) []string {
	var out []string
	for _, k := range keep {
		for _, w := range write {
			if !within(k, []string{w}) || k == w {
				continue
			}
			for d := filepath.Dir(k); within(d, []string{w}); d = filepath.Dir(d) {
				out = append(out, d)
				if d == w {
					break
				}
			}
		}
	}
	return dedupe(out)
}

// dedupe keeps the first of each path, in order.
func dedupe(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// programParams give the profile's PROGRAM: the file a program of the
// run starts from (found on PATH, maybe through a link), read and
// executed.
func programParams(bin string) []string { return []string{"-D", "PROGRAM=" + resolve(bin)} }

// sandboxArgv is the command line that starts bin under the profile in
// file, with the plan's parameters.
func sandboxArgv(file string, params []string, bin string, args []string) []string {
	return slices.Concat([]string{"sandbox-exec", "-f", file}, params, programParams(bin), []string{"--", bin}, args)
}

// seatbeltInputs are what a run's plan is made from.
type seatbeltInputs struct {
	Roots  []string // resolved
	Writes []string // resolved admitted targets (a judged command)
	Code   bool
	// Temp is the run's private temporary folder (resolved).
	Temp      string
	Env       []string // the person's environment, scrubbed
	Protected func(string) bool
	// RootNames are the protected names a root must not gain
	// (Spec.RootFolders and RootFiles).
	RootNames []string
	Hidden    []string // Spec.Hidden that exist, resolved
	Network   bool
}

// planSeatbelt lays out a run's plan: the system's folders (those that
// exist), the PATH folders, the workspace's own git folders kept outside
// it, the roots and the temporary folder; for a program that runs code
// the toolchains' installs and caches, the workspace to write minus what
// the survey keeps. capped is set when the workspace holds more
// hard-linked files than the plan names (maxLinkBinds): the rest are not
// kept, and the hard-links wall is not in force.
func planSeatbelt(in seatbeltInputs) (plan seatbeltPlan, capped bool, err error) {
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	for _, d := range macSystemExec {
		if exists(d) {
			plan.Exec = append(plan.Exec, d)
		}
	}
	for _, f := range macSystemRead {
		if exists(f) {
			plan.Read = append(plan.Read, f)
		}
	}
	plan.Exec = append(plan.Exec, pathDirs(in.Env, in.Roots)...)
	plan.Read = append(plan.Read, gitDirsOutside(in.Roots)...)
	plan.Network = in.Network
	plan.Hidden = in.Hidden
	plan.Keep = append(plan.Keep, in.Hidden...)
	if !in.Code {
		plan.Read = append(plan.Read, in.Roots...)
		plan.Write = append(plan.Write, in.Temp)
		for _, w := range in.Writes {
			info, err := os.Lstat(w)
			switch {
			case err != nil:
			case info.IsDir():
				plan.Write = append(plan.Write, w)
			case info.Mode().IsRegular():
				plan.WriteFiles = append(plan.WriteFiles, w)
			}
		}
		return plan, false, nil
	}
	if in.Protected == nil {
		return plan, false, fmt.Errorf("%w: a run of code needs Protected (the paths it must leave as they are)", ErrSetup)
	}
	plan.Exec = append(plan.Exec, in.Temp)
	plan.Write = append(plan.Write, in.Temp)
	// The person's caches are read, never written (caches.go).
	for _, t := range toolchainDirs(in.Env) {
		plan.Exec = append(plan.Exec, resolve(t.Path))
	}
	sv, err := surveyWorkspace(in.Roots, in.Protected)
	if err != nil {
		return plan, false, fmt.Errorf("%w: survey of the workspace: %v", ErrSetup, err)
	}
	plan.Exec = append(plan.Exec, in.Roots...)
	plan.Write = append(plan.Write, in.Roots...)
	// The survey names each hard-linked file, or the topmost folder all
	// of whose files are hard-linked (a package pnpm linked in), up to
	// maxLinkBinds; FIFOs, sockets and devices are named one by one. The
	// hard links are kept while their parameters fit maxParamBytes.
	plan.Keep = append(plan.Keep, sv.protected...)
	for _, root := range in.Roots {
		for _, name := range in.RootNames {
			plan.Absent = append(plan.Absent, filepath.Join(root, name))
		}
	}
	for _, s := range sv.special {
		if !within(s, sv.linkBinds) && linkCount(s) <= 1 {
			plan.Keep = append(plan.Keep, s)
		}
	}
	used := map[string]bool{}
	bytes := 0
	cost := func(p string) int {
		n := 0
		for d := p; within(d, in.Roots) && !used[d]; d = filepath.Dir(d) {
			n += len(d) + paramOverhead
		}
		return n
	}
	take := func(p string) {
		for d := p; within(d, in.Roots) && !used[d]; d = filepath.Dir(d) {
			used[d] = true
		}
	}
	for _, k := range plan.Keep {
		bytes += cost(k)
		take(k)
	}
	capped = sv.linkBindsCapped
	for _, k := range sv.linkBinds {
		if c := cost(k); bytes+c > maxParamBytes {
			capped = true
			break
		} else {
			bytes += c
		}
		take(k)
		plan.Keep = append(plan.Keep, k)
	}
	return plan, capped, nil
}

// maxParamBytes bounds the profile's parameters on sandbox-exec's command
// line: macOS allows 1 MiB for arguments and environment together
// (kern.argmax), and the system's, PATH's and the toolchains' paths
// take some. Each kept path costs itself and the folders above it not
// yet named; paramOverhead is a parameter's "-D", name and "=".
const (
	maxParamBytes = 512 << 10
	paramOverhead = 16
)
