//go:build unix

package shell

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// echoOff turns the terminal's echo off.
func echoOff(tty *os.File) error {
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios)
	if err != nil {
		return err
	}
	tio.Lflag &^= unix.ECHO
	return unix.IoctlSetTermios(int(tty.Fd()), setTermios, tio)
}

// controllingTerminal starts a process in a session of its own whose
// controlling terminal is its standard input.
func controllingTerminal() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true}
}
