package txn

import (
	"errors"
	"os"
	"os/exec"
)

// What the tests use that Windows lacks or does otherwise.

// errNoFIFO: a test that needs a FIFO skips.
var errNoFIFO = errors.New("Windows has no FIFOs")

func mkfifo(p string) error { return errNoFIFO }

func setTestXattr(p string) error { return nil } // no extended attributes on Windows

// killSelf ends this process at once (TerminateProcess, as a kill -9 does).
func killSelf() {
	p, _ := os.FindProcess(os.Getpid())
	p.Kill()
}

// runAs: a test that runs a child as another user skips on Windows before this.
func runAs(cmd *exec.Cmd, id uint32) {}
