package sysfile

import "syscall"

// fstatatTrap is fstatat's system call.
const fstatatTrap = syscall.SYS_FSTATAT
