package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
	"mvdan.cc/sh/v3/interp"
)

// launch starts bin in a job object of its own: the program starts
// suspended, joins the job, and only then runs, so no process it starts
// can leave the job. Ending the job (TerminateJobObject) ends every
// process of the run at once: Windows has no SIGTERM to ask first, so a
// timeout ends the run without killGrace. Closing the job's handle
// (KILL_ON_JOB_CLOSE) ends what is left, admit's own end included.
// MaxMemoryMB is the job's per-process memory limit.
func (x *executor) launch(hc interp.HandlerContext, bin string, args, env []string, stdin *os.File, stdout, stderr io.Writer) (*started, error) {
	p := &started{release: func() {}, exit: x.exitOf}
	job, err := newJob(x.memMB)
	if err != nil {
		return p, fmt.Errorf("%w: job object: %v", ErrSetup, err)
	}
	p.release = func() { windows.CloseHandle(job) }
	cmd := &exec.Cmd{
		Path:        bin,
		Args:        args,
		Env:         env,
		Dir:         hc.Dir,
		Stdin:       stdin, // nil: NUL
		Stdout:      stdout,
		Stderr:      stderr,
		SysProcAttr: &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP},
	}
	if err := cmd.Start(); err != nil {
		return p, err
	}
	if err := joinAndResume(job, uint32(cmd.Process.Pid)); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return p, fmt.Errorf("%w: job object: %v", ErrSetup, err)
	}
	p.cmd = cmd
	p.signal = func(syscall.Signal) { windows.TerminateJobObject(job, 1) }
	p.wait = func(killGroup func()) error {
		werr := cmd.Wait()
		killGroup()
		return werr
	}
	return p, nil
}

// newJob makes a job object whose processes end when its last handle is
// closed, each limited to memMB of memory when memMB > 0.
func newJob(memMB int) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if memMB > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY
		info.ProcessMemoryLimit = uintptr(memMB) << 20
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// joinAndResume puts the suspended process pid in job and resumes its
// threads (os/exec keeps no handle of the first thread: the threads are
// found by a snapshot).
func joinAndResume(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return err
	}
	err = windows.AssignProcessToJobObject(job, h)
	windows.CloseHandle(h)
	if err != nil {
		return err
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return err
	}
	if resumed == 0 {
		return errors.New("no thread of the program to resume")
	}
	return nil
}
