package vfs

import (
	"os"
	"time"

	"github.com/spf13/afero"
)

// rootFs is an afero.Fs over an *os.Root: every operation is confined to the root by
// the kernel-backed checks of os.Root, symlinks included. afero's BasePathFs is not
// used because a symlink or a sibling directory sharing the root's name prefix
// escapes it.
type rootFs struct{ r *os.Root }

var (
	_ afero.Fs         = rootFs{}
	_ afero.Lstater    = rootFs{}
	_ afero.LinkReader = rootFs{}
	_ afero.Symlinker  = rootFs{}
)

func (f rootFs) Name() string { return "root:" + f.r.Name() }

func (f rootFs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (f rootFs) Mkdir(name string, perm os.FileMode) error    { return f.r.Mkdir(name, perm) }
func (f rootFs) MkdirAll(name string, perm os.FileMode) error { return f.r.MkdirAll(name, perm) }
func (f rootFs) Open(name string) (afero.File, error)         { return f.OpenFile(name, os.O_RDONLY, 0) }

func (f rootFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	file, err := f.r.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // a nil *os.File must not become a non-nil afero.File
	}
	return file, nil
}

func (f rootFs) Remove(name string) error                  { return f.r.Remove(name) }
func (f rootFs) RemoveAll(name string) error               { return f.r.RemoveAll(name) }
func (f rootFs) Rename(oldname, newname string) error      { return f.r.Rename(oldname, newname) }
func (f rootFs) Stat(name string) (os.FileInfo, error)     { return f.r.Stat(name) }
func (f rootFs) Chmod(name string, mode os.FileMode) error { return f.r.Chmod(name, mode) }
func (f rootFs) Chown(name string, uid, gid int) error     { return f.r.Chown(name, uid, gid) }
func (f rootFs) Chtimes(name string, atime, mtime time.Time) error {
	return f.r.Chtimes(name, atime, mtime)
}

func (f rootFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	fi, err := f.r.Lstat(name)
	return fi, true, err
}

func (f rootFs) ReadlinkIfPossible(name string) (string, error) { return f.r.Readlink(name) }

func (f rootFs) SymlinkIfPossible(oldname, newname string) error {
	return f.r.Symlink(oldname, newname)
}
