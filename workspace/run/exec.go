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

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/interp"
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
	if x.recheck != nil {
		if err := x.recheck(slices.Clone(args), hc.Dir); err != nil {
			return refuse(err.Error(), err)
		}
	}
	return args, nil
}

// lookPath finds a plain program name on the absolute entries of PATH. A
// name with a slash, a shell, or a program that lives in a workspace root
// (written there, perhaps by the agent) is refused.
func (x *executor) lookPath(pathEnv, name string) (string, error) {
	if name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("%q is not a plain program name", name)
	}
	if shells[name] {
		return "", fmt.Errorf("%s is a shell", name)
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			continue
		}
		cand := filepath.Join(dir, name)
		info, err := os.Stat(cand)
		if err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
			continue
		}
		real := resolve(cand)
		if shells[filepath.Base(real)] {
			return "", fmt.Errorf("%s is a shell (%s)", name, real)
		}
		if within(real, x.roots) {
			return "", fmt.Errorf("%s lives in the workspace (%s)", name, real)
		}
		return cand, nil
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
		if strings.Contains(a, "/") && shells[filepath.Base(a)] {
			return refuse("argument " + a + " names a shell")
		}
	}
	argv := args
	if filepath.Base(path) == "git" {
		if argv, err = hardenGit(args); err != nil {
			return refuse(err.Error())
		}
	}
	if filepath.Base(path) == "git" {
		env = append(env, gitSafety(gitDriverOverrides(hc.Dir))...)
	} else {
		env = append(env, gitSafety(nil)...)
	}

	return x.start(ctx, hc, path, argv, env)
}

// start runs bin and waits for it, killing its process group on
// cancellation and once it ends (no program outlives its command).
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

	cmd := &exec.Cmd{
		Path:   bin,
		Args:   args,
		Env:    env,
		Dir:    hc.Dir,
		Stdin:  stdin, // nil: /dev/null
		Stdout: stdout,
		Stderr: stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,
			Pdeathsig: syscall.SIGKILL,
		},
	}
	if x.ruleset != nil {
		var release func()
		release, err = x.ruleset.start(cmd)
		defer release()
	} else {
		err = cmd.Start()
	}
	if err == nil && x.memMB > 0 {
		err = limitMemory(cmd.Process.Pid, x.memMB)
		if err != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
	}
	if f, ok := stdout.(*os.File); ok && f != hc.Stdout {
		f.Close()
	}
	if f, ok := stderr.(*os.File); ok && f != hc.Stderr {
		f.Close()
	}
	if err != nil {
		return x.fail(fmt.Errorf("%w: start %s: %v", ErrSetup, args[0], err))
	}
	pid := cmd.Process.Pid
	stop := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		select {
		case <-ctx.Done():
			syscall.Kill(-pid, syscall.SIGKILL)
		case <-stop:
		}
	}()

	// Wait for the leader without reaping it, so its pid cannot be reused
	// while the group is killed; then reap it.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	close(stop)
	<-killed
	werr := cmd.Wait()

	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			x.setSignal(ws.Signal())
			return interp.ExitStatus(128 + int(ws.Signal()))
		}
		return interp.ExitStatus(ee.ExitCode())
	}
	if werr != nil {
		return x.fail(fmt.Errorf("%w: wait %s: %v", ErrSetup, args[0], werr))
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
// /dev/stdout and /dev/stderr are the run's streams, never admit's own.
func (x *executor) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	write := flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0
	switch path {
	case "/dev/null":
		return os.OpenFile(path, flag, perm)
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
	// O_NOFOLLOW: the last component was resolved above; a symlink put
	// there since is refused rather than followed.
	return os.OpenFile(real, flag|syscall.O_NOFOLLOW, perm)
}

// readDir confines pattern expansion to the roots, as the gate's does;
// the recheck then holds each command's names to the ones judged.
func (x *executor) readDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	if !within(resolve(path), x.roots) {
		return nil, &os.PathError{Op: "readdir", Path: path, Err: os.ErrPermission}
	}
	return os.ReadDir(path)
}

type writeOnly struct{ io.Writer }

func (writeOnly) Read([]byte) (int, error) { return 0, io.EOF }
func (writeOnly) Close() error             { return nil }
