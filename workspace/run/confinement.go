package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// confine lays out the run's confinement: which walls it gets, the private
// temporary folder, and either the restriction of the thread that starts
// each program or the confiner's spec. A run that needs a wall the machine
// cannot give is refused here, before anything starts, unless the spec
// accepts weaker confinement.
func (x *executor) confine(s Spec) error {
	if s.Code && s.Protected == nil {
		return fmt.Errorf("%w: a run of code needs Protected (the paths it must leave as they are)", ErrSetup)
	}
	l := layoutFor(s.Code, s.Network)
	x.walls, x.missing = l.walls()
	if len(x.missing) > 0 && !s.AcceptWeaker {
		return &ConfinementError{Missing: x.missing, Machine: describeMachine(l)}
	}
	x.confined, x.abi, x.confiner = true, l.abi, l.confiner

	base, stable := tempBase()
	temp, err := os.MkdirTemp(base, "admit-run-")
	if err != nil {
		return fmt.Errorf("%w: private temporary folder: %v", ErrSetup, err)
	}
	x.temp, x.tmpdir = temp, temp
	// In the confiner the folder is bound onto a path that is the same
	// for every run; the rules name the path the program sees.
	var writable, readOnly []string
	if l.confiner && stable != "" {
		x.tmpdir = stable
	} else {
		writable = append(writable, temp)
	}
	x.env = setEnv(x.env, "TMPDIR", x.tmpdir)

	personEnv := ScrubEnv(s.Env)
	rules := baseRules(personEnv, x.roots)
	if s.Code {
		rules = append(rules, pathRule{Path: x.tmpdir, Access: llAll})
		for _, t := range toolchainDirs(personEnv) {
			if t.Write {
				rules = append(rules, pathRule{Path: t.Path, Access: llAll})
				writable = append(writable, t.Path)
			} else {
				rules = append(rules, pathRule{Path: t.Path, Access: llRead | llExec})
			}
		}
		sv, err := surveyWorkspace(x.roots, s.Protected)
		if err != nil {
			return fmt.Errorf("%w: survey of the workspace: %v", ErrSetup, err)
		}
		noEntries := sv.protected
		if l.confiner {
			// The protected paths are bound read-only; Landlock need
			// only keep the hard-linked and special files.
			noEntries = nil
			readOnly = append(slices.Clone(sv.protected), sv.linkBinds...)
			if x.linkBindsCapped = sv.linkBindsCapped; x.linkBindsCapped {
				// Contents stay Landlock's; the metadata of the links past
				// the cap is not kept: the wall says so.
				for i := range x.walls {
					if x.walls[i].Name == WallHardLinks {
						x.walls[i].By = ByLandlock
					}
				}
			}
			rules = append(rules, pathRule{Path: "/dev/shm", Access: llAll})
		}
		for _, root := range x.roots {
			wr, err := workspaceRules(root, inside(sv.special, root), inside(noEntries, root))
			if err != nil {
				return fmt.Errorf("%w: %v", ErrSetup, err)
			}
			rules = append(rules, wr...)
			writable = append(writable, root)
		}
	} else {
		rules = append(rules, pathRule{Path: x.tmpdir, Access: llAll &^ llExec})
		for _, root := range x.roots {
			rules = append(rules, pathRule{Path: root, Access: llRead})
		}
		for _, w := range x.writes {
			info, err := os.Lstat(w)
			switch {
			case err != nil:
				continue
			case info.IsDir():
				rules = append(rules, pathRule{Path: w, Access: llAll &^ llExec, NoFollow: true})
			case info.Mode().IsRegular():
				rules = append(rules, pathRule{Path: w, Access: llRead | llWrite, NoFollow: true})
			default:
				continue
			}
			writable = append(writable, w)
		}
	}
	rs := rulesetSpec{ABI: l.abi, Rules: rules, HandleNet: !s.Network && !l.netns}
	filter := filterOptions{DenyInet: !s.Network && !l.netns, DenyTruncate: l.abi < 3}
	if l.confiner {
		x.spec = confinerSpec{
			Seccomp: l.seccomp,
			Filter:  filter,
			Mounts:  confinerMounts{Writable: writable, ReadOnly: readOnly, Shm: s.Code},
			NetNS:   l.netns,
			MemMB:   x.memMB,
		}
		if x.tmpdir != temp {
			x.spec.Mounts.Temp, x.spec.Mounts.TempAt = temp, x.tmpdir
		}
		if l.abi > 0 {
			x.spec.Ruleset = &rs
		}
		return nil
	}
	x.restrict = &restriction{}
	if l.abi > 0 {
		r, err := newRuleset(rs)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrSetup, err)
		}
		x.restrict.ruleset = r
	}
	if l.seccomp {
		prog, err := buildFilter(filter)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrSetup, err)
		}
		x.restrict.filter = prog
	}
	return nil
}

// tempBase is the folder private temporary folders are made in, and the
// empty folder the confiner binds a run's own onto (its TMPDIR, the same
// on every run): <temp>/admit-<uid>/ and its tmp/, made 0700 by this user.
// If that folder is not this user's own (someone else made it first, or a
// link), private folders are made in the system's temporary folder and
// stable is "".
func tempBase() (base, stable string) {
	sys := os.TempDir()
	if r, err := filepath.EvalSymlinks(sys); err == nil {
		sys = r
	}
	base = filepath.Join(sys, fmt.Sprintf("admit-%d", os.Getuid()))
	ours := func(p string) bool {
		if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return false
		}
		info, err := os.Lstat(p)
		if err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
			return false
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		return ok && int(st.Uid) == os.Getuid()
	}
	if !ours(base) {
		return sys, ""
	}
	if at := filepath.Join(base, "tmp"); ours(at) {
		return base, at
	}
	return base, ""
}

// cleanup closes the ruleset and removes the private temporary folder.
func (x *executor) cleanup() {
	if x.restrict != nil && x.restrict.ruleset != nil {
		x.restrict.ruleset.close()
	}
	if x.temp != "" {
		removeAll(x.temp)
	}
}

// removeAll removes a folder a program may have left read-only parts in
// (Go's module cache extracts read-only folders): write permission is
// given back to each folder first.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// programRule lets a run execute the program it starts, wherever its file
// is (a PATH entry may be a link to a file elsewhere).
func programRule(bin string) pathRule {
	return pathRule{Path: resolve(bin), Access: llRead | llExec}
}

// inside keeps the paths beneath root.
func inside(paths []string, root string) []string {
	var out []string
	for _, p := range paths {
		if within(p, []string{root}) {
			out = append(out, p)
		}
	}
	return out
}

// setEnv sets name in env, replacing any earlier value.
func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// describeMachine says, for a refusal, what this machine has.
func describeMachine(l layout) string {
	parts := []string{fmt.Sprintf("Landlock ABI %d", l.abi)}
	if !l.seccomp {
		parts = append(parts, "no seccomp")
	}
	if ok, why := namespacesAvailable(); !ok {
		parts = append(parts, "no namespaces: "+why)
	}
	return strings.Join(parts, "; ")
}

// linkCount is the link count of a regular file at p, or 0.
func linkCount(p string) uint64 {
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() {
		return 0
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// errNotRegular is returned by openRegular for a FIFO, socket or device.
var errNotRegular = errors.New("not a regular file")
