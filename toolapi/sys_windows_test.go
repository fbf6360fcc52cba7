package toolapi

import (
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// What the tests use that Windows lacks or does otherwise.

// makeFIFO: a test that needs a FIFO skips.
func makeFIFO(tb testing.TB, p string) {
	tb.Helper()
	tb.Skip("Windows has no FIFOs")
}

// makeNullDevice: Windows has no device files in a folder.
func makeNullDevice(string) bool { return false }

// setTestXattr: no extended attributes on Windows.
func setTestXattr(string) error { return nil }

// ownerOf: a test that checks owners skips on Windows before this (no uid or gid).
func ownerOf(os.FileInfo) (uid, gid uint32) { return 0, 0 }

// lockFree reports whether f's lock (the journal's: LockFileEx on its first byte)
// could be taken now, letting it go at once if so.
func lockFree(f *os.File) bool {
	h := windows.Handle(f.Fd())
	if windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped)) != nil {
		return false
	}
	windows.UnlockFileEx(h, 0, 1, 0, new(windows.Overlapped))
	return true
}
