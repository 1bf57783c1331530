package shell

import (
	"errors"
	"os"
	"syscall"
)

// echoOff fails: the interactive shells' tests need a Unix terminal.
func echoOff(*os.File) error { return errors.New("no Unix pseudo-terminal on Windows") }

func controllingTerminal() *syscall.SysProcAttr { return nil }
