package txn

import (
	"os"
	"strings"
)

// readBootID is Linux's random boot_id.
func readBootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil || len(b) > 64 {
		return ""
	}
	return strings.TrimSpace(string(b))
}
