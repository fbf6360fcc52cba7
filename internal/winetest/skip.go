package winetest

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Wine reports whether this process runs under Wine, which is not Windows: its
// ntdll exports wine_get_version, which Windows's does not.
func Wine() bool { return wine() }

// NeedSymlinks skips tb where no symbolic link can be made: on Windows without the
// privilege to make one (or developer mode), and under Wine 8, whose
// CreateSymbolicLink reports success and makes nothing.
func NeedSymlinks(tb testing.TB) {
	tb.Helper()
	if why := noSymlinks(); why != "" {
		tb.Skip(why)
	}
}

var noSymlinks = sync.OnceValue(func() string {
	if runtime.GOOS != "windows" {
		return ""
	}
	dir, err := os.MkdirTemp("", "symlink-probe")
	if err != nil {
		return "no folder to try a symbolic link in: " + err.Error()
	}
	defer os.RemoveAll(dir)
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		return "this Windows user cannot make symbolic links (" + err.Error() + "): developer mode or the privilege SeCreateSymbolicLinkPrivilege is needed"
	}
	if _, err := os.Lstat(link); err != nil {
		return "Wine's CreateSymbolicLink reports success and makes nothing: no symbolic link to test with"
	}
	return ""
})

// NeedPOSIXShell skips tb on Windows: the test runs its commands through sh, or
// other POSIX tools (sed, ln, chattr), which Windows does not have.
func NeedPOSIXShell(tb testing.TB) {
	tb.Helper()
	if runtime.GOOS == "windows" {
		tb.Skip("the test's commands are POSIX shell (sh, sed, ln), which Windows does not have")
	}
}

// NeedPOSIXModes skips tb on Windows, where a file's mode keeps one bit (read-only)
// and the rest of what the test checks (permission bits, owners, setuid, inodes
// shared by hard links, FIFOs) is not there to check; why says which.
func NeedPOSIXModes(tb testing.TB, why string) {
	tb.Helper()
	if runtime.GOOS == "windows" {
		tb.Skip("Windows has no " + why)
	}
}

// SkipUnderWine skips tb under Wine, naming the limitation of Wine (not of Windows)
// the test meets.
func SkipUnderWine(tb testing.TB, why string) {
	tb.Helper()
	if Wine() {
		tb.Skip("under Wine: " + why)
	}
}
