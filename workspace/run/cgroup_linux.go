package run

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Where the machine delegates cgroup v2's memory controller to this user,
// each program's memory bound is a cgroup of its own with memory.max (and
// memory.swap.max 0): the kernel counts what the program and its children
// really use, page cache included, and ends them (the OOM killer) past
// it. The program starts inside it (clone3's CLONE_INTO_CGROUP), so its
// first instruction is bounded, and when it ends the cgroup is emptied
// (cgroup.kill) and removed. Elsewhere the bound is RLIMIT_DATA
// (confine_linux.go).
//
// Delegated means: the nearest cgroup at or above admit's own (within the
// cgroup2 mount) whose cgroup.subtree_control holds "memory", and which
// this user may make cgroups in and move processes into (its folder and
// cgroup.procs writable: moving a process needs the common ancestor's).
// A cgroup with processes of its own cannot hand the controller down, so
// that is a cgroup set up for it (systemd's Delegate=, a container's
// prepared subtree), never one admit rearranges.

// memoryCgroupParent is where this process makes its programs' cgroups,
// or "" where none is delegated (memoryCgroup: found once per process).
func memoryCgroupParent() string { dir, _ := memoryCgroup(); return dir }

// memoryCgroupNote says why no cgroup is delegated ("" when one is).
func memoryCgroupNote() string { _, why := memoryCgroup(); return why }

var memoryCgroup = sync.OnceValues(func() (string, string) {
	if !cloneIntoCgroup() {
		return "", "this kernel has no CLONE_INTO_CGROUP (Linux 5.7)"
	}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err.Error()
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err.Error()
	}
	return delegatedMemoryCgroup(mountinfo, self)
})

// cloneIntoCgroup reports a kernel with CLONE_INTO_CGROUP (Linux 5.7).
func cloneIntoCgroup() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	major, minor, ok := kernelVersion(unix.ByteSliceToString(u.Release[:]))
	return ok && (major > 5 || major == 5 && minor >= 7)
}

// kernelVersion reads "6.18.44-generic" as 6, 18.
func kernelVersion(release string) (major, minor int, ok bool) {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	digits := parts[1]
	if i := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		digits = digits[:i]
	}
	minor, err2 := strconv.Atoi(digits)
	return major, minor, err1 == nil && err2 == nil
}

// delegatedMemoryCgroup finds the delegated cgroup from the text of
// /proc/self/mountinfo and /proc/self/cgroup: the folder, or "" and why
// there is none.
func delegatedMemoryCgroup(mountinfo, selfCgroup []byte) (string, string) {
	mount, mountRoot := cgroup2Mount(mountinfo)
	if mount == "" {
		return "", "no cgroup2 file system is mounted"
	}
	var path string
	found := false
	for _, line := range strings.Split(string(selfCgroup), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path, found = p, true
			break
		}
	}
	if !found || !filepath.IsAbs(path) {
		return "", "this process has no cgroup v2 path"
	}
	rel, err := filepath.Rel(mountRoot, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", "this process's cgroup " + path + " is outside the cgroup2 mount"
	}
	for dir := filepath.Join(mount, rel); within(dir, []string{mount}); dir = filepath.Dir(dir) {
		if hasMemoryDelegated(dir) {
			return dir, ""
		}
		if dir == mount {
			break
		}
	}
	return "", "no cgroup at or above " + path + " hands the memory controller to this user"
}

// cgroup2Mount is the mount point of the cgroup2 file system and the
// cgroup it shows as its root, from /proc/self/mountinfo.
func cgroup2Mount(mountinfo []byte) (mount, root string) {
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f, fs := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(fs) < 1 || fs[0] != "cgroup2" {
			continue
		}
		return unescapeMount(f[4]), unescapeMount(f[3])
	}
	return "", ""
}

// hasMemoryDelegated reports a cgroup that hands the memory controller to
// its children, which this user may make and move processes into.
func hasMemoryDelegated(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return false
	}
	hasMemory := false
	for _, c := range strings.Fields(string(b)) {
		hasMemory = hasMemory || c == "memory"
	}
	return hasMemory && unix.Access(dir, unix.W_OK|unix.X_OK) == nil &&
		unix.Access(filepath.Join(dir, "cgroup.procs"), unix.W_OK) == nil
}

// runCgroup is one program's cgroup.
type runCgroup struct {
	dir string
	fd  int // the folder, for CLONE_INTO_CGROUP
}

// newRunCgroup makes a cgroup beneath parent bounded to mb MiB.
func newRunCgroup(parent string, mb int) (*runCgroup, error) {
	dir, err := os.MkdirTemp(parent, "admit-run-")
	if err != nil {
		return nil, fmt.Errorf("make a cgroup in %s: %w", parent, err)
	}
	c := &runCgroup{dir: dir, fd: -1}
	if err := c.bound(mb); err != nil {
		c.remove()
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		c.remove()
		return nil, fmt.Errorf("open the cgroup %s: %w", dir, err)
	}
	c.fd = fd
	return c, nil
}

// bound writes the memory bound into the cgroup's files, which the kernel
// made with it: memory.max must be there (the controller is on), and
// swap, where the kernel counts it, is closed so the bound cannot be
// passed by swapping.
func (c *runCgroup) bound(mb int) error {
	if err := writeCgroup(c.dir, "memory.max", strconv.FormatUint(uint64(mb)<<20, 10)); err != nil {
		return err
	}
	if err := writeCgroup(c.dir, "memory.swap.max", "0"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// writeCgroup writes one of a cgroup's files, which must exist.
func writeCgroup(dir, name, value string) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("cgroup %s: %w", name, err)
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cgroup %s: %w", name, err)
	}
	return nil
}

// oomKilled reports whether the kernel ended a process of the cgroup at
// its bound (memory.events' oom_kill).
func (c *runCgroup) oomKilled() bool {
	b, err := os.ReadFile(filepath.Join(c.dir, "memory.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if n, ok := strings.CutPrefix(line, "oom_kill "); ok {
			return strings.TrimSpace(n) != "0"
		}
	}
	return false
}

// end ends every process left in the cgroup (cgroup.kill, Linux 5.14;
// the program's group was ended already) and removes it; it says whether
// the bound stopped a process.
func (c *runCgroup) end() (oom bool, err error) {
	oom = c.oomKilled()
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
	_ = writeCgroup(c.dir, "cgroup.kill", "1")
	return oom, c.remove()
}

// remove removes the cgroup folder; a cgroup whose last process is still
// being reaped is busy for a moment, so it is tried a few times.
func (c *runCgroup) remove() error {
	var err error
	for range 100 {
		if err = unix.Rmdir(c.dir); err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		unix.Nanosleep(&unix.Timespec{Nsec: 1_000_000}, nil)
	}
	return fmt.Errorf("remove the cgroup %s: %w", c.dir, err)
}
