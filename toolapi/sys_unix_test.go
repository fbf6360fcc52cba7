//go:build !windows

package toolapi

import (
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The Unix calls of the tests; sys_windows_test.go has what stands for them there.

// makeFIFO makes a FIFO at p, failing tb if it cannot.
func makeFIFO(tb testing.TB, p string) {
	tb.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// makeNullDevice makes a character device (the null device's numbers) at p; false
// where it cannot (mknod needs root).
func makeNullDevice(p string) bool {
	return syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3) == nil
}

// setTestXattr sets a user extended attribute; nil where the file system has none.
func setTestXattr(p string) error {
	if err := unix.Setxattr(p, "user.vfsctl-test", []byte("kept"), 0); err != nil && err != unix.ENOTSUP {
		return err
	}
	return nil
}

// ownerOf is the user and group owning the file fi describes.
func ownerOf(fi os.FileInfo) (uid, gid uint32) {
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid
}

// lockFree reports whether f's lock (the journal's) could be taken now, letting it
// go at once if so.
func lockFree(f *os.File) bool {
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return true
}
