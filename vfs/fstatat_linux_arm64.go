package vfs

import "golang.org/x/sys/unix"

// sysFstatat is fstatat(2) for lstatNameAt (fstatat_linux.go).
const sysFstatat = unix.SYS_FSTATAT
