package main

import (
	"os"
	"testing"
	"time"
)

// What the tests use that Windows lacks or does otherwise.

// makeFIFO: a test that needs a FIFO skips.
func makeFIFO(tb testing.TB, p string) {
	tb.Helper()
	tb.Skip("Windows has no FIFOs")
}

// inodeOf: os's FileInfo carries no file index on Windows; 0 for every file.
func inodeOf(os.FileInfo) uint64 { return 0 }

// diskBytes: the size on disk is not read on Windows; 0.
func diskBytes(os.FileInfo) int64 { return 0 }

// resourcesOf: the processor time of an ended process; its largest resident size is not
// read on Windows (0).
func resourcesOf(ps *os.ProcessState) (rss int64, cpu time.Duration) {
	return 0, ps.UserTime() + ps.SystemTime()
}

// killNow ends process pid at once (TerminateProcess).
func killNow(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
