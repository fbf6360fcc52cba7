//go:build !windows

package txn

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// The Unix calls of the tests; sys_windows_test.go has what stands for them there.

// errNoFIFO is what mkfifo fails with where a system has none (Windows).
var errNoFIFO = errors.New("no FIFOs here")

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }

// setTestXattr sets a user extended attribute; nil where the file system has none.
func setTestXattr(p string) error {
	if err := unix.Setxattr(p, "user.vfsctl-test", []byte("kept"), 0); err != unix.ENOTSUP {
		return err
	}
	return nil
}

// killSelf ends this process at once, as a kill -9 would.
func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// killedSelf reports whether err, a child's end, is killSelf's.
func killedSelf(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
}

// runAs makes cmd run as user and group id.
func runAs(cmd *exec.Cmd, id uint32) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: id, Gid: id}}
}
