package run

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// knownABI is the highest Landlock ABI go-landlock v0.11 knows (V11); a
// newer kernel is used at this level.
const knownABI = 11

var detectABI = sync.OnceValue(func() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0
	}
	return min(v, knownABI)
})

// Confinement reports what this kernel supports: ("landlock", abi) or
// ("none", 0). Probe says which walls a run gets from it.
func Confinement() (string, int) {
	if abi := detectABI(); abi > 0 {
		return "landlock", abi
	}
	return "none", 0
}

// Landlock access rights, grouped as the rules grant them.
const (
	llRead  = llsys.AccessFSReadFile | llsys.AccessFSReadDir
	llExec  = llsys.AccessFSExecute
	llWrite = llsys.AccessFSWriteFile | llsys.AccessFSTruncate
	// llEntries create, remove and rename entries. Sockets, character and
	// block devices are never made (the filter refuses unix sockets and
	// devices need a capability the run does not have).
	llEntries = llsys.AccessFSMakeReg | llsys.AccessFSMakeDir | llsys.AccessFSMakeSym |
		llsys.AccessFSMakeFifo | llsys.AccessFSRemoveFile | llsys.AccessFSRemoveDir | llsys.AccessFSRefer
	llAll = llRead | llExec | llWrite | llEntries
	// llFileRights are the rights a rule on a file (not a folder) may carry.
	llFileRights = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile |
		llsys.AccessFSTruncate | llsys.AccessFSIoctlDev
)

// handledFS is every file-system right the ABI knows: a right the ruleset
// handles is denied wherever no rule grants it. ResolveUnix (ABI 9) is
// handled and never granted, so no pathname socket is reached through
// Landlock either.
func handledFS(abi int) uint64 {
	if abi < 1 {
		return 0
	}
	h := uint64(1<<13 - 1) // ABI 1: execute .. make_sym
	if abi >= 2 {
		h |= llsys.AccessFSRefer
	}
	if abi >= 3 {
		h |= llsys.AccessFSTruncate
	}
	if abi >= 5 {
		h |= llsys.AccessFSIoctlDev
	}
	if abi >= 9 {
		h |= llsys.AccessFSResolveUnix
	}
	return h
}

// handledNet is the TCP (ABI 4) and UDP (ABI 10) rights; no port is ever
// granted, so handling them denies them.
func handledNet(abi int) uint64 {
	var h uint64
	if abi >= 4 {
		h |= llsys.AccessNetBindTCP | llsys.AccessNetConnectTCP
	}
	if abi >= 10 {
		h |= llsys.AccessNetBindUDP | llsys.AccessNetConnectSendUDP
	}
	return h
}

// scopes (ABI 6) keep a program from signalling, or connecting to the
// abstract unix sockets of, any process outside its own Landlock domain.
func scopes(abi int) uint64 {
	if abi >= 6 {
		return llsys.ScopeAbstractUnixSocket | llsys.ScopeSignal
	}
	return 0
}

// pathRule is one Landlock rule: the rights granted on a path (a folder's
// rights reach everything beneath it).
type pathRule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
	// NoFollow marks a path in the workspace: it is opened without
	// following a final symlink, and a symlink found there grants nothing
	// (the agent may have put it there to point the grant outside).
	NoFollow bool `json:"noFollow,omitempty"`
	// Real is Path with every link resolved, where it is known: only
	// such rules are merged (mergeRules).
	Real string `json:"-"`
}

// rulesetSpec is what a ruleset is built from; the confiner receives it.
type rulesetSpec struct {
	ABI       int        `json:"abi"`
	Rules     []pathRule `json:"rules"`
	HandleNet bool       `json:"handleNet"` // deny TCP (and UDP) through Landlock
}

// ruleset is a Landlock ruleset prepared once per run. More rules may be
// added (each program's own file) until a thread enforces it.
type ruleset struct {
	fd  int
	abi int
}

