package run

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// sysRun is what a run keeps for Linux's confinement.
type sysRun struct {
	// linkBindsCapped: more hard links than the confiner binds read-only;
	// the rest keep their contents (Landlock) but not their metadata.
	linkBindsCapped bool
	spec            confinerSpec // the confiner's spec, less the program (confiner)
	restrict        *restriction // the starting thread's restriction (not confiner)
	// build fills restrict (the ruleset and the filter), once, before the
	// run or, for a line that starts no program, only if one starts.
	build     func() error
	buildOnce sync.Once
	buildErr  error
	// rules are the run's merged rules, less each program's own file.
	rules []pathRule
	// placeholders are the empty protected folders made for the run
	// (placeholders_linux.go), removed when it ends.
	placeholders []placeholder
	ledger       *ledger // their record outside the workspace (ledger_linux.go); nil: none
	// emptyDir holds the empty file bound over the hidden files
	// (makeEmpty); "" when none.
	emptyDir string
	// borrowed are another run's empties this run's walk found: that run
	// may remove them before this one ends (othersEmpties).
	borrowed []placeholder
}

// cleanup closes the ruleset and removes the placeholders (a run that
// ended early: endPlaceholders did not).
func (s *sysRun) cleanup() {
	if s.restrict != nil && s.restrict.ruleset != nil {
		s.restrict.ruleset.close()
	}
	s.endPlaceholders()
	if s.emptyDir != "" {
		os.RemoveAll(s.emptyDir)
	}
}

