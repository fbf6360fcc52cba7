//go:build amd64 || arm64

package vfs

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatNameAt stats the entry named by the NUL-terminated bytes at name in folder fd,
// not following a symlink: unix.Fstatat, without copying the name to the heap
// (listAt passes names where getdents left them, already terminated). The system
// call's number is the one thing that differs between the two (sysFstatat).
func lstatNameAt(fd int, name *byte, st *unix.Stat_t) error {
	_, _, e := unix.Syscall6(sysFstatat, uintptr(fd), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
