package txn

import (
	"strconv"

	"golang.org/x/sys/windows"
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

// procStart is when process pid was created, in 100 ns units since 1601 (Windows's
// creation time); "" if it cannot be read (the process is gone, or not ours to
// query). Windows gives a process number again soon after its process ended.
func procStart(pid int) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return ""
	}
	return strconv.FormatUint(uint64(created.HighDateTime)<<32|uint64(created.LowDateTime), 10)
}

// groupAlive is false on Windows: a command runs in a job object that ends with the
// vfsctl that made it (toolapi), so no command outlives its vfsctl.
func groupAlive(journal.Runner) bool { return false }
