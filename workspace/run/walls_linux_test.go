package run

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProbeMatchesThisKernel: Probe reports this kernel and what it
// gives; the tests in confine_test.go try each wall it reports.
func TestProbeMatchesThisKernel(t *testing.T) {
	m := Probe()
	var u unix.Utsname
	unix.Uname(&u)
	if m.Kernel != unix.ByteSliceToString(u.Release[:]) || m.LandlockABI != detectABI() || m.Seccomp != seccompAvailable() {
		t.Fatalf("probe %+v", m)
	}
	// Linux's probe, not another system's: Landlock is the sandbox
	// wherever the kernel has it, and says why not where it has not.
	if want := map[bool]string{true: SandboxLandlock, false: SandboxNone}[m.LandlockABI > 0]; m.OS != "linux" || m.Sandbox != want || (m.Sandbox == SandboxNone) != (m.SandboxNote != "") {
		t.Fatalf("probe says %s/%s (%q) with Landlock ABI %d", m.OS, m.Sandbox, m.SandboxNote, m.LandlockABI)
	}
	if kind, abi := Confinement(); kind != m.Sandbox || abi != m.LandlockABI {
		t.Fatalf("Confinement() = %s %d, the probe %s %d", kind, abi, m.Sandbox, m.LandlockABI)
	}
	t.Logf("kernel %s: %s", m.Kernel, strings.Join(m.Layers(), "; "))
	if m.LandlockABI >= 6 && m.Seccomp && m.Namespaces && (len(m.MissingCode) > 0 || len(m.MissingJudged) > 0) {
		t.Fatalf("a full machine misses walls: %+v", m)
	}
	if len(m.Code) < len(m.Judged) {
		t.Fatalf("a run of code has fewer walls than a judged command: %+v", m)
	}
}
