package vfs

import (
	"errors"
	"io/fs"
	"path"
	"syscall"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// MoveFile renames the file at canonical path from to canonical path to, in any
// folders of the root: the file keeps its inode, and with it its hard links, owner,
// mode, times and extended attributes. Both folders are reached by handle from the
// root, no symlink followed, and nothing at to is replaced (file_exists). The missing
// folders above to are made first and returned, outermost first; when the rename
// fails they are removed again. With sync, the folders of both names (and the folder
// above each new one) are synced after the rename; a sync that fails returns the
// folders made with its error, the file being at to by then.
func (f *FS) MoveFile(from, to string, sync bool) (made []string, err error) {
	if _, err := f.lstat(to); err == nil {
		return nil, existsError(to)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, f.osError(to, err)
	}
	if dir := path.Dir(to); dir != "." {
		if made, err = f.mkdirs(dir); err != nil {
			f.RemoveDirs(made)
			if errors.Is(err, syscall.ENOTDIR) {
				return nil, errs.Wrap(errs.NotAFile, to, err, "Cannot move a file to %s: a part of its folder path is a file.", to)
			}
			return nil, f.osError(to, err)
		}
	}
	if err := f.rename(from, to); err != nil {
		f.RemoveDirs(made)
		return nil, err
	}
	if !sync {
		return made, nil
	}
	dirs := []string{path.Dir(to)}
	if path.Dir(from) != dirs[0] {
		dirs = append(dirs, path.Dir(from))
	}
	if len(made) > 0 {
		dirs = append(dirs, path.Dir(made[0]))
		dirs = append(dirs, made[:len(made)-1]...)
	}
	for _, d := range dirs {
		if err := f.syncDir(d); err != nil {
			return made, err
		}
	}
	return made, nil
}

// rename renames from to to, never over something at to, each folder held by handle.
func (f *FS) rename(from, to string) error {
	src, err := shedding(f, func() (folder, error) { return f.folder(path.Dir(from)) })
	if err != nil {
		return f.osError(from, err)
	}
	defer src.Close()
	dst, err := shedding(f, func() (folder, error) { return f.folder(path.Dir(to)) })
	if err != nil {
		return f.osError(to, err)
	}
	defer dst.Close()
	err = errNoNoReplace
	a, ok1 := src.(fdFolder)
	b, ok2 := dst.(fdFolder)
	if ok1 && ok2 {
		err = a.MoveTo(path.Base(from), b, path.Base(to))
	}
	if errors.Is(err, errNoNoReplace) {
		// A filesystem without handles (in memory, or a test's wrapper): look, then
		// rename.
		if _, lerr := f.lstat(to); lerr == nil {
			err = &fs.PathError{Op: "rename", Path: to, Err: fs.ErrExist}
		} else {
			err = f.fs.Rename(from, to)
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return existsError(to)
		}
		return f.osError(from, err)
	}
	return nil
}
