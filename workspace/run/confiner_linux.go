package run

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The confiner is the admit binary started again under a name of its own
// (confinerArg0), in new mount, pid and (unless the network is open to
// the run) network namespaces, inside a user namespace when admit is not
// root. It closes what Landlock cannot:
//
//   - the mount namespace makes every mount read-only except what the run
//     may write (bound back read-write, without devices or set-uid), then
//     binds the protected paths read-only over that: no write, chmod,
//     chown, utime or xattr outside, .git/hooks included, while the
//     workspace root itself stays free to gain entries;
//   - the pid namespace makes the confiner the init of the run: no process
//     of the run sees or signals one outside it (even on Landlock ABI < 6),
//     and when the confiner ends, the kernel kills every process left in
//     the namespace, one that left its process group included;
//   - the network namespace has only its own loopback: a test may listen
//     on and dial 127.0.0.1 inside it, and nothing reaches the machine's
//     network or its loopback. Abstract unix sockets belong to a network
//     namespace, so those of the machine are out of reach too.
//
// It then starts the program as its child from a thread restricted like
// admit's own (no_new_privs, no capabilities, Landlock, seccomp), forwards
// SIGTERM, SIGINT, SIGHUP and SIGQUIT to every process of the run, reaps
// them all, and writes how the program ended to the status pipe.
//
// The role is taken in an init function, so every binary that links this
// package (admit, and the test binaries) can be the confiner without its
// main knowing: a process whose only argument is confinerArg0 and that has
// the spec pipe on descriptor 3 runs the confiner and exits.
const confinerArg0 = "admit-confiner"

// Descriptors of the confiner: the spec it reads and the status it writes.
const (
	confinerSpecFD   = 3
	confinerStatusFD = 4
)

func init() {
	if len(os.Args) == 1 && os.Args[0] == confinerArg0 {
		os.Exit(confinerMain())
	}
}

// confinerSpec is what the confiner is told, as JSON on its spec pipe.
type confinerSpec struct {
	// Probe: set up the namespaces and mounts, check that ReadOnly[0]
	// cannot be written, report, and start nothing.
	Probe bool     `json:"probe,omitempty"`
	Path  string   `json:"path,omitempty"`
	Args  []string `json:"args,omitempty"`
	Env   []string `json:"env,omitempty"`
	Dir   string   `json:"dir,omitempty"`
	MemMB int      `json:"memMb,omitempty"`

	Ruleset *rulesetSpec   `json:"ruleset,omitempty"` // nil: no Landlock (weaker, accepted)
	Seccomp bool           `json:"seccomp,omitempty"`
	Filter  filterOptions  `json:"filter"`
	Mounts  confinerMounts `json:"mounts"`
	NetNS   bool           `json:"netns,omitempty"`
}

// confinerMounts are the mount namespace's changes.
type confinerMounts struct {
	Writable []string `json:"writable,omitempty"` // bound back read-write (nodev, nosuid)
	ReadOnly []string `json:"readOnly,omitempty"` // bound read-only over the writable ones
	Shm      bool     `json:"shm,omitempty"`      // a private tmpfs on /dev/shm
	// Temp is the run's private temporary folder, bound onto TempAt: the
	// program's TMPDIR is the same on every run, so a toolchain's cache
	// keyed on it (go test's, for tests that use t.TempDir) keeps working.
	Temp   string `json:"temp,omitempty"`
	TempAt string `json:"tempAt,omitempty"`
	// Hidden are secret files covered, last, by Empty (an empty regular
	// file of admit's) bound read-only: the run reads them as empty and
	// cannot write, remove or rename them (hideFile).
	Hidden []string `json:"hidden,omitempty"`
	Empty  string   `json:"empty,omitempty"`
}

// confinerStatus is the confiner's report.
type confinerStatus struct {
	Error  string `json:"error,omitempty"`
	Exit   *int   `json:"exit,omitempty"`
	Signal int    `json:"signal,omitempty"`
	Probe  bool   `json:"probe,omitempty"`
}

