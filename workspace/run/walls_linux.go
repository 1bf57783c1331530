package run

import (
	"sync"

	"golang.org/x/sys/unix"
)

var probe = sync.OnceValue(func() Machine {
	var u unix.Utsname
	_ = unix.Uname(&u)
	m := Machine{OS: "linux", Kernel: unix.ByteSliceToString(u.Release[:]), LandlockABI: detectABI(), Seccomp: seccompAvailable()}
	m.Sandbox = SandboxLandlock
	if m.LandlockABI == 0 {
		m.Sandbox, m.SandboxNote = SandboxNone, "this kernel has no Landlock (Linux 5.13 or later, with landlock in the lsm= list)"
	}
	m.Namespaces, m.NamespacesNote = namespacesAvailable()
	judged := layoutFor(false, false)
	code := layoutFor(true, false)
	m.Judged, m.MissingJudged = judged.walls()
	m.Code, m.MissingCode = code.walls()
	m.MemoryBound, m.MemoryBoundNote = "cgroup", ""
	if memoryCgroupParent() == "" {
		m.MemoryBound, m.MemoryBoundNote = "rlimit-data", memoryCgroupNote()
	}
	return m
})

// withoutNamespaces makes runs start from admit's own thread as on a
// machine without namespaces, for tests of that layout.
var withoutNamespaces = false

// layoutFor chooses how a run is confined on this machine. A program that
// runs code starts in the confiner where namespaces work (read-only
// mounts keep the protected paths and everything outside as they are); a
// judged command starts from a restricted thread of admit itself, unless
// Landlock cannot scope signals (ABI < 6), when the confiner's pid
// namespace does.
func layoutFor(code, network bool) layout {
	l := layout{abi: detectABI(), seccomp: seccompAvailable(), code: code, network: network}
	if (code || l.abi < 6) && !withoutNamespaces {
		if ok, _ := namespacesAvailable(); ok {
			l.confiner = true
			l.netns = !network
		}
	}
	return l
}