func newRuleset(s rulesetSpec) (*ruleset, error) {
	attr := llsys.RulesetAttr{HandledAccessFS: handledFS(s.ABI), Scoped: scopes(s.ABI)}
	if s.HandleNet {
		attr.HandledAccessNet = handledNet(s.ABI)
	}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock: create ruleset: %w", err)
	}
	r := &ruleset{fd: fd, abi: s.ABI}
	for _, rule := range s.Rules {
		if err := r.add(rule); err != nil {
			r.close()
			return nil, err
		}
	}
	return r, nil
}

// add adds one rule. A path that does not exist is skipped: it grants
// nothing, as a rule cannot name what is not there.
func (r *ruleset) add(rule pathRule) error {
	if !rule.NoFollow {
		return pathFDs.with(rule.Path, func(fd int, st *unix.Stat_t) error { return r.addFD(rule, fd, st) })
	}
	fd, err := unix.Open(rule.Path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("landlock: open %s: %w", rule.Path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: stat %s: %w", rule.Path, err)
	}
	return r.addFD(rule, fd, &st)
}

// addFD adds the rule for the file fd refers to.
func (r *ruleset) addFD(rule pathRule, fd int, st *unix.Stat_t) error {
	access := rule.Access & handledFS(r.abi)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return nil // only reached with NoFollow: a link grants nothing
	default:
		access &= llFileRights
	}
	if access == 0 {
		return nil
	}
	attr := llsys.PathBeneathAttr{ParentFd: fd, AllowedAccess: access}
	if err := llsys.LandlockAddPathBeneathRule(r.fd, &attr, 0); err != nil {
		return fmt.Errorf("landlock: rule for %s: %w", rule.Path, err)
	}
	return nil
}

func (r *ruleset) close() { _ = syscall.Close(r.fd) }

// pathFDs keeps the O_PATH descriptors of the folders and files outside
// the workspace that every run's rules name (/usr, /etc/passwd, a
// toolchain's cache), so a run does not open them again: a rule costs a
// stat instead of an open. A path whose file changed since (/etc/resolv.conf
// replaced by rename) is opened again, so a rule never names an old file.
var pathFDs = &fdCache{fds: map[string]cachedFD{}}

// maxCachedFDs bounds the cache (a run names about a hundred such paths).
const maxCachedFDs = 512

type cachedFD struct {
	fd int
	st unix.Stat_t
}

type fdCache struct {
	// mu guards fds.
	mu  sync.Mutex
	fds map[string]cachedFD
}

// with calls f with a descriptor of path (following links, as the rule
// does) and its stat, under the cache's lock so the descriptor cannot be
// closed meanwhile. A path that does not exist is skipped (f not called).
func (c *fdCache) with(path string, f func(fd int, st *unix.Stat_t) error) error {
	skip := func(err error) bool {
		return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, hit := c.fds[path]; hit {
		// Only a path seen before is stat'ed first: a first one is
		// opened at once.
		var now unix.Stat_t
		err := unix.Stat(path, &now)
		if err == nil && cur.st.Dev == now.Dev && cur.st.Ino == now.Ino {
			return f(cur.fd, &cur.st)
		}
		unix.Close(cur.fd)
		delete(c.fds, path)
		if skip(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("landlock: stat %s: %w", path, err)
		}
	}
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if skip(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("landlock: open %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return fmt.Errorf("landlock: stat %s: %w", path, err)
	}
	if len(c.fds) >= maxCachedFDs {
		for p, old := range c.fds { // drop one at random
			unix.Close(old.fd)
			delete(c.fds, p)
			break
		}
	}
	c.fds[path] = cachedFD{fd: fd, st: st}
	return f(fd, &st)
}

// restriction is everything a thread takes on before it starts a program:
// no_new_privs, no capabilities, the Landlock ruleset (nil: none) and the
// seccomp filter (nil: none). The program inherits all of it from its
// first instruction and cannot shed any of it.
type restriction struct {
	ruleset *ruleset
	filter  []unix.SockFilter
	// memMB > 0 starts the program under that memory bound, set before
	// its exec (startBounded); only the confiner sets it, as it lowers
	// its own soft limit for the instant of the fork.
	memMB int
}

// apply restricts the calling thread, which must be locked and never
// unlocked.
func (r *restriction) apply() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if r.ruleset != nil {
		if err := llsys.LandlockRestrictSelf(r.ruleset.fd, 0); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	if r.filter != nil {
		if err := installFilter(r.filter); err != nil {
			return err
		}
	}
	return nil
}

// dropCapabilities empties the calling thread's capability sets (ambient,
// bounding, permitted, effective, inheritable), so a program started by
// root, or by the confiner inside its user namespace, runs with none:
// with an empty bounding set, exec gives even uid 0 no capability back.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Permitted|data[1].Permitted|data[0].Inheritable|data[1].Inheritable == 0 && os.Geteuid() != 0 {
		return nil
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			if os.Geteuid() == 0 {
				return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
			}
			break // without CAP_SETPCAP; exec as a non-zero uid gives none back anyway
		}
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// startOnThread starts cmd from a fresh OS thread, restricted by r when r
// is not nil. The thread is never unlocked, so the runtime ends it with its
// goroutine and no other goroutine ever runs restricted. It stays until
// done is called: the child's parent-death signal fires when the thread
// that forked it ends, so the thread must outlive the child.
func startOnThread(cmd *exec.Cmd, r *restriction) (done func(), err error) {
	errc := make(chan error, 1)
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread may be restricted below
		if r != nil {
			if err := r.apply(); err != nil {
				errc <- fmt.Errorf("%w: %v", ErrSetup, err)
				return
			}
		}
		if r != nil && r.memMB > 0 {
			errc <- startBounded(cmd, r.memMB)
		} else {
			errc <- cmd.Start()
		}
		<-release
	}()
	return func() { close(release) }, <-errc
}

