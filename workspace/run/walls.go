package run

import (
	"errors"
	"fmt"
	"strings"
)

// The walls of a confined run. Each is one thing a confined program
// cannot do, and each is given by some layer of the system (on Linux
// Landlock, seccomp, a namespace; on macOS the sandbox, Seatbelt) or is
// missing on this machine (every wall, on Windows).
const (
	// WallFSRead: no read outside the workspace, the system's program and
	// library folders, the pieces of /etc programs need, the toolchains'
	// installs and caches and the run's private temporary folder.
	WallFSRead = "fs-read"
	// WallFSWrite: no write outside what the run may write (the admitted
	// targets, or for a program that runs code the workspace, the private
	// temporary folder and the caches).
	WallFSWrite = "fs-write"
	// WallFSMetadata: no change of mode, owner, times or extended
	// attributes outside what the run may write. Landlock does not govern
	// these; only read-only mounts do.
	WallFSMetadata = "fs-metadata"
	// WallProtected: the workspace's protected paths (.git, .vscode,
	// .admit, ...) stay as they are under a run of code.
	WallProtected = "protected-paths"
	// WallHardLinks: a hard-linked file in the workspace (another link may
	// be outside) is not written by a run of code.
	WallHardLinks = "hard-links"
	WallNetTCP    = "net-tcp" // no TCP connect or listen, IPv4 or IPv6, loopback included
	WallNetUDP    = "net-udp" // no UDP send or bind, IPv4 or IPv6, loopback included
	// WallUnixSockets: no unix socket connected to, pathname or abstract
	// (admit's own socket included).
	WallUnixSockets = "unix-sockets"
	WallSignals     = "signals" // no signal to a process outside the run
	WallPtrace      = "ptrace"  // no ptrace, /proc/PID/mem or environ of a process outside the run
	// WallIPC: no SysV shared memory, queue or semaphore, no keyring.
	WallIPC = "ipc"
	// WallHidden: the secret files the gate hid (Spec.Hidden) read as
	// empty and cannot be written. Listed only for a run that hides one.
	WallHidden = "hidden-files"
)

// Layer names, as Wall.By joins them.
const (
	ByLandlock  = "landlock"
	BySeccomp   = "seccomp"
	ByMountNS   = "mount-namespace"
	ByPIDNS     = "pid-namespace"
	ByNetworkNS = "network-namespace"
	BySeatbelt  = "seatbelt" // macOS's sandbox (sandbox-exec), for every wall it gives
)

// Sandbox names, as Machine.Sandbox and Result.Confinement say them.
const (
	SandboxLandlock = "landlock"
	SandboxSeatbelt = "seatbelt"
	SandboxNone     = "none"
)

// Wall is one wall of a run and what gives it.
type Wall struct {
	Name string `json:"name"`
	// By names the layers that give it, joined by "+" (e.g.
	// "seccomp+landlock"); empty when the wall is not in force.
	By string `json:"by,omitempty"`
	// Open is set for a wall the run's rule opens (the network, when the
	// spec allows it): not in force, and not missing either.
	Open bool `json:"open,omitempty"`
}

// InForce reports whether the wall stands.
func (w Wall) InForce() bool { return w.By != "" }

func (w Wall) String() string {
	switch {
	case w.Open:
		return w.Name + ": open"
	case w.By == "":
		return w.Name + ": missing"
	}
	return w.Name + ": " + w.By
}

// ErrConfinement marks a run refused because the machine cannot give a
// wall it needs; it also matches ErrRefused (nothing ran).
var ErrConfinement = errors.New("run: confinement unavailable")

// ConfinementError names the walls a run needed and this machine cannot
// give. Spec.AcceptWeaker runs it anyway.
type ConfinementError struct {
	Missing []string
	Machine string // what the machine has, for the message
}

func (e *ConfinementError) Error() string {
	return fmt.Sprintf("refused: this machine cannot confine the run: %s missing (%s); the person's acceptWeaker setting runs it without them",
		strings.Join(e.Missing, ", "), e.Machine)
}

