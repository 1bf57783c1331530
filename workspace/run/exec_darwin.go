package run

import (
	"io"
	"os"
	"os/exec"
	"syscall"

	"mvdan.cc/sh/v3/interp"
)

// launch starts bin in its own process group, under sandbox-exec with
// the run's profile when it is confined. macOS has no parent-death
// signal and no prlimit: a program outlives an admit that was killed,
// and MaxMemoryMB is not applied (macOS enforces no RLIMIT_DATA
// either). The program sees its path as argv[0].
func (x *executor) launch(hc interp.HandlerContext, bin string, args, env []string, stdin *os.File, stdout, stderr io.Writer) (*started, error) {
	p := &started{release: func() {}, exit: x.exitOf}
	cmd := &exec.Cmd{
		Path:        bin,
		Args:        args,
		Env:         env,
		Dir:         hc.Dir,
		Stdin:       stdin, // nil: /dev/null
		Stdout:      stdout,
		Stderr:      stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if x.profile != "" {
		cmd.Path = sandboxExec
		cmd.Args = sandboxArgv(x.profile, x.params, bin, args[1:])
	}
	if err := cmd.Start(); err != nil {
		return p, err
	}
	p.cmd = cmd
	pid := cmd.Process.Pid
	p.signal = func(sig syscall.Signal) { syscall.Kill(-pid, sig) }
	// macOS cannot wait without reaping (no waitid in x/sys/unix): the
	// leader is reaped first. Its pid stays the group's id while any
	// process of the group lives, so it is not reused meanwhile, and the
	// SIGKILL after the wait reaches what is left of the group.
	p.wait = func(killGroup func()) error {
		werr := cmd.Wait()
		killGroup()
		return werr
	}
	return p, nil
}
