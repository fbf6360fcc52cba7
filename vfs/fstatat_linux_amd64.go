package vfs

import "golang.org/x/sys/unix"

// sysFstatat is fstatat(2) for lstatNameAt (fstatat_linux.go): newfstatat on amd64.
const sysFstatat = unix.SYS_NEWFSTATAT
