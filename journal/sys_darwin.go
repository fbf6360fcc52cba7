package journal

import "golang.org/x/sys/unix"

// macOS has no fdatasync, and its fsync(2) leaves the data in the drive's cache,
// where a power loss takes it: F_FULLFSYNC flushes that cache too (as os.File.Sync
// does), with fsync where the file system has no F_FULLFSYNC (SMB).

func dataSync(fd int) error { return fullSync(fd) }

func fullSync(fd int) error {
	for {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0)
		switch err {
		case unix.EINTR:
			continue
		case unix.ENOTSUP, unix.ENOTTY:
			return unix.Fsync(fd)
		}
		return err
	}
}

// errNoAttr is what reading an extended attribute a file lacks fails with: ENOATTR
// (macOS's ENODATA is another error).
var errNoAttr error = unix.ENOATTR
