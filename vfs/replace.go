package vfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// TempPrefix starts the names of temp files; they are hidden and easy to spot if a
// crash ever leaves one behind.
const TempPrefix = ".vfsctl-tmp-"

// Replace atomically replaces the existing regular file at canonical path p with data,
// keeping its mode and, where permitted, its owner. The steps are those of renameio,
// done through the confined afero.Fs rather than host paths: the temp file lives in the
// target's own directory (rename is atomic only within one filesystem), is fsynced
// before the rename (else a crash can leave the new name pointing at empty data), and
// the directory is fsynced after it (else the rename itself can be lost).
func (f *FS) Replace(p string, data []byte) error {
	_, err := f.ReplaceID(p, data)
	return err
}

// ReplaceID is Replace, returning the identity of the new file as written (before the
// rename, so that a change by someone else after it cannot be mistaken for ours).
func (f *FS) ReplaceID(p string, data []byte) (Identity, error) {
	fi, err := f.checkReplace(p)
	if err != nil {
		return Identity{}, err
	}
	return f.writeAtomic(p, data, fi)
}

// checkReplace refuses what cannot be replaced: not a regular file, read-only, or
// with other hard links.
func (f *FS) checkReplace(p string) (fs.FileInfo, error) {
	fi, err := f.fs.Stat(p)
	if err != nil {
		return nil, f.osError(p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errs.New(errs.NotAFile, p, "%s is not a regular file.", p)
	}
	if !writable(fi) {
		return nil, errs.New(errs.PermissionDenied, p, "%s is read-only (mode %v); nothing was written.", p, fi.Mode().Perm())
	}
	if n := Links(fi); n > 1 {
		return nil, errs.New(errs.NotAFile, p, "%s has %d hard links; replacing it would detach it from its other names. Break the link outside vfsctl first, or edit another file.", p, n)
	}
	return fi, nil
}

// Create writes a new file at canonical path p, creating missing parent directories.
// It refuses a path that exists in any form, a dangling symlink included. The file
// appears whole (temp file and rename); a file that another program creates at the same
// path between the check and the rename would be replaced: within vfsctl the file's
// queue and the journal's lock rule that out.
func (f *FS) Create(p string, data []byte) error {
	_, err := f.CreateID(p, data)
	return err
}

// CreateID is Create, returning the identity of the new file as written.
func (f *FS) CreateID(p string, data []byte) (Identity, error) {
	if _, err := f.lstat(p); err == nil {
		return Identity{}, errs.New(errs.FileExists, p, "%s already exists. Use edit_file to change it, or write_file to replace it whole after reading it.", p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Identity{}, f.osError(p, err)
	}
	dir := path.Dir(p)
	if dir != "." {
		if err := f.fs.MkdirAll(dir, 0o755); err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				return Identity{}, errs.Wrap(errs.NotAFile, p, err, "Cannot create %s: a part of its folder path is a file.", p)
			}
			return Identity{}, f.osError(p, err)
		}
	}
	return f.writeAtomic(p, data, nil)
}

// Remove deletes the file at canonical path p and syncs its directory (undo of a create).
func (f *FS) Remove(p string) error {
	if err := f.fs.Remove(p); err != nil {
		return f.osError(p, err)
	}
	return f.syncDir(path.Dir(p))
}

func (f *FS) writeAtomic(p string, data []byte, old fs.FileInfo) (Identity, error) {
	st, err := f.stage(p, data, old)
	if err != nil {
		return Identity{}, err
	}
	return st.Commit()
}

// Staged is new content written beside its file (a temp file in the same directory,
// fsynced, with the file's mode and owner), waiting to be renamed over it. Staging
// does not touch the file, so a caller may stage while it makes its journal record
// durable and rename only after that (Commit), or give up (Abort).
type Staged struct {
	f         *FS
	path, tmp string
	id        Identity
	done      bool
}

// StageReplace stages data as the new content of the existing regular file p.
func (f *FS) StageReplace(p string, data []byte) (*Staged, error) {
	fi, err := f.checkReplace(p)
	if err != nil {
		return nil, err
	}
	return f.stage(p, data, fi)
}