func (e *ConfinementError) Is(target error) bool {
	return target == ErrConfinement || target == ErrRefused
}

// layout is how one run is confined: which path starts its programs and
// what the kernel gives it.
type layout struct {
	abi      int
	seccomp  bool
	confiner bool // programs start in the confiner: mount, pid (and network) namespaces
	netns    bool // the confiner gives the run a private network namespace
	code     bool
	network  bool
}

// walls lists the walls of a run laid out as l, and the names of those it
// needs and does not have. A judged command needs every wall but
// fs-metadata, protected-paths and hard-links (its writes were judged
// path by path); a program that runs code needs them all.
func (l layout) walls() (walls []Wall, missing []string) {
	join := func(parts ...string) string {
		var out []string
		for _, p := range parts {
			if p != "" {
				out = append(out, p)
			}
		}
		return strings.Join(out, "+")
	}
	when := func(ok bool, s string) string {
		if ok {
			return s
		}
		return ""
	}
	ll := l.abi >= 1
	add := func(name string, needed bool, by string) {
		w := Wall{Name: name, By: by}
		walls = append(walls, w)
		if needed && by == "" {
			missing = append(missing, name)
		}
	}
	net := func(name string, llABI int) {
		if l.network {
			walls = append(walls, Wall{Name: name, Open: true})
			return
		}
		by := ""
		switch {
		case l.netns:
			by = ByNetworkNS
		case l.seccomp:
			by = join(BySeccomp, when(l.abi >= llABI, ByLandlock))
		case l.abi >= llABI:
			by = ByLandlock
		}
		add(name, true, by)
	}

	add(WallFSRead, true, when(ll, ByLandlock))
	add(WallFSWrite, true, when(ll && (l.abi >= 3 || l.seccomp),
		join(ByLandlock, when(l.abi < 3, BySeccomp), when(l.confiner, ByMountNS))))
	add(WallFSMetadata, l.code, when(l.confiner, ByMountNS))
	if l.code {
		add(WallProtected, true, join(when(l.confiner, ByMountNS), when(!l.confiner && ll, ByLandlock)))
		add(WallHardLinks, true, when(ll, join(ByLandlock, when(l.confiner, ByMountNS))))
	}
	net(WallNetTCP, 4)
	net(WallNetUDP, 10)
	// Landlock alone closes pathname sockets from ABI 9 (and abstract ones
	// from ABI 6); seccomp closes both on any ABI.
	add(WallUnixSockets, true, join(when(l.seccomp, BySeccomp), when(l.abi >= 9, ByLandlock)))
	add(WallSignals, true, join(when(l.abi >= 6, ByLandlock), when(l.confiner, ByPIDNS)))
	add(WallPtrace, true, join(when(ll, ByLandlock), when(l.confiner, ByPIDNS)))
	add(WallIPC, true, when(l.seccomp, BySeccomp))
	return walls, missing
}

// Machine is what this system and process give a confined run, for
// admit/state.
type Machine struct {
	// OS is the system admit runs on (GOOS: linux, darwin, windows).
	OS string `json:"os"`
	// Sandbox is the layer runs are confined by here: landlock (with
	// seccomp and namespaces, Linux), seatbelt (macOS), or none (Windows,
	// a Linux kernel without Landlock, a macOS where sandbox-exec does not
	// work); SandboxNote says why it is none.
	Sandbox     string `json:"sandbox"`
	SandboxNote string `json:"sandboxNote,omitempty"`
	Kernel      string `json:"kernel"`
	LandlockABI int    `json:"landlockAbi"`
	Seccomp     bool   `json:"seccomp"`
	// Namespaces is set when the confiner can make its mount, pid and
	// network namespaces (as root, or in a user namespace);
	// NamespacesNote says why not otherwise.
	Namespaces     bool   `json:"namespaces"`
	NamespacesNote string `json:"namespacesNote,omitempty"`
	// Judged and Code are the walls a run of a judged command and of a
	// program that runs code get here (network closed); Missing* name
	// the walls such a run needs and cannot have, which refuse it unless
	// the person accepts weaker confinement.
	Judged        []Wall   `json:"judged"`
	Code          []Wall   `json:"code"`
	MissingJudged []string `json:"missingJudged,omitempty"`
	MissingCode   []string `json:"missingCode,omitempty"`
	// MemoryBound is what bounds a program's memory here (Linux: "cgroup"
	// where the memory controller is delegated, else "rlimit-data";
	// Windows: "job"; macOS: "" none), MemoryBoundNote why no cgroup.
	MemoryBound     string `json:"memoryBound,omitempty"`
	MemoryBoundNote string `json:"memoryBoundNote,omitempty"`
}

