package vfs

import (
	"errors"
	"io/fs"
	"path"

	"github.com/spf13/afero"
)

// Folders and symlinks as a command leaves them, and as an undo puts them back: each
// operation acts on the one entry at a canonical path, below the root, never through
// a symlink.

// EntryAt says what stands at canonical path p: its kind (KindDir, KindSymlink, ...;
// "" when nothing does), a symlink's target and the permission bits.
func (f *FS) EntryAt(p string) (kind, target string, bits uint32, err error) {
	fi, err := f.lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", 0, nil
	}
	if err != nil {
		return "", "", 0, err
	}
	kind = entryKind(fi.Mode())
	if kind == KindSymlink {
		if target, err = f.readlink(p); err != nil {
			return "", "", 0, err
		}
	}
	return kind, target, PermBits(fi.Mode()), nil
}

// MakeSymlink makes a symlink to target at p, where nothing stands.
func (f *FS) MakeSymlink(target, p string) error {
	l, ok := f.fs.(afero.Symlinker)
	if !ok {
		return &fs.PathError{Op: "symlink", Path: p, Err: errors.ErrUnsupported}
	}
	if err := l.SymlinkIfPossible(target, p); err != nil {
		return err
	}
	return f.syncDir(path.Dir(p))
}

// MakeDir makes the folder p, its parent existing, with the permission bits given.
func (f *FS) MakeDir(p string, bits uint32) error {
	if err := f.fs.Mkdir(p, 0o700); err != nil {
		return err
	}
	if err := f.fs.Chmod(p, FileModeOf(bits)); err != nil {
		return err
	}
	return f.syncDir(path.Dir(p))
}

// SetBits gives the folder or file p the permission bits given.
func (f *FS) SetBits(p string, bits uint32) error { return f.fs.Chmod(p, FileModeOf(bits)) }

// RemoveSymlink removes the symlink at p (not what it points to).
func (f *FS) RemoveSymlink(p string) error {
	if err := f.fs.Remove(p); err != nil {
		return err
	}
	return f.syncDir(path.Dir(p))
}

// ErrNotTheSame is RemoveSpecial's refusal: what stands at the path is not the FIFO
// or socket it was asked to remove.
var ErrNotTheSame = errors.New("not the one recorded")

// SpecialAt says what stands at canonical path p, without following a symlink or
// opening it: its kind ("" when nothing does) and identity.
func (f *FS) SpecialAt(p string) (kind string, id Identity, err error) {
	fi, err := f.lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", Identity{}, nil
	}
	if err != nil {
		return "", Identity{}, err
	}
	return entryKind(fi.Mode()), identityOf(fi), nil
}

// RemoveSpecial removes the FIFO or socket of kind at p if it is the one of
// device dev, inode ino and change time ctime; anything else there is left, and the
// error wraps ErrNotTheSame. It is never opened (a FIFO's open would block). Nothing
// standing there is no error. The look and the removal are two steps: one made in
// the instant between them would go instead.
func (f *FS) RemoveSpecial(p, kind string, dev, ino uint64, ctime int64) error {
	now, id, err := f.SpecialAt(p)
	if err != nil || now == "" {
		return err
	}
	if now != kind || id.Dev != dev || id.Ino != ino || id.Ctime != ctime {
		return &fs.PathError{Op: "remove", Path: p, Err: ErrNotTheSame}
	}
	if err := f.fs.Remove(p); err != nil {
		return err
	}
	return f.syncDir(path.Dir(p))
}
