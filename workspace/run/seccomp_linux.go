package run

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter closes what Landlock cannot on every ABI, or not on
// the ABI this kernel has. It is installed on the thread that starts a
// program, after no_new_privs, so the program inherits it across exec and
// can never remove it. It filters on system-call numbers and integer
// arguments only (seccomp cannot read memory), so each rule is about a
// family, a type or a request code:
//
//   - socket(2): AF_UNIX is refused (no unix socket is ever created, so
//     neither a pathname nor an abstract one can be connected to, admit's
//     own socket included); AF_INET and AF_INET6 are refused unless the
//     network is open to the run (or a private network namespace stands
//     in for it); AF_NETLINK is allowed (getifaddrs, which Node and glibc
//     use to list interfaces, reaches no other machine); every other
//     family (packet, vsock, bluetooth, alg, ...) is refused.
//   - socketpair(2): only AF_UNIX stream and seqpacket pairs, which are
//     connected at birth and cannot be pointed anywhere else (connect and
//     sendto with an address fail on them); a datagram pair could be
//     reconnected to any socket, so it is refused. Pipes between a program
//     and its children (libuv, Python) use stream pairs and keep working.
//   - io_uring_setup/enter/register: io_uring performs socket and connect
//     without the system calls above, so it is refused with ENOSYS, which
//     libuv and others take as "not available" and fall back from.
//   - ioctl TIOCSTI and TIOCLINUX: pushing keystrokes into a terminal (the
//     person's shell runs them) is refused.
//   - SysV IPC (shm*, msg*, sem*) and the key-retention calls (add_key,
//     request_key, keyctl): shared memory, queues and keyrings of the
//     person's other processes are not files, so Landlock does not see
//     them; they are refused.
//   - truncate(2) by path, when Landlock's ABI is below 3 and cannot
//     govern truncation (ftruncate on a descriptor opened for writing,
//     which Landlock did allow, stays).
//   - any system call of another ABI (x32, or i386 through int 0x80 on
//     x86-64), which would reach the same kernel functions under other
//     numbers: refused.
//
// Refusals return an errno, never kill: a program that probes for a
// feature (an IPv6 socket, io_uring) sees it missing and goes on.

// filterOptions choose the parts of the filter that depend on the run.
type filterOptions struct {
	DenyInet     bool `json:"denyInet"`     // refuse AF_INET and AF_INET6 sockets
	DenyTruncate bool `json:"denyTruncate"` // refuse truncate(2) (Landlock ABI < 3)
}

// seccompArch is the audit architecture of this build; 0 where the filter
// is not built (the wall is then missing and a run needing it refused).
var seccompArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64,
	"arm64": unix.AUDIT_ARCH_AARCH64,
}[runtime.GOARCH]

// ipcSyscalls are the SysV IPC calls: shared memory, message queues and
// semaphores.
var ipcSyscalls = []uint32{
	unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL,
	unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV, unix.SYS_MSGCTL,
	unix.SYS_SEMGET, unix.SYS_SEMOP, unix.SYS_SEMCTL, unix.SYS_SEMTIMEDOP,
}

// x32SyscallBit marks the x32 ABI's system-call numbers on x86-64.
const x32SyscallBit = 0x40000000

// Offsets in struct seccomp_data (little-endian: the low word of an
// argument comes first).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

func offArg(i int) uint32 { return offArg0 + 8*uint32(i) }

// bpf is a classic BPF program under construction with labelled jumps.
type bpf struct {
	ins    []unix.SockFilter
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at     int
	jt, jf string // labels; "" means the next instruction
}

func (b *bpf) label(name string) { b.labels[name] = len(b.ins) }

