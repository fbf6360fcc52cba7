package vfs

import (
	"errors"
	"io/fs"
	"path"
	"slices"
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

// Looker looks at, and changes, the entries at canonical paths one after another,
// holding open the folder of the last one and those above it: the next path in that
// folder or below it is reached from there, one folder entered a name, and one above
// it from the folder held there, where EntryAt walks each path from the root. So the
// folders of a chain looked at shallowest first, or deepest first, cost looks in
// proportion to the deepest one's depth, not its square. Each folder is entered as
// Resolve enters it: never through a symlink, never into a reserved name. A folder held
// is used only while it is still where it was entered (folder). Close lets go of the
// folders.
type Looker struct {
	f    *FS
	held []heldDir // each folder above the next, the last the one looked in last
}

type heldDir struct {
	c   cursor
	dir string // "" for the root
}

// maxLooked bounds the folders a Looker holds open: going up past the shallowest one
// held walks down from the root again, holding the deepest maxLooked on the way.
const maxLooked = 64

// Looker returns a Looker of f, holding nothing yet.
func (f *FS) Looker() *Looker { return &Looker{f: f} }

// Close lets go of the folders held.
func (l *Looker) Close() { l.keep(0) }

// keep lets go of all but the n shallowest folders held.
func (l *Looker) keep(n int) {
	for len(l.held) > n {
		l.held[len(l.held)-1].c.close()
		l.held = l.held[:len(l.held)-1]
	}
}

// push holds c, folder dir, below the last one held, letting go of the shallowest
// past maxLooked.
func (l *Looker) push(c cursor, dir string) {
	if len(l.held) == maxLooked {
		l.held[0].c.close()
		l.held = append(l.held[:0], l.held[1:]...)
	}
	l.held = append(l.held, heldDir{c, dir})
}

// within reports whether dir is the folder at or below it, and the rest of its path.
func within(dir, at string) (string, bool) {
	if at == "" {
		return dir, true
	}
	rest, ok := strings.CutPrefix(dir, at)
	return rest, ok && (rest == "" || rest[0] == '/')
}

// placed is a cursor that can tell, in one look, whether the folder it holds is
// still the one at its path below the root (known false where it cannot tell).
type placed interface {
	inPlace() (in, known bool)
}

// folder returns folder dir ("" for the root) held open: entered from the deepest
// one held that it is in or below, else walked from the root.
//
// A folder held, or one above it, may have been moved since it was entered: out of
// the root, a symlink put in its place, so that what is done in it would be done
// outside. So the folder held that dir is entered from, unless it is the root, is
// first checked to be still at its path (placed), in one look. Where it is not, or
// where a change is to be made and that cannot be told, the folders held are let go
// of and dir is walked from the root, as FS's own looks and changes are, which
// refuses the symlink. The check, the folders entered below it and the act that
// follows are steps, as a walk from the root and its act are: a folder can still be
// moved between them. That window is no wider than the walk's, whose folders may be
// moved while it goes down past them to the act.
//
// Where it cannot be told (no /proc, systems other than Linux) a look, not a change,
// is still made from the folder held: no change relies on a look for its safety, as
// each change is walked to itself, and does only what the entry allows: mkdirat where
// nothing stands, unlinkat of an empty folder, fchmodat refusing a symlink.
func (l *Looker) folder(dir string, change bool) (cursor, error) {
	// A path that is not canonical ("/etc", "a/../b", from a record no one should
	// trust) is walked from the root, which refuses it, whatever folder is held.
	if dir != "" && !fs.ValidPath(dir) {
		l.Close()
		at, err := l.f.cursor(dir)
		if err != nil {
			return nil, err
		}
		l.push(at, dir)
		return at, nil
	}
	i := len(l.held) - 1
	for ; i >= 0; i-- {
		if _, ok := within(dir, l.held[i].dir); ok {
			break
		}
	}
	if i >= 0 && l.held[i].dir != "" {
		if p, ok := l.held[i].c.(placed); ok {
			if in, known := p.inPlace(); !in && (known || change) {
				i = -1
			}
		}
	}
	l.keep(i + 1)
	rest := dir
	if i >= 0 {
		rest, _ = within(dir, l.held[i].dir)
	} else {
		root, err := l.f.cursor("")
		if err != nil {
			return nil, err
		}
		l.push(root, "")
	}
	for _, c := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		if c == "" {
			continue
		}
		top := l.held[len(l.held)-1]
		next, err := top.c.enter(c)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.push(next, path.Join(top.dir, c))
	}
	return l.held[len(l.held)-1].c, nil
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
	at, err := l.folder(parentOf(p), false)
	var fi fs.FileInfo
	if err == nil {
		fi, err = at.lstat(path.Base(p))
	}
	if pe, ok := err.(*fs.PathError); ok {
		err = &fs.PathError{Op: "lstat", Path: p, Err: pe.Err}
	}
	return fi, at, err
}

