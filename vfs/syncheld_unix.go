//go:build !windows

package vfs

import "io/fs"

// syncHeld syncs the folder cursor c holds, by its descriptor; held is false where c
// holds none (a filesystem without handles).
func syncHeld(c cursor) (held bool, err error) {
	fc, ok := c.(fdCursor)
	if !ok {
		return false, nil
	}
	if err := fullSync(fc.fd); err != nil && !noFolderSync(err) {
		return true, &fs.PathError{Op: "sync", Path: fc.dir, Err: err}
	}
	return true, nil
}