// Layers lists the code run's walls as "name: by" strings, after the
// sandbox.
func (m Machine) Layers() []string {
	out := []string{m.Sandbox}
	if m.Sandbox == SandboxLandlock {
		out[0] = fmt.Sprintf("landlock ABI %d", m.LandlockABI)
	}
	for _, w := range m.Code {
		out = append(out, w.String())
	}
	return out
}

// Summary names the layers that confine a run here, in a few words:
// "landlock (ABI 7), seccomp, namespaces", "seatbelt", "none".
func (m Machine) Summary() string {
	switch m.Sandbox {
	case SandboxLandlock:
		s := fmt.Sprintf("landlock (ABI %d)", m.LandlockABI)
		if m.Seccomp {
			s += ", seccomp"
		}
		if m.Namespaces {
			s += ", namespaces"
		}
		return s
	case "":
		return SandboxNone
	}
	return m.Sandbox
}

// Probe reports what this machine gives a confined run (probe:
// walls_linux.go, walls_darwin.go, walls_windows.go). The first call may
// start a program once to see what works here (the confiner on Linux,
// sandbox-exec on macOS: a few milliseconds); later calls are free.
func Probe() Machine { return probe() }

// HidesFiles reports whether a run here can hide files (Spec.Hidden):
// the confiner's mount namespace on Linux, the sandbox on macOS.
func (m Machine) HidesFiles() bool {
	return m.OS == "linux" && m.Namespaces || m.OS == "darwin" && m.Sandbox == BySeatbelt
}

// uniformWalls lists the walls of a run where one layer, by, gives every
// one of them (Seatbelt), or none does (by ""), and the names of those
// it needs and does not have. The walls and which kind of run needs
// which are as layout.walls says; an open network (the spec's) is open,
// not missing.
func uniformWalls(code, network bool, by string) (walls []Wall, missing []string) {
	add := func(name string, needed bool) {
		walls = append(walls, Wall{Name: name, By: by})
		if needed && by == "" {
			missing = append(missing, name)
		}
	}
	add(WallFSRead, true)
	add(WallFSWrite, true)
	add(WallFSMetadata, code)
	if code {
		add(WallProtected, true)
		add(WallHardLinks, true)
	}
	for _, name := range []string{WallNetTCP, WallNetUDP} {
		if network {
			walls = append(walls, Wall{Name: name, Open: true})
		} else {
			add(name, true)
		}
	}
	add(WallUnixSockets, true)
	add(WallSignals, true)
	add(WallPtrace, true)
	add(WallIPC, true)
	return walls, missing
}

// weaken marks the wall name as no longer given (a cap reached), adding
// it to missing when the run needs it.
func weaken(walls []Wall, missing []string, name string) []string {
	for i := range walls {
		if walls[i].Name == name && walls[i].By != "" {
			walls[i].By = ""
			return append(missing, name)
		}
	}
	return missing
}

// fmtVersion is a system's version as "10.0.22631".
func fmtVersion(major, minor, build uint32) string {
	return fmt.Sprintf("%d.%d.%d", major, minor, build)
}