// ReadDir is what afero.ReadDir of folder dir gives (an lstat of each entry, by
// name), read in the folder held where it can be. Where an entry cannot be looked at
// from the folder held (a reserved name), the folder is read by its path instead.
func (l *Looker) ReadDir(dir string) ([]fs.FileInfo, error) {
	if _, ok := l.f.fs.(rootFs); !ok || dir == "." || dir == "" {
		return afero.ReadDir(l.f.fs, dir)
	}
	at, err := l.folder(dir, false)
	if err != nil {
		return nil, err
	}
	names, err := at.names()
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]fs.FileInfo, 0, len(names))
	for _, n := range names {
		fi, err := at.lstat(n)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone since it was listed
		}
		if err != nil {
			return afero.ReadDir(l.f.fs, dir)
		}
		out = append(out, fi)
	}
	return out, nil
}

// IsFolder is FS.IsFolder, from the folder held where it can be.
func (l *Looker) IsFolder(p string) bool {
	fi, err := l.Lstat(p)
	return err == nil && fi.IsDir()
}

// folderWriter is a cursor that changes the entries of the folder it holds, by name.
// Elsewhere (a filesystem without handles) a Looker changes them by their paths.
type folderWriter interface {
	mkdir(name string, perm fs.FileMode) error
	rmdir(name string) error
	chmod(name string, mode fs.FileMode) error
}

// writer returns the folder above p held open, or nil where the FS changes entries
// by their paths.
func (l *Looker) writer(p string) (cursor, folderWriter, error) {
	if _, ok := l.f.fs.(rootFs); !ok || p == "" || p == "." {
		return nil, nil, nil
	}
	at, err := l.folder(parentOf(p), true)
	if err != nil {
		return nil, nil, err
	}
	w, ok := at.(folderWriter)
	if !ok {
		return nil, nil, nil
	}
	return at, w, nil
}

// syncHeldDir syncs folder at, held, which is dir.
func (l *Looker) syncHeldDir(at cursor, dir string) error {
	held, err := syncHeld(at)
	if !held {
		return l.f.syncDir(dir)
	}
	return err
}

// MakeDir is FS.MakeDir, in the folder held where it can be.
func (l *Looker) MakeDir(p string, bits uint32) error {
	at, w, err := l.writer(p)
	if err != nil || w == nil {
		if err == nil {
			err = l.f.MakeDir(p, bits)
		}
		return err
	}
	if err := w.mkdir(path.Base(p), 0o700); err != nil {
		return err
	}
	// The bits are a second change, its folder checked again, as FS.MakeDir walks again.
	if at, w, err = l.writer(p); err == nil {
		err = w.chmod(path.Base(p), FileModeOf(bits))
	}
	if err != nil {
		return err
	}
	return l.syncHeldDir(at, path.Dir(p))
}

// RemoveDir is FS.RemoveDir, in the folder held where it can be.
func (l *Looker) RemoveDir(p string) error {
	at, w, err := l.writer(p)
	if err != nil || w == nil {
		if err == nil {
			err = l.f.RemoveDir(p)
		}
		return err
	}
	if err := w.rmdir(path.Base(p)); err != nil {
		return err
	}
	l.syncHeldDir(at, path.Dir(p))
	return nil
}

// rmdir is FS.rmdir, in the folder held where it can be.
func (l *Looker) rmdir(p string) error {
	_, w, err := l.writer(p)
	if err != nil || w == nil {
		if err == nil {
			err = l.f.rmdir(p)
		}
		return err
	}
	return w.rmdir(path.Base(p))
}

// SetBits is FS.SetBits, in the folder held where it can be.
func (l *Looker) SetBits(p string, bits uint32) error {
	_, w, err := l.writer(p)
	if err != nil || w == nil {
		if err == nil {
			err = l.f.SetBits(p, bits)
		}
		return err
	}
	return w.chmod(path.Base(p), FileModeOf(bits))
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
