package vfs

import (
	"errors"
	"io/fs"
)

// openFolder is -1 on Windows: the walk goes by path, and the rootFs opens each
// component relative to its folder's handle, never through a reparse point.
func (w *Walker) openFolder(dir string) (int, error) { return -1, nil }

var errNoDescriptors = errors.New("no folder descriptors on Windows")

// The descriptor-held walk's steps, never reached on Windows (openFolder is -1).
func listAt(fd int, dir string) ([]fs.FileInfo, error) { return nil, errNoDescriptors }
func openSubfolder(d int, name string) (int, error)    { return -1, errNoDescriptors }
func closeFd(fd int)                                   {}
