package vfs

import (
	"io/fs"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The Linux system calls rootfs.go and replace.go use; sys_darwin.go has the macOS
// ones. Windows has no build: see docs/runtime.md.

// renameAt's flags: swap the two entries, or rename only if the new name is free.
const (
	renameExchange  = unix.RENAME_EXCHANGE
	renameNoReplace = unix.RENAME_NOREPLACE
)

// renameAt renames oldname to newname, both in folder fd, with renameat2's flags.
func renameAt(fd int, oldname, newname string, flags uint) error {
	return unix.Renameat2(fd, oldname, fd, newname, flags)
}

// renameBetween renames oldname in folder oldfd to newname in folder newfd, with
// renameat2's flags.
func renameBetween(oldfd int, oldname string, newfd int, newname string, flags uint) error {
	return unix.Renameat2(oldfd, oldname, newfd, newname, flags)
}

// enotsup is ENOTSUP, which is EOPNOTSUPP on Linux (a variable: a case may repeat it).
var enotsup error = unix.ENOTSUP

// syncFilesystemOf syncs the whole filesystem that fd is on (syncfs(2)).
func syncFilesystemOf(fd int) error { return unix.Syncfs(fd) }

// fullSync makes fd's data and metadata durable (fsync(2)).
func fullSync(fd int) error { return unix.Fsync(fd) }

const ext4Magic = 0xef53

// worthHolding reports whether holding a replaced file open (FS.hold) pays in folder
// fd: on ext4 only, where it was measured.
func worthHolding(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) == nil && st.Type == ext4Magic
}

// openHold opens name in folder fd by O_PATH, without following a symlink.
func openHold(fd int, name string) (int, error) { return openRaw(fd, name, unix.O_PATH, 0) }

func mtimeOf(st *syscall.Stat_t) (sec, nsec int64) { return st.Mtim.Sec, st.Mtim.Nsec }
func ctimeOf(st *syscall.Stat_t) (sec, nsec int64) { return st.Ctim.Sec, st.Ctim.Nsec }

// toSyscall copies a stat into the type os.Lstat's FileInfo carries, which the rest
// of vfs reads identities from.
func toSyscall(u *unix.Stat_t) syscall.Stat_t {
	return syscall.Stat_t{
		Dev: u.Dev, Ino: u.Ino, Nlink: u.Nlink, Mode: u.Mode, Uid: u.Uid, Gid: u.Gid,
		Rdev: u.Rdev, Size: u.Size, Blksize: u.Blksize, Blocks: u.Blocks,
		Atim: syscall.Timespec(u.Atim), Mtim: syscall.Timespec(u.Mtim), Ctim: syscall.Timespec(u.Ctim),
	}
}

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// listAt lists the folder held as fd (getdents), each entry as fstatat in it sees it (a
// symlink as itself). An entry gone between the listing and its stat is left out.
func listAt(fd int, dir string) ([]fs.FileInfo, error) {
	// The buffer is reused: a walk lists every folder, and a fresh 16 KiB for each
	// (about 21 MiB for the Go tree's 1,300 folders) cost more in clearing and
	// collecting than the listing.
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	out := make([]fs.FileInfo, 0, len(names))
	// One allocation for the folder's entries rather than one each: a walk of the Go
	// tree made 12,800 of them, and in a fresh process each new page of heap is a
	// page fault.
	infos := make([]statInfo, len(names))
	for i, name := range names {
		var st unix.Stat_t
		err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.ENOENT {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		infos[i] = statInfo{name: name, st: toSyscall(&st)}
		out = append(out, &infos[i])
	}
	return out, nil
}

// testHookNoXattrs, when set by a test, is told the answer of each look for extended
// attributes by the folder's /proc path.
var testHookNoXattrs func(none bool)

// noXattrsAt reports whether the entry name in folder dirfd has no extended
// attributes, told by one listing through the folder's /proc path, which does not
// follow name should it be a symlink. False when it has some, or when that could not
// be told so (no /proc): xattrsAt then opens the file to read them. An entry that is
// no longer the file planned is refused at the rename, which compares identities.
func noXattrsAt(dirfd int, name string) bool {
	n, err := unix.Llistxattr("/proc/self/fd/"+strconv.Itoa(dirfd)+"/"+name, nil)
	none := err == nil && n == 0 || err == unix.ENOTSUP
	if testHookNoXattrs != nil {
		testHookNoXattrs(none)
	}
	return none
}