func (b *bpf) load(off uint32) {
	b.ins = append(b.ins, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (b *bpf) and(k uint32) {
	b.ins = append(b.ins, unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: k})
}

// jeq jumps to jt when A == k, else to jf ("" is the next instruction).
func (b *bpf) jeq(k uint32, jt, jf string) { b.jump(unix.BPF_JEQ, k, jt, jf) }

// jge jumps to jt when A >= k, else to jf.
func (b *bpf) jge(k uint32, jt, jf string) { b.jump(unix.BPF_JGE, k, jt, jf) }

func (b *bpf) jump(op uint16, k uint32, jt, jf string) {
	b.fixups = append(b.fixups, fixup{at: len(b.ins), jt: jt, jf: jf})
	b.ins = append(b.ins, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (b *bpf) ret(k uint32) {
	b.ins = append(b.ins, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k})
}

func (b *bpf) assemble() ([]unix.SockFilter, error) {
	rel := func(from int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := b.labels[label]
		if !ok {
			return 0, fmt.Errorf("seccomp: no label %q", label)
		}
		d := to - from - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("seccomp: jump to %q out of range (%d)", label, d)
		}
		return uint8(d), nil
	}
	for _, f := range b.fixups {
		jt, err := rel(f.at, f.jt)
		if err != nil {
			return nil, err
		}
		jf, err := rel(f.at, f.jf)
		if err != nil {
			return nil, err
		}
		b.ins[f.at].Jt, b.ins[f.at].Jf = jt, jf
	}
	return b.ins, nil
}

func errno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// filters are the filters built in this process, by their options (four
// at most): a filter depends on nothing else, and each is only read.
var filters sync.Map // filterOptions -> []unix.SockFilter

// filterFor returns the filter for o, built once per process.
func filterFor(o filterOptions) ([]unix.SockFilter, error) {
	if f, ok := filters.Load(o); ok {
		return f.([]unix.SockFilter), nil
	}
	prog, err := buildFilter(o)
	if err != nil {
		return nil, err
	}
	f, _ := filters.LoadOrStore(o, prog)
	return f.([]unix.SockFilter), nil
}

// buildFilter assembles the filter described above.
func buildFilter(o filterOptions) ([]unix.SockFilter, error) {
	if seccompArch == 0 {
		return nil, errors.New("seccomp: no filter for " + runtime.GOARCH)
	}
	b := &bpf{labels: map[string]int{}}
	const (
		allow   = "allow"
		eacces  = "eacces"
		eperm   = "eperm"
		enosys  = "enosys"
		noAF    = "eafnosupport"
		sock    = "socket"
		pair    = "socketpair"
		ioctl   = "ioctl"
		inet    = "inet"
		pairUnx = "pair-unix"
	)
	b.load(offArch)
	b.jeq(seccompArch, "", enosys)
	b.load(offNr)
	if runtime.GOARCH == "amd64" {
		b.jge(x32SyscallBit, enosys, "")
	}
	b.jeq(unix.SYS_SOCKET, sock, "")
	b.jeq(unix.SYS_SOCKETPAIR, pair, "")
	b.jeq(unix.SYS_IOCTL, ioctl, "")
	for _, nr := range []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL} {
		b.jeq(nr, enosys, "")
	}
	for _, nr := range ipcSyscalls {
		b.jeq(nr, eperm, "")
	}
	if o.DenyTruncate {
		b.jeq(unix.SYS_TRUNCATE, eacces, "")
	}
	b.ret(unix.SECCOMP_RET_ALLOW)

	b.label(sock)
	b.load(offArg(0))
	b.jeq(unix.AF_UNIX, eacces, "")
	b.jeq(unix.AF_INET, inet, "")
	b.jeq(unix.AF_INET6, inet, "")
	b.jeq(unix.AF_NETLINK, allow, noAF)
	b.label(inet)
	if o.DenyInet {
		b.ret(errno(unix.EACCES))
	} else {
		b.ret(unix.SECCOMP_RET_ALLOW)
	}

	b.label(pair)
	b.load(offArg(0))
	b.jeq(unix.AF_UNIX, pairUnx, noAF)
	b.label(pairUnx)
	b.load(offArg(1))
	b.and(0xf) // SOCK_TYPE_MASK: drop SOCK_NONBLOCK and SOCK_CLOEXEC
	b.jeq(unix.SOCK_STREAM, allow, "")
	b.jeq(unix.SOCK_SEQPACKET, allow, eacces)

	b.label(ioctl)
	b.load(offArg(1)) // the request is an unsigned int: the low word
	b.jeq(unix.TIOCSTI, eperm, "")
	b.jeq(unix.TIOCLINUX, eperm, allow)

	b.label(allow)
	b.ret(unix.SECCOMP_RET_ALLOW)
	b.label(eacces)
	b.ret(errno(unix.EACCES))
	b.label(eperm)
	b.ret(errno(unix.EPERM))
	b.label(enosys)
	b.ret(errno(unix.ENOSYS))
	b.label(noAF)
	b.ret(errno(unix.EAFNOSUPPORT))
	return b.assemble()
}

// installFilter installs the filter on the calling thread only (no TSYNC):
// the caller is a locked thread that starts the program. no_new_privs must
// be set already.
func installFilter(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}

// seccompAvailable reports whether the kernel takes filters that return
// an errno (SECCOMP_GET_ACTION_AVAIL, Linux 4.14).
var seccompAvailable = sync.OnceValue(func() bool {
	if seccompArch == 0 {
		return false
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	return e == 0
})
