package vfs

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// chmodAt sets the bits of name in folder dirfd, never through a symlink. A look for a
// symlink and then a chmod by name leaves a moment in which the entry can become one,
// and Linux's chmod follows it, out of the workspace: so the entry is opened as itself
// (O_PATH, O_NOFOLLOW, which opens a symlink as the link), looked at, and the bits are
// set on what was opened, through its /proc/self/fd link (as the C library does for
// fchmodat with AT_SYMLINK_NOFOLLOW), or fchmodat2 on the descriptor where the kernel
// has it. Without either, the look and the chmod by name are what is left.
func chmodAt(dirfd int, name string, mode uint32) error {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return ErrSymlinkNow
	}
	if procFs() {
		return unix.Chmod("/proc/self/fd/"+strconv.Itoa(fd), mode)
	}
	if err := unix.Fchmodat(fd, "", mode, unix.AT_EMPTY_PATH); err != unix.EOPNOTSUPP {
		return err
	}
	if isSymlinkAt(dirfd, name) {
		return ErrSymlinkNow
	}
	return unix.Fchmodat(dirfd, name, mode, 0)
}
