package toolapi_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// openPath opens p by O_PATH, as vfs holds a file it replaces; -1 where it cannot.
func openPath(b *testing.B, p string) int {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// exchangePaths swaps two entries atomically (renameat2 with RENAME_EXCHANGE).
func exchangePaths(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// closeFd closes a descriptor openPath opened.
func closeFd(fd int) { unix.Close(fd) }

func mkfifo(p string) error { return unix.Mkfifo(p, 0o644) }
