package txn

import (
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
