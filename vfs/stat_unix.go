//go:build !windows

package vfs

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/spf13/afero"
	"golang.org/x/sys/unix"
)

// What vfs reads from a stat, and the descriptor calls of replace.go, on Linux and
// macOS; stat_windows.go has Windows's.

// statIdentity is the identity in fi's stat; ok is false where fi has none (in memory).
func statIdentity(fi fs.FileInfo) (Identity, bool) {
	if d, ok := fi.(interface{ identity() Identity }); ok {
		return d.identity(), true
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Identity{}, false
	}
	return Identity{
		Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size,
		Mtime: nanos(mtimeOf(st)),
		Ctime: nanos(ctimeOf(st)),
	}, true
}

func nanos(sec, nsec int64) int64 { return sec*1e9 + nsec }

func linksOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// owner is a file's user and group.
type owner struct{ Uid, Gid uint32 }

func ownerOf(fi fs.FileInfo) (owner, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}, false
	}
	return owner{st.Uid, st.Gid}, true
}

// storedMode is the mode a file given mode has: the same.
func storedMode(mode fs.FileMode) fs.FileMode { return mode }

// osFile is the *os.File an open file of the filesystem is, if it is one.
func osFile(h afero.File) (*os.File, bool) {
	f, ok := h.(*os.File)
	return f, ok
}

// setXattr gives f the extended attribute a.
func setXattr(f *os.File, a xattr) error { return unix.Fsetxattr(int(f.Fd()), a.name, a.value, 0) }

// outOfDescriptors reports whether err is the process's, or the system's, running out
// of file descriptors.
func outOfDescriptors(err error) bool {
	return errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE)
}

// noFolderSync reports whether err is a folder's fsync refused as meaningless
// there (EINVAL: some filesystems cannot sync a folder).
func noFolderSync(err error) bool { return errors.Is(err, syscall.EINVAL) }

// closeHeld closes a descriptor FS.hold kept.
func closeHeld(fd int) { unix.Close(fd) }

// geteuid asks the system for the process's effective user; a test counts the asks.
var geteuid = os.Geteuid

// euid is the process's effective user, asked once: vfsctl never changes it, and an
// edit looked at it at each stat, a system call each time (five a call in all).
var euid = sync.OnceValue(func() int { return geteuid() })

func writable(fi fs.FileInfo) bool {
	perm := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return perm&0o200 != 0
	}
	euid := euid()
	switch {
	case euid == 0:
		return perm&0o222 != 0
	case int(st.Uid) == euid:
		return perm&0o200 != 0
	case inGroup(int(st.Gid)):
		return perm&0o020 != 0
	}
	return perm&0o002 != 0
}

func inGroup(gid int) bool {
	if os.Getegid() == gid {
		return true
	}
	groups, _ := os.Getgroups()
	for _, g := range groups {
		if g == gid {
			return true
		}
	}
	return false
}
