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
	t.Logf("kernel %s: %s", m.Kernel, strings.Join(m.Layers(), "; "))
	if m.LandlockABI >= 6 && m.Seccomp && m.Namespaces && (len(m.MissingCode) > 0 || len(m.MissingJudged) > 0) {
		t.Fatalf("a full machine misses walls: %+v", m)
	}
	if len(m.Code) < len(m.Judged) {
		t.Fatalf("a run of code has fewer walls than a judged command: %+v", m)
	}
}