// The memory bound counts memory, not address space: RLIMIT_DATA (Linux
// 4.7 and later) counts the private writable mappings (heap, brk, anonymous
// memory), while the large PROT_NONE reservations of Go's, V8's and the
// JVM's runtimes count for nothing until they are used. An address-space
// limit (RLIMIT_AS) made those runtimes fail to start. An allocation past
// the bound fails inside the program (ENOMEM: Python's MemoryError, Go's
// "out of memory"), which ends it with its own report.

// dataLimit is the RLIMIT_DATA of a bound of mb MiB.
func dataLimit(mb int) *unix.Rlimit {
	limit := uint64(mb) << 20
	return &unix.Rlimit{Cur: limit, Max: limit}
}

// startBounded starts cmd with the soft bound in place before its exec,
// then fixes its hard bound. The confiner lowers its own soft limit for
// the instant of the fork (the program inherits it, so its first
// instruction runs bounded) and restores it at once: the confiner itself
// stays free to allocate while it waits. The program could raise a soft
// limit up to the hard one, so the hard one follows at once by prlimit.
func startBounded(cmd *exec.Cmd, mb int) error {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &old); err != nil {
		return fmt.Errorf("%w: memory limit: %v", ErrSetup, err)
	}
	bound := dataLimit(mb)
	soft := unix.Rlimit{Cur: min(bound.Cur, old.Max), Max: old.Max}
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &soft); err != nil {
		return fmt.Errorf("%w: memory limit: %v", ErrSetup, err)
	}
	err := cmd.Start()
	if rerr := unix.Setrlimit(unix.RLIMIT_DATA, &old); rerr != nil && err == nil {
		err = fmt.Errorf("%w: memory limit: restore: %v", ErrSetup, rerr)
	}
	if err != nil {
		return err
	}
	return limitMemory(cmd.Process.Pid, mb)
}

// limitMemory bounds the memory of a program started from admit's own
// thread. The program is already running its own code (the fork was a
// vfork that returned after exec), so it could allocate in its first
// microseconds before the bound lands; that is a resource bound, not a
// wall, and the kernel's Landlock domain does not depend on it. Programs
// that run code start in the confiner, which sets the bound before exec
// (startBounded).
func limitMemory(pid, mb int) error {
	if err := unix.Prlimit(pid, unix.RLIMIT_DATA, dataLimit(mb), nil); err != nil {
		return fmt.Errorf("%w: memory limit: %v", ErrSetup, err)
	}
	return nil
}
