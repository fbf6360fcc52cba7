//go:build !windows

package toolapi

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// procGroup is the process group a command runs in (exec_windows.go: a job object),
// and the terminal it was given as foreground group (-1: none).
type procGroup struct{ pid, tty int }

// startGroup starts cmd as the leader of a process group of its own, which a timeout
// kills whole. When cmd's stdin is the terminal whose foreground group is this
// process's, the new group becomes the terminal's foreground group while it runs: a
// prompt, an editor or a pager reads the terminal or sets its modes, which stops a
// group in the background (SIGTTIN, SIGTTOU) for good. close gives it back.
func startGroup(cmd *exec.Cmd) (procGroup, error) {
	attr := &syscall.SysProcAttr{Setpgid: true}
	tty := -1
	if f, ok := cmd.Stdin.(*os.File); ok {
		fd := int(f.Fd())
		if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pg == unix.Getpgrp() {
			attr.Foreground, attr.Ctty, tty = true, fd, fd
		}
	}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		return procGroup{}, err
	}
	return procGroup{pid: cmd.Process.Pid, tty: tty}, nil
}

func (g procGroup) signal(s os.Signal) {
	if sig, ok := s.(syscall.Signal); ok {
		syscall.Kill(-g.pid, sig)
	}
}

func (g procGroup) kill() { syscall.Kill(-g.pid, syscall.SIGKILL) }

// close takes the terminal back for this process's group: from the background, which
// SIGTTOU would stop unless ignored meanwhile.
func (g procGroup) close() {
	if g.tty < 0 {
		return
	}
	signal.Ignore(syscall.SIGTTOU)
	unix.IoctlSetPointerInt(g.tty, unix.TIOCSPGRP, unix.Getpgrp())
	signal.Reset(syscall.SIGTTOU)
}

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
