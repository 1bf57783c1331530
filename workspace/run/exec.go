package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"admit/internal/sysfile"
)

// shells are programs that interpret their arguments as shell code. None of
// them ever starts, by name or by path, nor appears as a path argument.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"pdksh": true, "ash": true, "rbash": true, "yash": true, "posh": true, "fish": true,
	"csh": true, "tcsh": true, "busybox": true, "pwsh": true,
}

// safeBuiltins are the interp builtins a run may use: they print, test or
// end the run. cd is checked separately (it must stay inside the roots);
// every other builtin (exec, eval, source, ., command, builtin, trap, kill,
// read, set, shopt, alias, pushd...) could escape the gate and is refused.
var safeBuiltins = map[string]bool{
	"true": true, "false": true, ":": true, "echo": true, "printf": true,
	"pwd": true, "test": true, "[": true, "exit": true,
}

// startsNoProgram reports whether every simple command of file, those in
// substitutions included, is named by a literal word naming a builtin the
// run allows (cd among them): such a line starts no program. A name that
// is expanded ($X, a pattern, quotes around parts) could be anything.
func startsNoProgram(file *syntax.File) bool {
	none := true
	syntax.Walk(file, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			name := call.Args[0].Lit()
			if !safeBuiltins[name] && name != "cd" {
				none = false
			}
		}
		return none
	})
	return none
}

// call runs for every simple command, builtins included, after expansion.
func (x *executor) call(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	refuse := func(reason string, err error) ([]string, error) {
		return nil, x.fail(&RefusedError{Argv: slices.Clone(args), Reason: reason, Err: err})
	}
	name := args[0]
	if interp.IsBuiltin(name) && !safeBuiltins[name] {
		if name != "cd" {
			return refuse("builtin "+name+" is not run", nil)
		}
		if len(args) != 2 || args[1] == "-" || strings.HasPrefix(args[1], "-") {
			return refuse("cd needs exactly one folder", nil)
		}
		target := args[1]
		if !filepath.IsAbs(target) {
			target = filepath.Join(hc.Dir, target)
		}
		if !within(resolve(target), x.roots) {
			return refuse("cd leaves the workspace roots", nil)
		}
	}
	if !nonReading[name] {
		for _, a := range args[1:] {
			if reason := specialOperand(a, hc.Dir); reason != "" {
				return refuse(reason, nil)
			}
		}
	}
	if x.recheck != nil {
		if err := x.recheck(slices.Clone(args), hc.Dir); err != nil {
			return refuse(err.Error(), err)
		}
	}
	return args, nil
}

// nonReading are the programs and builtins that look at their operands
// (their names, types, modes) without opening them to read: removing,
// moving, listing or testing a FIFO is not reading it.
var nonReading = map[string]bool{
	"rm": true, "rmdir": true, "mv": true, "ln": true, "ls": true, "stat": true, "du": true,
	"find": true, "chmod": true, "mkdir": true, "readlink": true, "realpath": true,
	"basename": true, "dirname": true, "test": true, "[": true, "echo": true, "printf": true,
	"true": true, "false": true, ":": true, "pwd": true, "exit": true,
}

// readableDevices are the devices a redirection or an operand may name.
// Any other FIFO, socket or device could block the run forever (a FIFO
// nobody writes), reach a process outside it (a FIFO or socket someone
// else holds open) or a disk.
var readableDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/urandom": true, "/dev/random": true,
	"/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
	"/dev/fd/0": true, "/dev/fd/1": true, "/dev/fd/2": true,
}

// specialOperand says why an argument that names an existing FIFO,
// socket or device (other than the few above) is refused: the word
// itself, or the value after an option's "=" (--file=fifo, if=/dev/sda).
// A word that names nothing, a regular file or a folder is fine.
func specialOperand(arg, dir string) string {
	cands := []string{arg}
	if _, v, ok := strings.Cut(arg, "="); ok && v != "" {
		cands = append(cands, v)
	}
	for _, c := range cands {
		p := c
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		p = filepath.Clean(p)
		if readableDevices[p] {
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		if kind := specialKind(info.Mode()); kind != "" {
			return fmt.Sprintf("operand %s is a %s, not a file: a run never reads one", c, kind)
		}
	}
	return ""
}

// specialKind names a mode that is not a regular file, folder or symlink.
func specialKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeIrregular != 0:
		return "special file"
	}
	return ""
}