// endPlaceholders removes the run's placeholders and returns those whose
// place holds something else now (placeholders_linux.go).
func (s *sysRun) endPlaceholders() (replaced []string) {
	_, replaced = removePlaceholders(s.placeholders)
	s.placeholders = nil
	for _, b := range s.borrowed {
		if id, err := idAt(unix.AT_FDCWD, b.path()); err != nil || id != b.id {
			replaced = append(replaced, b.path())
		}
	}
	s.borrowed = nil
	s.ledger.close()
	s.ledger = nil
	return replaced
}

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
	if len(x.hidden) > 0 && !l.confiner {
		// Landlock grants folders, never takes a file out of one: only
		// the confiner's mounts hide a file of the workspace. Without
		// them the run is refused, whatever the person accepts: the
		// gate allowed it on that condition.
		if ok, why := namespacesAvailable(); !ok || withoutNamespaces {
			if why == "" {
				why = "namespaces are not used here"
			}
			return notHidden(x.hidden, "this machine cannot give the run a mount namespace ("+why+")")
		}
		l.confiner, l.netns = true, !s.Network
	}
	x.walls, x.missing = l.walls()
	if len(x.hidden) > 0 {
		x.walls = append(x.walls, Wall{Name: WallHidden, By: ByMountNS})
	}
	if len(x.missing) > 0 && !s.AcceptWeaker {
		return &ConfinementError{Missing: x.missing, Machine: describeMachine(l)}
	}
	x.confined, x.abi, x.confiner = true, l.abi, l.confiner
	x.sandbox = SandboxLandlock
	if l.abi == 0 {
		x.sandbox = SandboxNone
	}

	// A line of builtins started from admit's own thread needs no
	// temporary folder either, unless a program starts after all.
	lazy := x.noPrograms && !s.Code && !l.confiner
	var temp string
	var writable, readOnly []string
	if !lazy {
		var err error
		if temp, writable, err = x.makeTemp(l.confiner); err != nil {
			return err
		}
	}

	personEnv := ScrubEnv(s.Env)
	var rules []pathRule
	if s.Code {
		rules = baseRules(personEnv, x.roots)
		rules = append(rules, pathRule{Path: x.tmpdir, Access: llAll})
		// The person's caches are read, never written (caches.go): the
		// run's own are in its temporary folder.
		for _, t := range toolchainDirs(personEnv) {
			rules = append(rules, pathRule{Path: t.Path, Access: llRead | llExec})
		}
		if err := makeCacheDir(temp); err != nil {
			return fmt.Errorf("%w: private cache folder: %v", ErrSetup, err)
		}
		x.caches = privateCaches(x.tmpdir, personEnv)
		if prog, self := goCacheProgVars(personEnv); prog != nil {
			x.caches = append(x.caches, prog...)
			rules = append(rules, programRule(self))
		}
		x.env = withCaches(x.env, x.caches)
		if l.confiner && x.state != "" {
			// The empties are recorded outside the workspace before they
			// are made, and a killed admit's are removed before the walk
			// (ledger_linux.go). Without a state folder they are made
			// all the same, unrecorded.
			x.ledger, _ = openLedger(filepath.Join(x.state, "placeholders"))
		}
		// The protected folders not there yet are made empty while the
		// workspace is walked (the one waits on the disk's journal, the
		// other mostly on the processor): a name the root has already is
		// not made (EEXIST), so the walk's list is not needed first.
		type empties struct {
			made []placeholder
			bind []string
			err  error
		}
		madeCh := make(chan empties, 1)
		if l.confiner {
			go func() {
				made, bind, err := makePlaceholders(x.roots, s.RootFolders, nil, x.ledger)
				madeCh <- empties{made, bind, err}
			}()
		} else {
			madeCh <- empties{}
		}
		sv, err := surveyWorkspace(x.roots, s.Protected)
		em := <-madeCh
		x.placeholders = em.made // removed by cleanup if the run ends here
		if em.err != nil {
			return fmt.Errorf("%w: %v", ErrSetup, em.err)
		}
		if err != nil {
			return fmt.Errorf("%w: survey of the workspace: %v", ErrSetup, err)
		}
		if l.confiner {
			// A nested checkout's protected folders are kept from being
			// made as a root's are. Made after the walk, which finds
			// them: a workspace without one pays nothing.
			if nested := nestedRoots(x.roots, sv); len(nested) > 0 {
				made, bind, err := makeNestedPlaceholders(x.roots, nested, s.RootFolders, sv.protected, x.ledger, x.placeholders)
				x.placeholders = append(x.placeholders, made...)
				if err != nil {
					return fmt.Errorf("%w: %v", ErrSetup, err)
				}
				em.bind = append(em.bind, bind...)
			}
		}
		x.protectedBefore = append([]string{}, sv.protected...)
		if x.ledger != nil {
			for p, id := range othersEmpties(filepath.Dir(x.ledger.f.Name()), x.ledger) {
				if cur, err := idAt(unix.AT_FDCWD, p); err == nil && cur == id && slices.Contains(sv.protected, p) {
					x.borrowed = append(x.borrowed, placeholder{root: filepath.Dir(p), name: filepath.Base(p), id: id})
				}
			}
		}
		noEntries := sv.protected
		if l.confiner {
			// The protected paths are bound read-only; Landlock need
			// only keep the hard-linked and special files.
			noEntries = nil
			readOnly = append(slices.Clone(sv.protected), sv.linkBinds...)
			// The empties are bound read-only too: the run cannot make
			// those names. The walk may have seen them already.
			for _, p := range em.bind {
				if !slices.Contains(sv.protected, p) {
					readOnly = append(readOnly, p)
					x.protectedBefore = append(x.protectedBefore, p)
				}
			}
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
	} else if l.confiner {
		var w []string
		rules, w = x.judgedRules(personEnv)
		writable = append(writable, w...)
	}
	rs := rulesetSpec{ABI: l.abi, HandleNet: !s.Network && !l.netns}
	filter := filterOptions{DenyInet: !s.Network && !l.netns, DenyTruncate: l.abi < 3}
	if l.confiner {
		x.rules = mergeRules(rules)
		rs.Rules = x.rules
		x.spec = confinerSpec{
			Seccomp: l.seccomp,
			Filter:  filter,
			Mounts:  confinerMounts{Writable: writable, ReadOnly: readOnly, Shm: s.Code, Hidden: hiddenPaths(x.hidden)},
			NetNS:   l.netns,
			MemMB:   x.memMB,
		}
		if x.tmpdir != temp {
			x.spec.Mounts.Temp, x.spec.Mounts.TempAt = temp, x.tmpdir
		}
		if len(x.hidden) > 0 {
			empty, err := x.makeEmpty()
			if err != nil {
				return err
			}
			x.spec.Mounts.Empty = empty
		}
		if l.abi > 0 {
			x.spec.Ruleset = &rs
		}
		return nil
	}
	x.restrict = &restriction{}
	x.build = func() error {
		if x.temp == "" {
			if _, _, err := x.makeTemp(false); err != nil {
				return err
			}
		}
		if !s.Code {
			rules, _ = x.judgedRules(personEnv)
		}
		x.rules = mergeRules(rules)
		rs.Rules = x.rules
		if l.abi > 0 {
			r, err := newRuleset(rs)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrSetup, err)
			}
			x.restrict.ruleset = r
		}
		if l.seccomp {
			prog, err := filterFor(filter)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrSetup, err)
			}
			x.restrict.filter = prog
		}
		return nil
	}
	if x.noPrograms {
		return nil // built at the first program, if one starts after all
	}
	return x.restriction()
}

