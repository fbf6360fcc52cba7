package vfs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The macOS counterparts of sys_linux.go: the same walk by handle (openat with
// O_NOFOLLOW, fstatat, unlinkat, renameat), with renameatx_np for Linux's renameat2,
// F_FULLFSYNC for fsync, and no syncfs and no O_PATH.

const (
	renameExchange  = unix.RENAME_SWAP
	renameNoReplace = unix.RENAME_EXCL
)

// renameAt renames oldname to newname, both in folder fd, with renameatx_np's flags.
func renameAt(fd int, oldname, newname string, flags uint) error {
	return unix.RenameatxNp(fd, oldname, fd, newname, uint32(flags))
}

// renameBetween renames oldname in folder oldfd to newname in folder newfd, with
// renameatx_np's flags.
func renameBetween(oldfd int, oldname string, newfd int, newname string, flags uint) error {
	return unix.RenameatxNp(oldfd, oldname, newfd, newname, uint32(flags))
}

// enotsup is ENOTSUP, which on macOS differs from EOPNOTSUPP.
var enotsup error = unix.ENOTSUP

// syncFilesystemOf: macOS has no syncfs, and its sync(2) does not wait for the
// writes it starts. A caller that needs it (a file made unreadable since it was
// written) reports the file's own error instead.
func syncFilesystemOf(fd int) error { return errors.ErrUnsupported }

// fullSync makes fd's data and metadata durable. macOS's fsync(2) leaves them in the
// drive's cache, where a power loss takes them: F_FULLFSYNC flushes that cache too
// (as os.File.Sync does), with fsync where the file system has no F_FULLFSYNC (SMB).
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

// worthHolding: holding a replaced file open was measured to pay on ext4 only.
func worthHolding(fd int) bool { return false }

// mountDiscards is never called on macOS: worthHolding is false.
func mountDiscards(uint64) bool { return false }

// openHold is never called on macOS (worthHolding is false); it has no O_PATH.
func openHold(fd int, name string) (int, error) { return -1, errors.ErrUnsupported }

func mtimeOf(st *syscall.Stat_t) (sec, nsec int64) { return st.Mtimespec.Sec, st.Mtimespec.Nsec }
func ctimeOf(st *syscall.Stat_t) (sec, nsec int64) { return st.Ctimespec.Sec, st.Ctimespec.Nsec }

// toSyscall copies a stat into the type os.Lstat's FileInfo carries, which the rest
// of vfs reads identities from.
func toSyscall(u *unix.Stat_t) syscall.Stat_t {
	return syscall.Stat_t{
		Dev: u.Dev, Ino: u.Ino, Nlink: u.Nlink, Mode: u.Mode, Uid: u.Uid, Gid: u.Gid,
		Rdev: u.Rdev, Size: u.Size, Blksize: u.Blksize, Blocks: u.Blocks, Flags: u.Flags, Gen: u.Gen,
		Atimespec: syscall.Timespec(u.Atim), Mtimespec: syscall.Timespec(u.Mtim),
		Ctimespec: syscall.Timespec(u.Ctim), Birthtimespec: syscall.Timespec(u.Btim),
	}
}

// listAt lists the folder held as fd, each entry as fstatat in it sees it (a symlink
// as itself).
func listAt(fd int, dir string) ([]fs.FileInfo, error) {
	dup, err := unix.Dup(fd) // the os.File closes its own
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: err}
	}
	d := os.NewFile(uintptr(dup), dir)
	defer d.Close()
	return d.Readdir(-1)
}

// noXattrsAt: macOS has no /proc to list them without opening the file; xattrsAt
// opens it.
func noXattrsAt(dirfd int, name string) bool { return false }