// lookPath finds a plain program name on the absolute entries of PATH. A
// name with a slash, a shell, or a program that lives in a workspace root
// (written there, perhaps by the agent) is refused.
func (x *executor) lookPath(pathEnv, name string) (string, error) {
	if !plainName(name) {
		return "", fmt.Errorf("%q is not a plain program name", name)
	}
	if isShell(programName(name)) {
		return "", fmt.Errorf("%s is a shell", name)
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			continue
		}
		for _, cand := range programCandidates(dir, name) {
			info, err := os.Stat(cand)
			if err != nil || !info.Mode().IsRegular() || !executable(cand, info.Mode()) {
				continue
			}
			real := resolve(cand)
			if isShell(programName(real)) {
				return "", fmt.Errorf("%s is a shell (%s)", name, real)
			}
			if within(real, x.roots) {
				return "", fmt.Errorf("%s lives in the workspace (%s)", name, real)
			}
			return cand, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH", name)
}

// exec starts one program: never through DefaultExecHandler, always in its
// own process group, confined by Landlock and the memory limit when they
// apply.
func (x *executor) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	refuse := func(reason string) error {
		return x.fail(&RefusedError{Argv: slices.Clone(args), Reason: reason})
	}
	env := ScrubEnv(environ(hc))
	path, err := x.lookPath(envValue(env, "PATH"), args[0])
	if err != nil {
		return refuse(err.Error())
	}
	for _, a := range args[1:] {
		if !plainName(a) && isShell(programName(a)) {
			return refuse("argument " + a + " names a shell")
		}
	}
	argv := args
	if programName(path) == "git" {
		if argv, err = hardenGit(args); err != nil {
			return refuse(err.Error())
		}
	}
	if programName(path) == "git" {
		env = append(env, gitSafety(gitDriverOverrides(hc.Dir))...)
	} else {
		env = append(env, gitSafety(nil)...)
	}
	if x.temp != "" {
		env = setEnv(env, "TMPDIR", x.tmpdir) // a prefix assignment does not move it
	}
	env = withCaches(env, x.caches) // nor the private caches (caches.go)
	return x.start(ctx, hc, path, argv, env)
}

// killGrace is how long a program that timed out has between SIGTERM and
// SIGKILL: long enough to remove its temporary files, short enough that
// `admit run` ends close to its timeout.
const killGrace = 2 * time.Second

// start runs bin and waits for it, ending its process group at the
// timeout (SIGTERM, then SIGKILL after killGrace) or at cancellation
// (SIGKILL), and once it ends: no program outlives its command. How it
// starts, is signalled and is waited for is this system's (launch:
// exec_linux.go, exec_darwin.go, exec_windows.go).
func (x *executor) start(ctx context.Context, hc interp.HandlerContext, bin string, args, env []string) error {
	var stdin *os.File
	if f, ok := hc.Stdin.(*os.File); ok && f != nil {
		stdin = f // a pipe from the previous pipeline part, or a here-document
	}
	stdout, doneOut, err := childWriter(hc.Stdout)
	if err != nil {
		return x.fail(fmt.Errorf("%w: %v", ErrSetup, err))
	}
	defer doneOut()
	stderr, doneErr, err := childWriter(hc.Stderr)
	if err != nil {
		return x.fail(fmt.Errorf("%w: %v", ErrSetup, err))
	}
	defer doneErr()

	p, err := x.launch(hc, bin, args, env, stdin, stdout, stderr)
	defer p.release()
	if f, ok := stdout.(*os.File); ok && f != hc.Stdout {
		f.Close()
	}
	if f, ok := stderr.(*os.File); ok && f != hc.Stderr {
		f.Close()
	}
	if err != nil {
		if errors.Is(err, ErrSetup) {
			return x.fail(err)
		}
		return x.fail(fmt.Errorf("%w: start %s: %v", ErrSetup, args[0], err))
	}
	stop := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		select {
		case <-ctx.Done():
		case <-stop:
			return
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The timeout: ask first, whatever the program does with
			// SIGTERM it gets SIGKILL after the grace.
			p.signal(syscall.SIGTERM)
			select {
			case <-stop:
				return
			case <-time.After(killGrace):
			}
		}
		p.signal(syscall.SIGKILL)
	}()

	werr := p.wait(func() {
		p.signal(syscall.SIGKILL)
		close(stop)
		<-killed
	})
	return p.exit(werr, args[0])
}

// started is one program as this system started it.
type started struct {
	cmd *exec.Cmd
	// release lets go what had to outlive the program (the thread that
	// started it, a job object); called once, after it ended.
	release func()
	// signal sends sig to every process of the program's group.
	signal func(sig syscall.Signal)
	// wait returns how the program ended (cmd.Wait's error), calling
	// killGroup once it ended: before it is reaped where the system can
	// wait without reaping (Linux: its pid cannot be reused while its
	// group is killed), after elsewhere.
	wait func(killGroup func()) error
	// exit turns how cmd.Wait says it ended into the interpreter's status.
	exit func(werr error, name string) error
}

// exitOf turns how a program ended into the interpreter's status.
func (x *executor) exitOf(werr error, name string) error {
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			x.setSignal(ws.Signal())
			return interp.ExitStatus(128 + int(ws.Signal()))
		}
		return interp.ExitStatus(ee.ExitCode())
	}
	if werr != nil {
		return x.fail(fmt.Errorf("%w: wait %s: %v", ErrSetup, name, werr))
	}
	return nil
}

// copyGrace bounds how long output is drained after a group was killed: a
// process that left the group (setsid) may still hold the pipe.
const copyGrace = 2 * time.Second

