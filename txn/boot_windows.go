package txn

import (
	"strconv"

	"golang.org/x/sys/windows/registry"

	"github.com/vfsctl/vfsctl/internal/winfs"
)

// readBootID is Windows's BootId, a count of the machine's boots that the kernel
// keeps in the registry (Windows 8 and later); "" where it is absent (Wine).
func readBootID() string {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Control\Session Manager\Memory Management\PrefetchParameters`, registry.QUERY_VALUE)
	if err != nil {
		return ""
	}
	defer k.Close()
	n, _, err := k.GetIntegerValue("BootId")
	if err != nil {
		return ""
	}
	return "windows-boot-" + strconv.FormatUint(n, 10)
}

// processAlive reports whether process pid exists and has not exited.
func processAlive(pid int) bool { return winfs.ProcessAlive(pid) }
