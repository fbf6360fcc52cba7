package txn

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// readBootID is macOS's kern.bootsessionuuid, a random UUID made at every boot.
func readBootID() string {
	s, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil || len(s) > 64 {
		return ""
	}
	return strings.TrimSpace(s)
}

// procStart is when process pid started, as the kernel keeps it; "" if it cannot be
// read (the process is gone).
func procStart(pid int) string {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return ""
	}
	return fmt.Sprintf("%d.%06d", k.Proc.P_starttime.Sec, k.Proc.P_starttime.Usec)
}
