//go:build !windows

package vfs

import (
	"io/fs"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The Unix calls of the tests; sys_windows_test.go skips what Windows lacks.

func mkfifo(t testing.TB, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

func setTestXattr(p, name string, v []byte) error { return unix.Setxattr(p, name, v, 0) }
func getXattr(p, name string, buf []byte) (int, error) {
	return unix.Getxattr(p, name, buf)
}

// testOwner is the file's uid and gid.
func testOwner(fi fs.FileInfo) (uint32, uint32) {
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid
}

// fileLimit and setFileLimit read and set RLIMIT_NOFILE's soft limit.
func fileLimit() (uint64, error) {
	var l unix.Rlimit
	err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l)
	return l.Cur, err
}

func setFileLimit(cur uint64) error {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	l.Cur = cur
	return unix.Setrlimit(unix.RLIMIT_NOFILE, &l)
}

func syscallMkfifo(p string, mode uint32) error { return syscall.Mkfifo(p, mode) }
