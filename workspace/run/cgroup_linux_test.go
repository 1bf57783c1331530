//go:build linux

package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The cgroup code is tested on a fake cgroup2 layout (folders with the
// kernel's file names in a temporary folder): the machines this runs on
// may delegate no memory controller. TestMemoryBoundHere says which bound
// this machine's runs get.

// fakeCgroups makes the cgroups at rels beneath mount, each with
// cgroup.procs and cgroup.subtree_control holding control[rel].
func fakeCgroups(t *testing.T, mount string, control map[string]string) {
	t.Helper()
	for rel, ctl := range control {
		dir := filepath.Join(mount, rel)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range map[string]string{"cgroup.subtree_control": ctl, "cgroup.procs": "", "cgroup.controllers": "cpu io memory pids\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestDelegatedMemoryCgroup(t *testing.T) {
	tmp := t.TempDir()
	mount := filepath.Join(tmp, "cgroup v2") // a space, escaped in mountinfo
	escaped := strings.ReplaceAll(mount, " ", `\040`)
	fakeCgroups(t, mount, map[string]string{
		".":                                      "cpu io memory pids\n",
		"user.slice":                             "cpu memory pids\n",
		"user.slice/user@1000.service":           "cpu memory pids\n",
		"user.slice/user@1000.service/app.slice": "\n",
		"user.slice/user@1000.service/app.slice/admit.scope": "\n",
		"system.slice":    "pids\n",
		"system.slice/a":  "\n",
		"container":       "memory\n",
		"container/inner": "\n",
	})
	procs := "22 1 0:21 / /proc rw - proc proc rw\n"
	v2 := procs + "30 22 0:26 / " + escaped + " rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	for _, c := range []struct {
		name, mountinfo, self, want string
	}{
		{"the nearest delegating cgroup above", v2, "0::/user.slice/user@1000.service/app.slice/admit.scope\n", filepath.Join(mount, "user.slice/user@1000.service")},
		{"none hands memory down", v2, "0::/system.slice/a\n", mount},
		{"no cgroup2 mount", procs, "0::/user.slice\n", ""},
		{"cgroup v1 only", v2, "4:memory:/user.slice\n1:cpu:/\n", ""},
		{"a mount of a subtree (a container's)", procs + "31 22 0:26 /container " + escaped + "/container rw - cgroup2 cgroup2 rw\n", "0::/container/inner\n", filepath.Join(mount, "container")},
		{"a cgroup outside the mount", procs + "31 22 0:26 /container " + escaped + "/container rw - cgroup2 cgroup2 rw\n", "0::/system.slice/a\n", ""},
		{"a relative path", v2, "0::user.slice\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, why := delegatedMemoryCgroup([]byte(c.mountinfo), []byte(c.self))
			if got != c.want {
				t.Errorf("delegatedMemoryCgroup = %q (%s), want %q", got, why, c.want)
			}
			if got == "" && why == "" {
				t.Error("no cgroup and no reason")
			}
		})
	}
	// The root of the mount hands memory down in the layout above; with
	// it taken away, a cgroup under system.slice finds none.
	if err := os.WriteFile(filepath.Join(mount, "cgroup.subtree_control"), []byte("cpu pids\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := delegatedMemoryCgroup([]byte(v2), []byte("0::/system.slice/a\n")); got != "" {
		t.Errorf("found %q where no cgroup hands memory down", got)
	}
	if os.Geteuid() != 0 {
		// A cgroup this user may not move processes into is not delegated.
		if err := os.Chmod(filepath.Join(mount, "user.slice/user@1000.service/cgroup.procs"), 0o444); err != nil {
			t.Fatal(err)
		}
		got, _ := delegatedMemoryCgroup([]byte(v2), []byte("0::/user.slice/user@1000.service/app.slice/admit.scope\n"))
		if want := filepath.Join(mount, "user.slice"); got != want {
			t.Errorf("with user@1000.service's cgroup.procs read-only: %q, want %q", got, want)
		}
	}
}

// TestRunCgroupBound: a program's cgroup gets memory.max in bytes and no
// swap; a cgroup without memory.max (the controller off) is not used and
// not left behind; the end reads the OOM kills and empties the cgroup.
func TestRunCgroupBound(t *testing.T) {
	parent := t.TempDir()
	fakeCgroups(t, parent, map[string]string{".": "memory\n"})
	if c, err := newRunCgroup(parent, 256); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cgroup without memory.max was used: %+v, %v", c, err)
	}
	if left, _ := filepath.Glob(filepath.Join(parent, "admit-run-*")); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}

	// As the kernel makes a child: its interface files come with it.
	dir := filepath.Join(parent, "admit-run-1")
	files := map[string]string{
		"memory.max": "max\n", "memory.swap.max": "max\n", "cgroup.procs": "", "cgroup.kill": "",
		"memory.events": "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n",
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := &runCgroup{dir: dir, fd: -1}
	if err := c.bound(256); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"memory.max": "268435456", "memory.swap.max": "0"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	// Without swap accounting there is no memory.swap.max: the bound is
	// memory.max alone.
	os.Remove(filepath.Join(dir, "memory.swap.max"))
	if err := c.bound(64); err != nil {
		t.Fatalf("without memory.swap.max: %v", err)
	}
	oom, err := c.end()
	if !oom {
		t.Error("memory.events' oom_kill 1 was not reported")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cgroup.kill")); string(b) != "1" {
		t.Errorf("cgroup.kill = %q, want 1: what was left in the cgroup was not ended", b)
	}
	// A real cgroup's folder is removed with its files; the fake's is not.
	if !errors.Is(err, unix.ENOTEMPTY) {
		t.Errorf("end: %v, want the fake's ENOTEMPTY", err)
	}
	os.WriteFile(filepath.Join(dir, "memory.events"), []byte("oom 0\noom_kill 0\n"), 0o644)
	if c.oomKilled() {
		t.Error("oom_kill 0 reported as a kill")
	}
}

func TestKernelVersion(t *testing.T) {
	for release, want := range map[string][2]int{"6.18.44-fc-v1045": {6, 18}, "5.7.0": {5, 7}, "5.15rc1": {5, 15}, "4.19.0-21-amd64": {4, 19}} {
		major, minor, ok := kernelVersion(release)
		if !ok || major != want[0] || minor != want[1] {
			t.Errorf("kernelVersion(%q) = %d.%d %v, want %d.%d", release, major, minor, ok, want[0], want[1])
		}
	}
	if _, _, ok := kernelVersion("linux"); ok {
		t.Error(`kernelVersion("linux") read a version`)
	}
}

// TestMemoryBoundHere says which memory bound this machine's runs get.
func TestMemoryBoundHere(t *testing.T) {
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	self, _ := os.ReadFile("/proc/self/cgroup")
	dir, why := delegatedMemoryCgroup(mountinfo, self)
	if dir != memoryCgroupParent() && cloneIntoCgroup() {
		t.Errorf("memoryCgroupParent() = %q, the layout says %q", memoryCgroupParent(), dir)
	}
	want := map[bool]string{true: "cgroup", false: "rlimit-data"}[memoryCgroupParent() != ""]
	if m := Probe(); m.MemoryBound != want || (want == "rlimit-data") != (m.MemoryBoundNote != "") {
		t.Errorf("Probe says memory bound %q (%s), want %q", m.MemoryBound, m.MemoryBoundNote, want)
	}
	if dir == "" {
		t.Logf("RLIMIT_DATA here: %s", why)
	} else {
		t.Logf("cgroup v2 memory.max here, beneath %s", dir)
	}
}
