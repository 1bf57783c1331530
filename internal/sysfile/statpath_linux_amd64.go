package sysfile

import "syscall"

// fstatatTrap is fstatat's system call (newfstatat on amd64).
const fstatatTrap = syscall.SYS_NEWFSTATAT
