package testutil

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/windows"
)

// nodeOf is the Node of p's stat fi, its content left out: the file index for the
// inode, no owner (a security identifier on Windows).
func nodeOf(p string, fi fs.FileInfo) Node {
	n := Node{Mode: fi.Mode()}
	name, err := syscall.UTF16PtrFromString(p)
	if err != nil {
		return n
	}
	h, err := windows.CreateFile(name, windows.FILE_READ_ATTRIBUTES, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return n
	}
	defer windows.CloseHandle(h)
	var d windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(h, &d) == nil {
		n.Ino = uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)
		if fi.Mode().IsRegular() {
			n.Links = uint64(d.NumberOfLinks)
		}
	}
	return n
}

// xattrsOf: Windows has no extended attributes.
func xattrsOf(string) []string { return nil }