// childWriter returns what the child writes to: w itself when it is a file
// (a pipeline pipe), else a pipe drained into w. done waits for the drain.
func childWriter(w io.Writer) (io.Writer, func(), error) {
	if f, ok := w.(*os.File); ok && f != nil {
		return f, func() {}, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	copied := make(chan struct{})
	go func() {
		io.Copy(w, pr)
		close(copied)
	}()
	return pw, func() {
		select {
		case <-copied:
		case <-time.After(copyGrace):
			pr.Close()
			<-copied
			return
		}
		pr.Close()
	}, nil
}

// environ lists the exported variables of the interpreter, prefix
// assignments of the command included.
func environ(hc interp.HandlerContext) []string {
	var env []string
	for name, v := range hc.Env.Each {
		if v.Exported && v.IsSet() {
			env = append(env, name+"="+v.String())
		}
	}
	return env
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// open confines the files the interpreter opens for redirections: reads
// inside the roots, writes only to Writes, plus the standard devices.
// /dev/stdin, /dev/stdout and /dev/stderr are the run's streams, never
// admit's own. Anything else must be a regular file (a FIFO would block
// admit itself, past every timeout; a socket or device reaches outside),
// and a file written must have one link. The checks hold against a path
// swapped between them: the open never blocks, never follows a final
// symlink and never truncates before the opened file is checked.
func (x *executor) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	write := flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0
	switch path {
	case "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random":
		if !write || path == "/dev/null" {
			return os.OpenFile(path, flag&^os.O_CREATE, 0)
		}
	case "/dev/tty":
		return os.OpenFile(path, flag&^os.O_CREATE|syscall.O_NOCTTY, 0)
	case "/dev/stdin":
		if !write {
			if hc.Stdin == nil {
				return readOnly{}, nil
			}
			return readOnly{hc.Stdin}, nil
		}
	case "/dev/stdout":
		if write {
			return writeOnly{hc.Stdout}, nil
		}
	case "/dev/stderr":
		if write {
			return writeOnly{hc.Stderr}, nil
		}
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(hc.Dir, abs)
	}
	real := resolve(abs)
	refuse := func(reason string) (io.ReadWriteCloser, error) {
		return nil, x.fail(&RefusedError{Path: path, Reason: reason})
	}
	if write {
		if !within(real, x.writes) {
			return refuse("redirection writes outside the admitted targets")
		}
	} else if !within(real, x.roots) {
		return refuse("redirection reads outside the workspace roots")
	}
	if info, err := os.Lstat(real); err == nil {
		if kind := specialKind(info.Mode()); kind != "" {
			return refuse("redirection names a " + kind + ", not a file")
		}
		if write && linkCount(real) > 1 {
			return refuse("redirection writes a hard-linked file: another link may be outside the workspace")
		}
	}
	// O_NOFOLLOW: the last component was resolved above; a symlink put
	// there since is refused rather than followed. O_NONBLOCK: a FIFO put
	// there since does not block the open. O_TRUNC waits for the checks.
	trunc := flag&os.O_TRUNC != 0
	f, err := sysfile.OpenNoFollow(real, (flag&^os.O_TRUNC)|sysfile.NonBlock|syscall.O_NOCTTY, perm)
	if err != nil {
		return nil, err
	}
	info, err := sysfile.FileStat(f)
	if err == nil && !info.Mode.IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err == nil && write && info.Links > 1 {
		err = fmt.Errorf("%s is hard-linked: another link may be outside the workspace", path)
	}
	if err == nil && x.isHidden(f) {
		// A secret file hidden from the run reads as empty, here as in
		// its programs, and is not written.
		f.Close()
		if write {
			return refuse("redirection writes a secret file hidden from the run")
		}
		return readOnly{}, nil
	}
	if err == nil {
		err = setBlocking(f)
	}
	if err == nil && trunc {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return refuse(err.Error())
	}
	return f, nil
}

// openRegular opens a regular file for reading, refusing anything else
// without blocking (a FIFO) or opening it at all when a stat sees it (a
// device, whose open may act).
func openRegular(path string) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, errNotRegular)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|sysfile.NonBlock|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, errNotRegular)
	}
	if err := setBlocking(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readDir confines pattern expansion to the roots, as the gate's does;
// the recheck then holds each command's names to the ones judged. The
// folder is opened so that a FIFO named like one fails at once instead
// of blocking (openDir).
func (x *executor) readDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	if !within(resolve(path), x.roots) {
		return nil, &os.PathError{Op: "readdir", Path: path, Err: os.ErrPermission}
	}
	f, err := openDir(path)
	if err != nil {
		return nil, &os.PathError{Op: "readdir", Path: path, Err: err}
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

type readOnly struct{ io.Reader }

func (r readOnly) Read(p []byte) (int, error) {
	if r.Reader == nil {
		return 0, io.EOF
	}
	return r.Reader.Read(p)
}
func (readOnly) Write([]byte) (int, error) { return 0, os.ErrPermission }
func (readOnly) Close() error              { return nil }

type writeOnly struct{ io.Writer }

func (writeOnly) Read([]byte) (int, error) { return 0, io.EOF }
func (writeOnly) Close() error             { return nil }
