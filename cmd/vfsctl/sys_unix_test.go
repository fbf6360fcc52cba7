//go:build !windows

package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// The Unix calls of the tests; sys_windows_test.go has what stands for them there.

// makeFIFO makes a FIFO at p, failing tb if it cannot.
func makeFIFO(tb testing.TB, p string) {
	tb.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// inodeOf is the inode number of the file fi describes.
func inodeOf(fi os.FileInfo) uint64 { return fi.Sys().(*syscall.Stat_t).Ino }

// diskBytes is what the file fi describes takes on disk, in whole blocks.
func diskBytes(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return 0
}

// resourcesOf is the largest resident size (bytes) and the processor time of an ended process.
func resourcesOf(ps *os.ProcessState) (rss int64, cpu time.Duration) {
	ru := ps.SysUsage().(*syscall.Rusage)
	return int64(ru.Maxrss) << 10, // Linux reports kilobytes
		time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// killNow ends process pid at once (SIGKILL).
func killNow(pid int) { syscall.Kill(pid, syscall.SIGKILL) }
