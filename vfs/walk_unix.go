//go:build !windows

package vfs

import "io/fs"

// openFolder opens the folder the walk starts at, on the real filesystem: its own
// open of the folder, so that listing it moves no offset another walk shares. On
// another filesystem it is -1: the walk goes by path.
func (w *Walker) openFolder(dir string) (int, error) {
	rf, ok := w.fs.fs.(rootFs)
	if !ok {
		return -1, nil
	}
	dfd, base, err := rf.parent("open", dir)
	if err != nil {
		return -1, err
	}
	fd, err := openDir(dfd, base)
	rf.release(dfd)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}

// openSubfolder opens the folder name in the folder held as d, without following a
// symlink.
func openSubfolder(d int, name string) (int, error) { return openDir(d, name) }