func confinerMain() int {
	status := os.NewFile(confinerStatusFD, "status")
	report := func(st confinerStatus) {
		b, _ := json.Marshal(st)
		status.Write(append(b, '\n'))
	}
	fail := func(err error) int {
		report(confinerStatus{Error: err.Error()})
		return 1
	}
	// Neither pipe reaches the program.
	unix.CloseOnExec(confinerStatusFD)
	specFile := os.NewFile(confinerSpecFD, "spec")
	var spec confinerSpec
	err := json.NewDecoder(io.LimitReader(specFile, 64<<20)).Decode(&spec)
	specFile.Close()
	if err != nil {
		return fail(fmt.Errorf("confiner: spec: %w", err))
	}
	if err := setupMounts(spec.Mounts); err != nil {
		return fail(fmt.Errorf("confiner: %w", err))
	}
	if spec.NetNS {
		if err := loopbackUp(); err != nil {
			return fail(fmt.Errorf("confiner: loopback: %w", err))
		}
	}
	if spec.Probe {
		if len(spec.Mounts.ReadOnly) == 0 {
			return fail(errors.New("confiner: probe without a folder"))
		}
		err := os.WriteFile(filepath.Join(spec.Mounts.ReadOnly[0], "probe"), nil, 0o600)
		if !errors.Is(err, unix.EROFS) {
			return fail(fmt.Errorf("confiner: a read-only bind was writable (%v)", err))
		}
		report(confinerStatus{Probe: true})
		return 0
	}

	r := &restriction{}
	if spec.Ruleset != nil {
		rs, err := newRuleset(*spec.Ruleset)
		if err != nil {
			return fail(err)
		}
		r.ruleset = rs
	}
	if spec.Seccomp {
		prog, err := buildFilter(spec.Filter)
		if err != nil {
			return fail(err)
		}
		r.filter = prog
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	// The program stays in the confiner's process group (admit signals
	// that group) and needs no parent-death signal: when the confiner
	// ends, the pid namespace ends with it.
	cmd := &exec.Cmd{Path: spec.Path, Args: spec.Args, Env: spec.Env, Dir: spec.Dir,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	r.memMB = spec.MemMB
	done, err := startOnThread(cmd, r)
	if err != nil {
		return fail(err)
	}
	done()
	pid := cmd.Process.Pid
	go func() {
		for s := range sigs {
			// -1 from the namespace's init: every process of the run.
			unix.Kill(-1, s.(syscall.Signal))
		}
	}()
	var st confinerStatus
	for {
		var ws unix.WaitStatus
		wpid, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			break // ECHILD: nothing left
		}
		if wpid == pid {
			if ws.Signaled() {
				st.Signal = int(ws.Signal())
			} else {
				code := ws.ExitStatus()
				st.Exit = &code
			}
			// No process outlives its program.
			unix.Kill(-1, unix.SIGKILL)
		}
	}
	report(st)
	return 0
}

// virtualFS are file systems whose mounts are left as they are: they hold
// no person's files, and several refuse a read-only remount in a user
// namespace.
var virtualFS = map[string]bool{
	"proc": true, "sysfs": true, "cgroup": true, "cgroup2": true, "devpts": true, "mqueue": true,
	"securityfs": true, "debugfs": true, "tracefs": true, "bpf": true, "pstore": true,
	"configfs": true, "fusectl": true, "binfmt_misc": true, "efivarfs": true, "hugetlbfs": true,
	"autofs": true, "nsfs": true, "rpc_pipefs": true, "selinuxfs": true,
}

type mountPoint struct{ path, fstype string }

// mountPoints lists the mounts of this namespace from mountinfo.
func mountPoints() ([]mountPoint, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountPoint
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 5 || sep < 0 || sep+1 >= len(fields) {
			return nil, fmt.Errorf("mountinfo: bad line %q", sc.Text())
		}
		out = append(out, mountPoint{path: unescapeMount(fields[4]), fstype: fields[sep+1]})
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// keptFlags are the mount flags of path that a remount must repeat: in a
// user namespace, a remount that would clear nosuid, nodev, noexec or the
// atime flags of a mount inherited from outside is refused.
func keptFlags(path string) (flags uintptr, readOnly bool, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, false, err
	}
	f := int64(st.Flags)
	pairs := [][2]int64{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	}
	for _, p := range pairs {
		if f&p[0] != 0 {
			flags |= uintptr(p[1])
		}
	}
	return flags, f&unix.ST_RDONLY != 0, nil
}

// bindSelf binds path onto itself (with what is mounted beneath it) and
// remounts the bind with extra flags.
func bindSelf(path string, extra uintptr) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	kept, _, err := keptFlags(path)
	if err != nil {
		return fmt.Errorf("statfs %s: %w", path, err)
	}
	if err := unix.Mount("", path, "", unix.MS_REMOUNT|unix.MS_BIND|kept|extra, ""); err != nil {
		return fmt.Errorf("remount %s: %w", path, err)
	}
	return nil
}

