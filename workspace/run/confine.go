package run

import (
	"errors"
	"fmt"
	"os"
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
	// BestEffort: use what this kernel has (file system from ABI 1, TCP
	// from 4, scopes from 6) instead of refusing to run on an older one;
	// Confinement reports the ABI so the caller says which walls stand.
	return landlock.V11.BestEffort().Restrict(rules...)
}
