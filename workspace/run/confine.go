package run

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// knownABI is the highest Landlock ABI go-landlock v0.11 knows (V11); a
// newer kernel is used at this level.
const knownABI = 11

var detect = sync.OnceValues(func() (string, int) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return "none", 0
	}
	return "landlock", min(v, knownABI)
})

// Confinement reports what this kernel supports: ("landlock", abi) or
// ("none", 0). Network rules (no TCP bind or connect) need ABI 4.
func Confinement() (string, int) { return detect() }

// landlockRules allow reading and executing everywhere, and writing only
// beneath writes and to /dev/null. No network rule is given, so TCP bind
// and connect are denied where the kernel can (ABI 4 and later).
func landlockRules(writes []string) []landlock.Rule {
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles("/dev/null"),
	}
	for _, w := range writes {
		info, err := os.Stat(w)
		switch {
		case err != nil:
			continue
		case info.IsDir():
			rules = append(rules, landlock.RWDirs(w).WithRefer())
		default:
			rules = append(rules, landlock.RWFiles(w))
		}
	}
	return rules
}

// ruleset is a Landlock ruleset prepared once per run. A program is started
// from an OS thread that has enforced it, so the child inherits the
// restriction from its first instruction, without a helper process (whose
// start would cost more than most commands).
type ruleset struct {
	fd    int
	flags uint32
}

func newRuleset(writes []string) (*ruleset, error) {
	fd, flags, err := landlock.V11.BestEffort().NewRulesetFD(landlockRules(writes)...)
	if err != nil {
		return nil, err
	}
	if fd < 0 {
		return nil, errors.New("landlock: nothing to enforce on this kernel")
	}
	return &ruleset{fd: fd, flags: flags}, nil
}

// start starts cmd from a fresh OS thread restricted by the ruleset. The
// thread is never unlocked, so the runtime ends it with its goroutine and
// no other goroutine ever runs restricted. It stays until done is called:
// the child's parent-death signal fires when the thread that forked it
// ends, so the thread must outlive the child.
func (r *ruleset) start(cmd interface{ Start() error }) (done func(), err error) {
	errc := make(chan error, 1)
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread is restricted below
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("%w: no_new_privs: %v", ErrSetup, err)
			return
		}
		if err := llsys.LandlockRestrictSelf(r.fd, r.flags); err != nil {
			errc <- fmt.Errorf("%w: landlock: %v", ErrSetup, err)
			return
		}
		errc <- cmd.Start()
		<-release
	}()
	return func() { close(release) }, <-errc
}

func (r *ruleset) close() { _ = syscall.Close(r.fd) }

// limitMemory caps the address space of a started program. The program is
// already running its own code (the fork was a vfork that returned after
// exec), so a program could allocate in its first microseconds before the
// cap lands; that is a resource bound, not a wall, and the kernel's
// Landlock domain does not depend on it.
func limitMemory(pid, mb int) error {
	limit := uint64(mb) << 20
	if err := unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: limit, Max: limit}, nil); err != nil {
		return fmt.Errorf("%w: memory limit: %v", ErrSetup, err)
	}
	return nil
}