func (f *FS) stage(p string, data []byte, old fs.FileInfo) (st *Staged, err error) {
	dir := path.Dir(p)
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, TempPrefix+hex.EncodeToString(rnd[:]))
	mode := fs.FileMode(0o644)
	if old != nil {
		mode = old.Mode().Perm()
	}
	if f.onTemp != nil {
		f.onTemp(tmp)
	}
	h, err := f.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return nil, f.osError(p, err)
	}
	staged := false
	defer func() {
		if !staged { // an error, or a panic unwinding through here
			f.fs.Remove(tmp)
		}
	}()
	st = &Staged{f: f, path: p, tmp: tmp}
	if _, err = h.Write(data); err != nil {
		h.Close()
		return nil, f.osError(p, err)
	}
	if err = h.Sync(); err != nil {
		h.Close()
		return nil, f.osError(p, err)
	}
	if fi, serr := h.Stat(); serr == nil {
		st.id = identityOf(fi)
	}
	if err = h.Close(); err != nil {
		return nil, f.osError(p, err)
	}
	if old != nil {
		// The umask may have narrowed the mode at create. The owner and group are kept
		// too: a replaced file that changed hands would be a change no one asked for,
		// so when they cannot be kept the call is refused.
		if err = f.fs.Chmod(tmp, old.Mode().Perm()); err != nil {
			return nil, f.osError(p, err)
		}
		if err = f.keepOwner(p, tmp, old); err != nil {
			return nil, err
		}
	}
	staged = true
	return st, nil
}

// Commit renames the staged content over its file and syncs the directory. It returns
// the identity of the new file as written (before the rename, so that a change by
// someone else after it cannot be mistaken for ours).
func (s *Staged) Commit() (Identity, error) {
	if s.done {
		return Identity{}, errs.New(errs.IOError, s.path, "%s: staged content was already used.", s.path)
	}
	s.done = true
	if err := s.f.fs.Rename(s.tmp, s.path); err != nil {
		s.f.fs.Remove(s.tmp)
		return Identity{}, s.f.osError(s.path, err)
	}
	return s.id, s.f.syncDir(path.Dir(s.path))
}

// Abort removes staged content that will not be used.
func (s *Staged) Abort() {
	if s != nil && !s.done {
		s.done = true
		s.f.fs.Remove(s.tmp)
	}
}

// syncDir makes a rename in dir durable.
func (f *FS) syncDir(dir string) error {
	h, err := f.fs.Open(dir)
	if err != nil {
		return f.osError(dir, err)
	}
	defer h.Close()
	if err := h.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return f.osError(dir, err)
	}
	return nil
}

// keepOwner gives tmp the owner and group of old, where they differ.
func (f *FS) keepOwner(p, tmp string, old fs.FileInfo) error {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil // a filesystem without owners (in memory)
	}
	fi, err := f.fs.Stat(tmp)
	if err != nil {
		return f.osError(p, err)
	}
	if have, ok := fi.Sys().(*syscall.Stat_t); ok && have.Uid == want.Uid && have.Gid == want.Gid {
		return nil
	}
	if err := f.fs.Chown(tmp, int(want.Uid), int(want.Gid)); err != nil {
		return errs.Wrap(errs.PermissionDenied, p, err, "%s belongs to user %d, group %d, and its replacement could not be given the same owner (%v); nothing was written.", p, want.Uid, want.Gid, err)
	}
	return nil
}

// CheckWritable refuses a file whose mode grants no write permission: to the process's
// user, or when running as root (as agent sandboxes often do) to anyone. Its owner
// marked it read-only, and an edit tool must not override that, although a rename
// over it would succeed.
func (f *FS) CheckWritable(r *Resolved) error {
	if r.Info == nil || writable(r.Info) {
		return nil
	}
	return errs.New(errs.PermissionDenied, r.Name, "%s is read-only (mode %v); the file tools do not change read-only files. Leave it as it is, or ask the user to make it writable.", r.Name, r.Info.Mode().Perm())
}

func writable(fi fs.FileInfo) bool {
	perm := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return perm&0o200 != 0
	}
	euid := os.Geteuid()
	switch {
	case euid == 0:
		return perm&0o222 != 0
	case int(st.Uid) == euid:
		return perm&0o200 != 0
	case inGroup(int(st.Gid)):
		return perm&0o020 != 0
	}
	return perm&0o002 != 0
}

func inGroup(gid int) bool {
	if os.Getegid() == gid {
		return true
	}
	groups, _ := os.Getgroups()
	for _, g := range groups {
		if g == gid {
			return true
		}
	}
	return false
}