// bindReadOnly keeps path as it is: bound read-only onto itself. A link
// (a protected .vscode -> elsewhere, dangling or not) is bound itself,
// not followed: the link cannot be removed or replaced (the mount is
// busy), and a run starts where it points nowhere. Where it points to a
// file that exists, that file is bound read-only too. What a dangling
// link would name is left to the undo (undo.go).
func bindReadOnly(path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return bindSelf(path, unix.MS_RDONLY)
	}
	if err := bindLink(path); err != nil {
		return err
	}
	if unix.Stat(path, &st) == nil {
		return bindSelf(path, unix.MS_RDONLY)
	}
	return nil
}

// bindLink mounts the link at path onto itself, read-only, without
// following it (open_tree and move_mount, Linux 5.2: mount(2) always
// follows a final link).
func bindLink(path string) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("bind the link %s: %w", path, err)
	}
	defer unix.Close(fd)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return fmt.Errorf("bind the link %s read-only: %w", path, err)
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("bind the link %s: %w", path, err)
	}
	return nil
}

// hideFile binds the empty file over the regular file at path, read-only.
// Both are opened without following a link (the path's folders
// included: RESOLVE_NO_SYMLINKS) and checked on what was opened, and the
// bind is made onto the opened file (move_mount to its descriptor): a
// link or folder swapped in meanwhile is refused, never followed, and
// the bind cannot land elsewhere. A path that does not exist now has
// nothing to hide. Inside the run the mount point cannot be removed or
// renamed (EBUSY), nor the mount undone (no capability).
func hideFile(empty, path string) error {
	fail := func(why string, a ...any) error {
		return fmt.Errorf("could not hide the secret file %s: %s", path, fmt.Sprintf(why, a...))
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fail("%v", err) // ELOOP: a link on its way
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fail("%v", err)
	}
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return fail("it is a symbolic link")
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return fail("it is a folder")
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fail("it is not a regular file")
	case st.Nlink > 1:
		return fail("it is hard-linked (%d links)", st.Nlink)
	}
	if empty == "" {
		return fail("no empty file to bind")
	}
	src, err := unix.OpenTree(unix.AT_FDCWD, empty, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fail("open the empty file: %v", err)
	}
	defer unix.Close(src)
	var es unix.Stat_t
	if err := unix.Fstat(src, &es); err != nil || es.Mode&unix.S_IFMT != unix.S_IFREG || es.Size != 0 {
		return fail("the empty file is not an empty regular file (%v)", err)
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NOEXEC}
	if err := unix.MountSetattr(src, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return fail("make the empty file read-only: %v", err)
	}
	if err := unix.MoveMount(src, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fail("bind the empty file: %v", err)
	}
	return nil
}

// setupMounts makes the confiner's mount namespace: private, everything
// read-only but m.Writable, m.ReadOnly bound read-only over that.
func setupMounts(m confinerMounts) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	points, err := mountPoints()
	if err != nil {
		return err
	}
	for _, w := range m.Writable {
		if err := bindSelf(w, unix.MS_NODEV|unix.MS_NOSUID); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, p := range points {
		if seen[p.path] || within(p.path, m.Writable) || virtualFS[p.fstype] {
			continue
		}
		seen[p.path] = true
		kept, ro, err := keptFlags(p.path)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOTDIR) {
			continue // shadowed or out of reach: nothing the run can reach either
		}
		if err != nil {
			return fmt.Errorf("statfs %s: %w", p.path, err)
		}
		if ro {
			continue
		}
		if err := unix.Mount("", p.path, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|kept, ""); err != nil {
			return fmt.Errorf("remount %s (%s) read-only: %w", p.path, p.fstype, err)
		}
	}
	if m.Temp != "" {
		if err := unix.Mount(m.Temp, m.TempAt, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind the private temporary folder on %s: %w", m.TempAt, err)
		}
		kept, _, err := keptFlags(m.TempAt)
		if err != nil {
			return err
		}
		if err := unix.Mount("", m.TempAt, "", unix.MS_REMOUNT|unix.MS_BIND|kept|unix.MS_NODEV|unix.MS_NOSUID, ""); err != nil {
			return fmt.Errorf("remount %s: %w", m.TempAt, err)
		}
	}
	for _, p := range m.ReadOnly {
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	for _, p := range m.Hidden {
		if err := hideFile(m.Empty, p); err != nil {
			return err
		}
	}
	if m.Shm && dirExists("/dev/shm") {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=67108864"); err != nil {
			return fmt.Errorf("mount /dev/shm: %w", err)
		}
	}
	return nil
}

