package vfs

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/spf13/afero"
)

// Folders and symlinks as a command leaves them, and as an undo puts them back: each
// operation acts on the one entry at a canonical path, below the root, never through
// a symlink.

// EntryAt says what stands at canonical path p: its kind (KindDir, KindSymlink, ...;
// "" when nothing does), a symlink's target and the permission bits.
func (f *FS) EntryAt(p string) (kind, target string, bits uint32, err error) {
	l := f.Looker()
	defer l.Close()
	return l.EntryAt(p)
}

// Looker looks at the entries at canonical paths one after another, holding open the
// folder of the last one: the next path in that folder or below it is reached from
// there, one folder entered a name, where EntryAt walks each path from the root. So
// the folders of a chain looked at shallowest first cost looks in proportion to the
// deepest one's depth, not its square. Each folder is entered as Resolve enters it:
// never through a symlink, never into a reserved name. Close lets go of the folder.
// A Looker only reads; a folder moved away while it is held is still looked in, as in
// any walk between its lookups; the writes that follow a look walk from the root.
type Looker struct {
	f     *FS
	at    cursor // the folder atDir, or nil
	atDir string
}

// Looker returns a Looker of f, holding nothing yet.
func (f *FS) Looker() *Looker { return &Looker{f: f} }

// Close lets go of the folder held.
func (l *Looker) Close() {
	if l.at != nil {
		l.at.close()
		l.at = nil
	}
}

// folder returns folder dir ("" for the root) held open: entered from the one held
// where dir is in it, else walked from the root.
func (l *Looker) folder(dir string) (cursor, error) {
	rest, below := strings.CutPrefix(dir, l.atDir)
	// A path that is not canonical ("/etc", "a/../b", from a record no one should
	// trust) is walked from the root, which refuses it, whatever folder is held.
	odd := dir != "" && !fs.ValidPath(dir)
	if l.at == nil || odd || !below || (l.atDir != "" && rest != "" && rest[0] != '/') {
		l.Close()
		at, err := l.f.cursor(dir)
		if err != nil {
			return nil, err
		}
		l.at, l.atDir = at, dir
		return at, nil
	}
	for _, c := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		if c == "" {
			continue
		}
		next, err := l.at.enter(c)
		l.Close()
		if err != nil {
			return nil, err
		}
		l.at, l.atDir = next, path.Join(l.atDir, c)
	}
	return l.at, nil
}

// EntryAt is FS.EntryAt, from the folder held where it can be.
func (l *Looker) EntryAt(p string) (kind, target string, bits uint32, err error) {
	fi, at, err := l.lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", 0, nil
	}
	if err != nil {
		return "", "", 0, err
	}
	kind = entryKind(fi.Mode())
	if kind == KindSymlink {
		if target, err = at.readlink(path.Base(p)); err != nil {
			return "", "", 0, err
		}
	}
	return kind, target, PermBits(fi.Mode()), nil
}

// Lstat is an lstat of canonical path p, from the folder held where it can be.
func (l *Looker) Lstat(p string) (fs.FileInfo, error) {
	fi, _, err := l.lstat(p)
	return fi, err
}

// lstat is an lstat of p in its folder, held; the error names p, as FS.lstat's does.
func (l *Looker) lstat(p string) (fs.FileInfo, cursor, error) {
	if p == "." || p == "" {
		fi, err := l.f.lstat(p) // the root itself, which no folder holds
		return fi, nil, err
	}
	at, err := l.folder(parentOf(p))
	var fi fs.FileInfo
	if err == nil {
		fi, err = at.lstat(path.Base(p))
	}
	if pe, ok := err.(*fs.PathError); ok {
		err = &fs.PathError{Op: "lstat", Path: p, Err: pe.Err}
	}
	return fi, at, err
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
