package vfs

import (
	"io/fs"

	"github.com/vfsctl/vfsctl/internal/winfs"
)

// syncHeld syncs the folder cursor c holds, by its handle; held is false where c
// holds none (a filesystem without handles).
func syncHeld(c cursor) (held bool, err error) {
	hc, ok := c.(handleCursor)
	if !ok {
		return false, nil
	}
	if err := winfs.Sync(hc.h, true); err != nil && !noFolderSync(err) {
		return true, &fs.PathError{Op: "sync", Path: hc.dir, Err: err}
	}
	return true, nil
}
