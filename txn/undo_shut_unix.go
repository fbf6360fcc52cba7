//go:build !windows

package txn

import (
	"io/fs"
	"os"
	"syscall"
)

// shutToUs reports whether the folder fi, on a disk, is this process's and its bits
// deny it writing in it or passing through it (chmod 555). Root passes whatever the
// bits, as does anyone in a folder held in memory (tests); a folder of another user
// is left to the system to refuse.
func shutToUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	euid := os.Geteuid()
	return ok && euid != 0 && int(st.Uid) == euid && fi.Mode().Perm()&0o300 != 0o300
}