// loopbackUp brings up the network namespace's own loopback.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// forceUserNS makes the confiner use a user namespace even as root, so
// tests run as root exercise the path a person's unprivileged admit takes.
var forceUserNS = false

// confinerCmd is the command that starts the confiner (its standard
// streams left for the caller to set), and the pipes it is given: spec
// (written by the caller after Start) and status (read after the confiner
// ended). closeChildEnds closes admit's copies of the confiner's ends once
// it started.
func confinerCmd(netns bool) (cmd *exec.Cmd, specW, statusR *os.File, closeChildEnds func(), err error) {
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, nil, nil, nil, err
	}
	flags := uintptr(unix.CLONE_NEWNS | unix.CLONE_NEWPID)
	if netns {
		flags |= unix.CLONE_NEWNET
	}
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: flags}
	if os.Geteuid() != 0 || forceUserNS {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= unix.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN}
	}
	cmd = &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        []string{confinerArg0},
		Env:         confinerEnv(),
		Dir:         "/",
		ExtraFiles:  []*os.File{specR, statusW},
		SysProcAttr: attr,
	}
	return cmd, specW, statusR, func() { specR.Close(); statusW.Close() }, nil
}

// confinerEnv is the confiner's own environment: nothing of admit's (the
// program's comes in its spec), but GORACE, so that a race-built admit (its
// tests) does not make every run's confiner sleep a second as it exits.
func confinerEnv() []string {
	if v, ok := os.LookupEnv("GORACE"); ok {
		return []string{"GORACE=" + v}
	}
	return []string{}
}

// readStatus reads the confiner's report after it ended.
func readStatus(r io.Reader) (confinerStatus, bool) {
	var st confinerStatus
	b, _ := io.ReadAll(io.LimitReader(r, 1<<20))
	if len(strings.TrimSpace(string(b))) == 0 {
		return st, false
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return confinerStatus{Error: "confiner: bad status: " + err.Error()}, true
	}
	return st, true
}

// namespacesAvailable starts the confiner once in probe mode: it makes
// its namespaces and mounts exactly as a run does and checks that a
// read-only bind holds.
var namespacesAvailable = sync.OnceValues(func() (bool, string) {
	// In admit's own temporary folder: a process killed while it probes
	// (the probe is quick, but servers get killed) leaves nothing in the
	// system's temporary folder.
	base, _ := tempBase()
	dir, err := os.MkdirTemp(base, "probe-")
	if err != nil {
		return false, "no temporary folder for the probe: " + err.Error()
	}
	defer os.RemoveAll(dir)
	st, err := runConfinerProbe(dir)
	if err != nil {
		return false, err.Error()
	}
	if !st.Probe {
		return false, "the confiner's probe failed: " + st.Error
	}
	return true, ""
})

func runConfinerProbe(dir string) (confinerStatus, error) {
	cmd, specW, statusR, closeChildEnds, err := confinerCmd(true)
	if err != nil {
		return confinerStatus{}, err
	}
	defer statusR.Close()
	done, err := startOnThread(cmd, nil)
	closeChildEnds()
	if err != nil {
		specW.Close()
		return confinerStatus{}, fmt.Errorf("cannot start the confiner: %v", err)
	}
	defer done()
	json.NewEncoder(specW).Encode(confinerSpec{Probe: true, Mounts: confinerMounts{ReadOnly: []string{dir}}, NetNS: true})
	specW.Close()
	cmd.Wait()
	st, ok := readStatus(statusR)
	if !ok {
		return st, fmt.Errorf("the confiner ended without a report (%v)", cmd.ProcessState)
	}
	return st, nil
}
