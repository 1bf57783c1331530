package run

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// confineCommand is the hidden subcommand of admit that runs ConfineMain.
const confineCommand = "__confine"

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

// ConfineMain is the hidden helper `admit __confine [--landlock] [--write
// PATH]... [--mem MB] [--status-fd N] -- PROGRAM ARGV0 ARGS...`; args are
// the words after "__confine". It applies Landlock (reads and execution
// everywhere, writes only beneath the --write paths and to /dev/null, no
// TCP bind or connect from ABI 4, IPC scoped from ABI 6) and RLIMIT_AS,
// then replaces itself with PROGRAM. It returns only on failure, with 126,
// after writing the reason to the status fd (which is close-on-exec, so the
// parent reads nothing when the exec succeeds) and to stderr.
func ConfineMain(args []string) int {
	statusFD := -1
	fail := func(format string, a ...any) int {
		msg := fmt.Sprintf("admit __confine: "+format, a...)
		if statusFD >= 0 {
			syscall.Write(statusFD, []byte(msg))
		}
		fmt.Fprintln(os.Stderr, msg)
		return 126
	}
	var writes []string
	ll, mem := false, 0
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		switch args[i] {
		case "--landlock":
			ll = true
		case "--write", "--mem", "--status-fd":
			if i+1 >= len(args) {
				return fail("%s needs a value", args[i])
			}
			v := args[i+1]
			switch args[i] {
			case "--write":
				writes = append(writes, v)
			case "--mem", "--status-fd":
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return fail("%s: bad value %q", args[i], v)
				}
				if args[i] == "--mem" {
					mem = n
				} else {
					statusFD = n
					syscall.CloseOnExec(n)
				}
			}
			i++
		default:
			return fail("unknown option %q", args[i])
		}
	}
	if i+2 >= len(args) {
		return fail("usage: __confine [options] -- PROGRAM ARGV0 [ARGS...]")
	}
	prog, argv := args[i+1], args[i+2:]
	if ll {
		if err := applyLandlock(writes); err != nil {
			return fail("landlock: %v", err)
		}
	}
	// Build execve's arguments before the memory limit: this Go process
	// may already hold more address space than the limit allows, so after
	// setting it nothing may allocate until the exec.
	progp, err := syscall.BytePtrFromString(prog)
	if err != nil {
		return fail("exec %s: %v", prog, err)
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return fail("exec %s: %v", prog, err)
	}
	envp, err := syscall.SlicePtrFromStrings(os.Environ())
	if err != nil {
		return fail("exec %s: %v", prog, err)
	}
	if mem > 0 {
		limit := uint64(mem) << 20
		if err := unix.Prlimit(0, unix.RLIMIT_AS, &unix.Rlimit{Cur: limit, Max: limit}, nil); err != nil {
			return fail("memory limit: %v", err)
		}
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE,
		uintptr(unsafe.Pointer(progp)),
		uintptr(unsafe.Pointer(&argvp[0])),
		uintptr(unsafe.Pointer(&envp[0])))
	return fail("exec %s: %v", prog, errno)
}

// applyLandlock restricts this process (and what it execs) to writing
// beneath writes. A missing path grants nothing: its folder must be listed.
func applyLandlock(writes []string) error {
	if kind, _ := Confinement(); kind != "landlock" {
		return errors.New("not supported by this kernel")
	}
	// BestEffort: use what this kernel has (file system from ABI 1, TCP
	// from 4, scopes from 6) instead of refusing to run on an older one;
	// Confinement reports the ABI so the caller says which walls stand.
	return landlock.V11.BestEffort().Restrict(landlockRules(writes)...)
}

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
