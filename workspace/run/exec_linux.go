package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/interp"
)

// launch starts bin in the confiner, or from a thread restricted as the
// run's confinement says, or bare; each in its own process group, killed
// with admit (the parent-death signal).
func (x *executor) launch(hc interp.HandlerContext, bin string, args, env []string, stdin *os.File, stdout, stderr io.Writer) (*started, error) {
	p := &started{release: func() {}, exit: x.exitOf}
	var (
		cmd     *exec.Cmd
		statusR *os.File
		err     error
	)
	// The memory bound is a cgroup where one is delegated, else
	// RLIMIT_DATA; a cgroup that cannot be made falls back to it.
	var cg *runCgroup
	if x.memMB > 0 && memoryCgroupParent() != "" {
		cg, _ = newRunCgroup(memoryCgroupParent(), x.memMB)
	}
	intoCgroup := func(attr *syscall.SysProcAttr) {
		if cg != nil {
			attr.UseCgroupFD, attr.CgroupFD = true, cg.fd
		}
	}
	defer func() {
		if cg == nil {
			return
		}
		release := p.release
		p.release = func() {
			release()
			if oom, _ := cg.end(); oom {
				x.oom.Store(true)
			}
		}
	}()
	if x.confiner {
		var specW *os.File
		var closeChildEnds func()
		cmd, specW, statusR, closeChildEnds, err = confinerCmd(x.spec.NetNS)
		if err != nil {
			return p, fmt.Errorf("%w: confiner: %v", ErrSetup, err)
		}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if stdin != nil {
			cmd.Stdin = stdin
		}
		intoCgroup(cmd.SysProcAttr) // the confiner and the program in it
		p.release, err = startOnThread(cmd, nil)
		closeChildEnds()
		if err == nil {
			spec := x.spec
			spec.Path, spec.Args, spec.Env, spec.Dir = bin, args, env, hc.Dir
			if cg != nil {
				spec.MemMB = 0 // the cgroup bounds it
			}
			if prog := programRule(bin); spec.Ruleset != nil && !coveredBy(spec.Ruleset.Rules, prog) {
				rs := *spec.Ruleset
				rs.Rules = append(slices.Clip(rs.Rules), prog)
				spec.Ruleset = &rs
			}
			go func() {
				json.NewEncoder(specW).Encode(spec)
				specW.Close()
			}()
		} else {
			specW.Close()
		}
		release := p.release
		p.release = func() { release(); statusR.Close() }
		p.exit = func(werr error, name string) error { return x.confinerExit(statusR, werr, name) }
	} else {
		cmd = &exec.Cmd{
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
		intoCgroup(cmd.SysProcAttr)
		if x.restrict != nil {
			if err := x.restriction(); err != nil {
				return p, err
			}
			cmd.Env = setEnv(cmd.Env, "TMPDIR", x.tmpdir) // made with the restriction, for a line of builtins
			if prog := programRule(bin); x.restrict.ruleset != nil && !coveredBy(x.rules, prog) {
				if err := x.restrict.ruleset.add(prog); err != nil {
					return p, fmt.Errorf("%w: %v", ErrSetup, err)
				}
			}
			p.release, err = startOnThread(cmd, x.restrict)
		} else {
			err = cmd.Start()
		}
		if err == nil && x.memMB > 0 && cg == nil {
			err = limitMemory(cmd.Process.Pid, x.memMB)
			if err != nil {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				_ = cmd.Wait()
			}
		}
	}
	if err != nil {
		return p, err
	}
	p.cmd = cmd
	pid := cmd.Process.Pid
	p.signal = func(sig syscall.Signal) { syscall.Kill(-pid, sig) }
	p.wait = func(killGroup func()) error {
		// Wait for the leader without reaping it, so its pid cannot be
		// reused while the group is killed; then reap it.
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		killGroup()
		return cmd.Wait()
	}
	return p, nil
}

// confinerExit reads how the program in the confiner ended. Without a
// report the confiner itself was ended (SIGKILL at the timeout's end):
// its own status says how.
func (x *executor) confinerExit(statusR *os.File, werr error, name string) error {
	st, ok := readStatus(statusR)
	switch {
	case !ok:
		return x.exitOf(werr, name)
	case st.Error != "":
		return x.fail(fmt.Errorf("%w: %s", ErrSetup, st.Error))
	case st.Signal != 0:
		x.setSignal(syscall.Signal(st.Signal))
		return interp.ExitStatus(128 + st.Signal)
	case st.Exit != nil && *st.Exit != 0:
		return interp.ExitStatus(uint8(*st.Exit))
	case st.Exit != nil:
		return nil
	}
	return x.fail(fmt.Errorf("%w: the confiner reported nothing for %s", ErrSetup, name))
}
