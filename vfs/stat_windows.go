package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/spf13/afero"
	"golang.org/x/sys/windows"

	"github.com/vfsctl/vfsctl/internal/winfs"
)

// What vfs reads from a stat on Windows (winfs.Info), and replace.go's calls.

// statIdentity: the volume's serial number for the device, the file's index for the
// inode, and FILE_BASIC_INFO's change time, which a write or a change of attributes
// moves and nothing sets back.
func statIdentity(fi fs.FileInfo) (Identity, bool) {
	in, ok := fi.Sys().(*winfs.Info)
	if !ok || in.Index == 0 {
		return Identity{}, false
	}
	return Identity{Dev: uint64(in.Volume), Ino: in.Index, Size: in.Length, Mtime: in.Mtime, Ctime: in.Ctime}, true
}

func linksOf(fi fs.FileInfo) uint64 {
	if in, ok := fi.Sys().(*winfs.Info); ok {
		return uint64(in.Links)
	}
	return 1
}

// owner: a Windows file's owner is a security identifier, which ownerOf does not
// read (see docs/security.md).
type owner struct{ Uid, Gid uint32 }

func ownerOf(fs.FileInfo) (owner, bool) { return owner{}, false }

// storedMode is the mode a file given mode has on Windows, which keeps one bit of it:
// read-only (0o444) when no one may write, else 0o666.
func storedMode(mode fs.FileMode) fs.FileMode {
	if mode&0o222 == 0 {
		return 0o444
	}
	return 0o666
}

// osFile is the *os.File an open file of the filesystem is, if it is one.
func osFile(h afero.File) (*os.File, bool) {
	switch f := h.(type) {
	case *os.File:
		return f, true
	case file:
		return f.File, true
	}
	return nil, false
}

// setXattr: the "attributes" xattrsAt reports on Windows are alternate data streams,
// which vfsctl does not copy: the replace is refused rather than lose one.
func setXattr(f *os.File, a xattr) error {
	return fmt.Errorf("it is an alternate data stream, which vfsctl does not copy on Windows")
}

// outOfDescriptors reports whether err is the process's running out of handles.
func outOfDescriptors(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, windows.ERROR_TOO_MANY_OPEN_FILES) || errors.Is(err, windows.ERROR_NO_SYSTEM_RESOURCES)
}

// noFolderSync reports whether err is a folder's flush refused as meaningless: a
// folder opened by os.Open (an afero.OsFs under vfs.New) has no write access, which
// FlushFileBuffers needs, and NTFS logs a folder's changes itself (winfs.Sync).
func noFolderSync(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, windows.ERROR_ACCESS_DENIED)
}

// closeHeld is never called on Windows: worthHolding is false.
func closeHeld(int) {}

// writable: Windows keeps one permission in a file's mode, the read-only attribute.
// The file's ACL decides the rest, and the open for writing reports it.
func writable(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o200 != 0 }

// The calls of sys_linux.go that replace.go and rootfs.go use.

func worthHolding(winfs.Handle) bool             { return false }
func mountDiscards(uint64) bool                  { return false }
func openHold(winfs.Handle, string) (int, error) { return -1, errors.ErrUnsupported }
