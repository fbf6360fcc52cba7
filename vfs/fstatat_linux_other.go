//go:build linux && !amd64 && !arm64

package vfs

import "golang.org/x/sys/unix"

// lstatNameAt stats the entry named by the NUL-terminated bytes at name in folder fd,
// not following a symlink (fstatat_linux.go says why by pointer; here, where
// the system call's number and stat layout differ, through unix.Fstatat).
func lstatNameAt(fd int, name *byte, st *unix.Stat_t) error {
	return unix.Fstatat(fd, unix.BytePtrToString(name), st, unix.AT_SYMLINK_NOFOLLOW)
}
