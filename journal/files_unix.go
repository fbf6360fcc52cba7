//go:build !windows

package journal

import (
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The journal's file calls on Linux and macOS: openat with O_NOFOLLOW, fstatat,
// unlinkat, renameat, flock. files_windows.go has Windows's.

// handle is an open file or folder: a descriptor.
type handle = int

const noHandle handle = -1

// keepsLog: a log may be kept here (where the file system keeps extended attributes).
const keepsLog = true

func closeHandle(fd handle) { unix.Close(fd) }

// geteuid asks the system for the process's effective user; a test counts the asks.
var geteuid = os.Geteuid

// euid is the process's effective user, asked once: vfsctl never changes it, and each
// look at the journal's place asked it twice, a system call each time.
var euid = sync.OnceValue(func() int { return geteuid() })

// openRoot opens the folder dir by its path, which is trusted as named.
func openRoot(dir string) (handle, error) {
	return unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// openDirUnder opens folder name of root in one open: root's path followed as
// openRoot follows it (as given: not cleaned, so that a ".." goes where the system
// takes it), name not followed (O_NOFOLLOW applies to the last component). ok is
// false where it could not be opened so; openDir then says why.
func openDirUnder(root, name string) (handle, bool) {
	fd, err := unix.Open(root+"/"+name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	return fd, err == nil
}

// openDirAt opens folder name in at; a symlink or a file there is errNotOurs.
func openDirAt(at handle, name string) (handle, error) {
	fd, err := unix.Openat(at, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err == unix.ELOOP || err == unix.ENOTDIR {
		return -1, errNotOurs
	}
	return fd, err
}

func mkdirAt(at handle, name string) error { return unix.Mkdirat(at, name, 0o755) }

// openFileAt opens name in at without following a symlink and without blocking on a
// FIFO; a symlink, a FIFO without a writer or a folder is errNotOurs. The caller
// checks what it opened.
func openFileAt(at handle, name string, flag int, perm os.FileMode) (handle, error) {
	fd, err := unix.Openat(at, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, uint32(perm.Perm()))
	switch err {
	case nil:
		unix.SetNonblock(fd, false)
		return fd, nil
	case unix.ELOOP, unix.ENXIO, unix.EISDIR:
		return -1, errNotOurs
	}
	return -1, err
}

func statAt(at handle, name string) (entry, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(at, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return entry{}, err
	}
	return entryOf(&st), nil
}

func statHandle(fd handle) (entry, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return entry{}, err
	}
	return entryOf(&st), nil
}

func entryOf(st *unix.Stat_t) entry {
	e := entry{
		Links: uint64(st.Nlink), mine: int(st.Uid) == euid(), owner: fmt.Sprintf("uid %d", st.Uid),
		Size: st.Size, perm: os.FileMode(st.Mode).Perm(), mtime: time.Unix(st.Mtim.Unix()), Dev: uint64(st.Dev), Ino: st.Ino,
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		e.kind = kindFile
	case unix.S_IFDIR:
		e.kind = kindDir
	case unix.S_IFLNK:
		e.kind = kindLink
	case unix.S_IFIFO:
		e.kind = kindFIFO
	case unix.S_IFSOCK:
		e.kind = kindSocket
	case unix.S_IFCHR, unix.S_IFBLK:
		e.kind = kindDevice
	}
	return e
}

// unlinkAt removes name in at: a file, or with dir an empty folder.
func unlinkAt(at handle, name string, dir bool) error {
	if dir {
		return unix.Unlinkat(at, name, unix.AT_REMOVEDIR)
	}
	return unix.Unlinkat(at, name, 0)
}

func renameAt(at handle, from, to string) error { return unix.Renameat(at, from, at, to) }

// readNames lists the folder open at fd, from its start.
func readNames(fd handle) []string {
	h, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(h), queueDir)
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return names
}

// touch sets the file's times to now.
func touch(fd handle) error { return unix.Futimes(fd, nil) }

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// tryLock takes the exclusive lock of f if it is free; unlock lets it go.
func tryLock(f *os.File) bool { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil }
func unlock(f *os.File)       { unix.Flock(int(f.Fd()), unix.LOCK_UN) }