// makeTemp makes the run's private temporary folder and sets TMPDIR to
// it. In the confiner the folder is bound onto a path that is the same
// for every run (the rules name the path the program sees); elsewhere it
// is writable where it is.
func (x *executor) makeTemp(confiner bool) (temp string, writable []string, err error) {
	base, stable := tempBase()
	temp, err = os.MkdirTemp(base, "admit-run-")
	if err != nil {
		return "", nil, fmt.Errorf("%w: private temporary folder: %v", ErrSetup, err)
	}
	x.temp, x.tmpdir = temp, temp
	if confiner && stable != "" {
		x.tmpdir = stable
	} else {
		writable = append(writable, temp)
	}
	x.env = setEnv(x.env, "TMPDIR", x.tmpdir)
	return temp, writable, nil
}

// makeEmpty makes the empty read-only file the confiner binds over each
// hidden file, in a folder of admit's own beside the private temporary
// folder: the run writes neither (its mounts are read-only but what it
// may write), and cleanup removes it.
func (x *executor) makeEmpty() (string, error) {
	base, _ := tempBase()
	dir, err := os.MkdirTemp(base, "admit-hide-")
	if err != nil {
		return "", fmt.Errorf("%w: folder of the empty file: %v", ErrSetup, err)
	}
	x.emptyDir = dir
	empty := filepath.Join(dir, "empty")
	f, err := os.OpenFile(empty, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o444)
	if err != nil {
		return "", fmt.Errorf("%w: the empty file: %v", ErrSetup, err)
	}
	f.Close()
	return empty, nil
}

// judgedRules are a judged command's rules (reads, its temporary folder,
// its admitted targets) and the targets that exist, for the confiner's
// writable mounts.
func (x *executor) judgedRules(personEnv []string) (rules []pathRule, writable []string) {
	rules = append(baseRules(personEnv, x.roots), pathRule{Path: x.tmpdir, Access: llAll &^ llExec})
	for _, root := range x.roots {
		rules = append(rules, pathRule{Path: root, Access: llRead, Real: root})
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
	return rules, writable
}

// restriction builds the starting thread's restriction once; every
// program of the run waits for it and none starts without it.
func (s *sysRun) restriction() error {
	s.buildOnce.Do(func() { s.buildErr = s.build() })
	return s.buildErr
}

// programRule lets a run execute the program it starts, wherever its file
// is (a PATH entry may be a link to a file elsewhere).
func programRule(bin string) pathRule {
	real := resolve(bin)
	return pathRule{Path: real, Access: llRead | llExec, Real: real}
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
