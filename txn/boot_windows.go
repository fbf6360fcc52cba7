package txn

import (
	"strconv"

	"golang.org/x/sys/windows/registry"

	"github.com/vfsctl/vfsctl/internal/winfs"
	"github.com/vfsctl/vfsctl/journal"
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

// procStart is "" on Windows: a process number is checked by processAlive alone.
func procStart(int) string { return "" }

// groupAlive is false on Windows: a command runs in a job object that ends with the
// vfsctl that made it (toolapi), so no command outlives its vfsctl.
func groupAlive(journal.Runner) bool { return false }
