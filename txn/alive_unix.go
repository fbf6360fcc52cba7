//go:build !windows

package txn

import (
	"syscall"

	"github.com/vfsctl/vfsctl/journal"
)

// processAlive reports whether process pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// groupAlive reports whether the process group run's command runs in still has a
// process. The group is numbered by its first process, and the system gives that
// number to no other process while the group lives; should a process hold the
// number, its start time tells whether it is that first one or a later one.
func groupAlive(run journal.Runner) bool {
	if run.Group <= 1 { // kill(-1) would reach every process
		return false
	}
	if err := syscall.Kill(-run.Group, 0); err != nil && err != syscall.EPERM {
		return false
	}
	if run.GroupStart != "" {
		if s := procStart(run.Group); s != "" && s != run.GroupStart {
			return false
		}
	}
	return true
}
