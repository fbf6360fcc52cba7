package toolapi_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// openPath: vfs holds replaced files on Linux's ext4 only; macOS has no O_PATH.
func openPath(b *testing.B, p string) int {
	b.Skip("replaced files are held on Linux only")
	return -1
}

// exchangePaths swaps two entries atomically (renamex_np with RENAME_SWAP).
func exchangePaths(a, b string) error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) }

// closeFd closes a descriptor openPath opened.
func closeFd(fd int) { unix.Close(fd) }

func mkfifo(p string) error { return unix.Mkfifo(p, 0o644) }
