//go:build linux

package run

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The memory bound counts memory, not address space: runtimes that
// reserve far more address space than they use (Go, V8, the JVM) start
// every time under the default bound, and a program that really
// allocates past it is stopped.

// defaultMemoryMB is ADMIT_MAX_MEMORY_MB's default (policy/bounds.go).
const defaultMemoryMB = 1024

// runtimeStarts is how many times each runtime is started: an
// address-space limit made Go fail about half of its starts.
const runtimeStarts = 50

// systemPython is the system's interpreter: one under the person's home
// (pyenv's) is not among the folders a confined run may read.
func systemPython(t *testing.T) string {
	t.Helper()
	for _, dir := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
		p := filepath.Join(dir, "python3")
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	t.Skip("no system python3 here")
	return ""
}

func TestRuntimesStartUnderMemoryBound(t *testing.T) {
	for _, tc := range []struct{ tool, line string }{
		{"go", "go version"},
		{"node", "node -e 0"},
		{"python3", "python3 -c 0"},
		{"java", "java -version"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			tool := tc.tool
			if tool == "python3" {
				tool = systemPython(t)
			}
			e, _ := toolchainEnv(t, tool)
			for i := range runtimeStarts {
				s := e.toolchainSpec(tc.line)
				s.MaxMemoryMB = defaultMemoryMB
				r := Run(context.Background(), s)
				if r.Err != nil || r.ExitCode != 0 {
					t.Fatalf("start %d of %d: %s exit %d err %v stderr %.300q", i+1, runtimeStarts, tc.line, r.ExitCode, r.Err, r.Stderr)
				}
				if !r.Confiner {
					t.Fatalf("%s did not start in the confiner: %+v", tc.line, r)
				}
			}
		})
	}
}

func TestAllocationPastMemoryBoundStopped(t *testing.T) {
	e, _ := toolchainEnv(t, systemPython(t))
	// 2 GiB asked, 256 MiB granted: the allocation fails inside the
	// program, which ends with its own report; nothing past it runs.
	s := e.toolchainSpec(`python3 -c 'b = bytearray(2 << 30); print("allocated")'`)
	s.MaxMemoryMB = 256
	r := Run(context.Background(), s)
	// Under RLIMIT_DATA the allocation fails inside the program; under a
	// cgroup's memory.max the kernel ends it, and the result says so.
	cgroup := Probe().MemoryBound == "cgroup"
	stopped := strings.Contains(r.Stderr, "MemoryError")
	if cgroup {
		stopped = r.OutOfMemory && r.Signal == "SIGKILL"
	}
	if r.Err != nil || r.ExitCode == 0 || strings.Contains(r.Stdout, "allocated") || !stopped {
		t.Fatalf("an allocation past the bound was not stopped (memory bound %s): %+v", Probe().MemoryBound, r)
	}
	// The same program within the bound runs: the bound is what stopped it.
	s = e.toolchainSpec(`python3 -c 'b = bytearray(64 << 20); print("allocated")'`)
	s.MaxMemoryMB = 256
	if r := Run(context.Background(), s); r.Err != nil || r.ExitCode != 0 || !strings.Contains(r.Stdout, "allocated") {
		t.Fatalf("an allocation within the bound failed: %+v", r)
	}
	if cgroup {
		// A program cannot raise its cgroup's bound: /sys is read-only to
		// it (Landlock, and the confiner's mounts).
		// Exit 3: it did not find its cgroup's file, so nothing was tried.
		s = e.toolchainSpec(`python3 -c 'import glob, sys; p = glob.glob("/sys/fs/cgroup/**/admit-run-*/memory.max", recursive=True); sys.exit(3) if not p else open(p[0], "w").write("max")'`)
		s.MaxMemoryMB = 256
		if r := Run(context.Background(), s); r.ExitCode == 0 || r.ExitCode == 3 {
			t.Fatalf("a program raised its cgroup's memory bound, or found no memory.max to try: %+v", r)
		}
		return
	}
	// A program that raises its own bound gains nothing: the hard limit
	// is the bound.
	s = e.toolchainSpec(`python3 -c 'import resource; resource.setrlimit(resource.RLIMIT_DATA, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))'`)
	s.MaxMemoryMB = 256
	if r := Run(context.Background(), s); r.ExitCode == 0 {
		t.Fatalf("a program raised its memory bound: %+v", r)
	}
}
