package vfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// AsidePrefix starts the names under which deleted files wait for their call's commit
// point (SetAside). Like temp files they are hidden, and the workspace walker skips
// them; unlike temp files, they hold a file someone may want back, so the cleanup of
// temp files never removes them.
const AsidePrefix = ".vfsctl-aside-"

// AsideName returns a fresh name in the folder of canonical path p to set the file p
// aside under.
func AsideName(p string) string {
	var rnd [8]byte
	rand.Read(rnd[:])
	return path.Join(path.Dir(p), AsidePrefix+hex.EncodeToString(rnd[:]))
}

// IsAsideOf reports whether aside is a name AsideName could have given for p: in p's
// own folder, the prefix and 16 lowercase hex digits. Recovery acts on no other name,
// whatever a journal says.
func IsAsideOf(aside, p string) bool {
	if aside == "" || path.Dir(aside) != path.Dir(p) {
		return false
	}
	h, ok := strings.CutPrefix(path.Base(aside), AsidePrefix)
	if !ok || len(h) != 16 || strings.ToLower(h) != h {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// SetAside takes the file at canonical path p out of the way by renaming it to aside
// (a name AsideName gave) in the same folder, held by handle: the file keeps its
// inode, and with it its owner, mode, links, times and extended attributes, until
// PutBack renames it back or DropAside removes it. Nothing at aside is replaced. With
// sync the folder is synced after the rename.
func (f *FS) SetAside(p, aside string, sync bool) error {
	return f.renameInFolder(p, aside, sync)
}

// PutBack renames the file set aside at aside back to p, and syncs the folder. It
// refuses (file_exists) when something stands at p now: that is someone else's.
func (f *FS) PutBack(aside, p string) error {
	return f.renameInFolder(aside, p, true)
}

// DropAside removes the file set aside at aside: the deletion's commit point. With sync
// the folder is synced after.
func (f *FS) DropAside(aside string, sync bool) error {
	if !strings.HasPrefix(path.Base(aside), AsidePrefix) {
		return errs.New(errs.InvalidInput, aside, "%s is not a name a file is set aside under.", aside)
	}
	if err := f.fs.Remove(aside); err != nil {
		return f.osError(aside, err)
	}
	if sync {
		return f.syncDir(path.Dir(aside))
	}
	return nil
}

// SameNode reports whether canonical paths a and b are two names of one inode (a
// file set aside by a hard link whose old name could not be removed). Where the
// filesystem has no inode numbers, they are not.
func (f *FS) SameNode(a, b string) bool {
	x, err := f.IdentityOf(a)
	if err != nil || !x.Known() {
		return false
	}
	y, err := f.IdentityOf(b)
	return err == nil && x.Dev == y.Dev && x.Ino == y.Ino
}

// renameInFolder renames from to to, both canonical paths in one folder, never over
// something at to, and with sync syncs the folder.
func (f *FS) renameInFolder(from, to string, sync bool) error {
	dir := path.Dir(from)
	if path.Dir(to) != dir {
		return errs.New(errs.InvalidInput, to, "%s is not in the folder of %s.", to, from)
	}
	d, err := shedding(f, func() (folder, error) { return f.folder(dir) })
	if err != nil {
		return f.osError(from, err)
	}
	defer d.Close()
	err = errNoNoReplace
	if nr, ok := d.(interface{ RenameNoReplace(a, b string) error }); ok {
		err = nr.RenameNoReplace(path.Base(from), path.Base(to))
	}
	if errors.Is(err, errNoNoReplace) {
		// A filesystem without handles (in memory, or a test's wrapper): look, then
		// rename.
		if _, lerr := f.lstat(to); lerr == nil {
			err = &fs.PathError{Op: "rename", Path: to, Err: fs.ErrExist}
		} else {
			err = d.Rename(path.Base(from), path.Base(to))
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return existsError(to)
		}
		return f.osError(from, err)
	}
	if sync {
		if err := d.Sync(); err != nil {
			return f.osError(from, err)
		}
	}
	return nil
}
