//go:build !windows

package toolapi

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// procGroup is the process group a command runs in (exec_windows.go: a job object).
type procGroup struct{ pid int }

// startGroup starts cmd as the leader of a process group of its own.
func startGroup(cmd *exec.Cmd) (procGroup, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return procGroup{}, err
	}
	return procGroup{pid: cmd.Process.Pid}, nil
}

func (g procGroup) signal(s os.Signal) {
	if sig, ok := s.(syscall.Signal); ok {
		syscall.Kill(-g.pid, sig)
	}
}

func (g procGroup) kill()  { syscall.Kill(-g.pid, syscall.SIGKILL) }
func (g procGroup) close() {}

// exitOf is the exit status and how the command ended, from its wait status; killed
// says why it was killed, "" if it was not.
func exitOf(ee *exec.ExitError, killed string) (int, string) {
	st := ee.Sys().(syscall.WaitStatus)
	if st.Signaled() {
		if killed != "" {
			return ExitTimeout, killed
		}
		return 128 + int(st.Signal()), "signal " + st.Signal().String()
	}
	return st.ExitStatus(), fmt.Sprintf("exit %d", st.ExitStatus())
}
