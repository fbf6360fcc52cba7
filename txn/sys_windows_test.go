package txn

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/windows"
)

// What the tests use that Windows lacks or does otherwise.

// errNoFIFO: a test that needs a FIFO skips.
var errNoFIFO = errors.New("Windows has no FIFOs")

func mkfifo(p string) error { return errNoFIFO }

func setTestXattr(p string) error { return nil } // no extended attributes on Windows

// killedCode is the exit code killSelf ends this process with, so that a child that
// killed itself is told from one that failed (os.Process.Kill's code is 1).
const killedCode = 137

// killSelf ends this process at once (TerminateProcess, as a kill -9 does).
func killSelf() { windows.TerminateProcess(windows.CurrentProcess(), killedCode) }

// killedSelf reports whether err, a child's end, is killSelf's.
func killedSelf(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == killedCode
}

// runAs: a test that runs a child as another user skips on Windows before this.
func runAs(cmd *exec.Cmd, id uint32) {}
