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
	fi, err := f.fs.Stat(p)
	if err != nil {
		return f.osError(p, err)
	}
	if !fi.Mode().IsRegular() {
		return errs.New(errs.NotAFile, p, "%s is not a regular file.", p)
	}
	if n := Links(fi); n > 1 {
		return errs.New(errs.NotAFile, p, "%s has %d hard links; replacing it would detach it from its other names. Break the link outside vfsctl first, or edit another file.", p, n)
	}
	return f.writeAtomic(p, data, fi)
}

// Create writes a new file at canonical path p, creating missing parent directories.
// It refuses a path that exists in any form, a dangling symlink included. The file
// appears whole (temp file and rename); a file that another program creates at the same
// path between the check and the rename would be replaced: within vfsctl the file's
// queue and the journal's lock rule that out.
func (f *FS) Create(p string, data []byte) error {
	if _, err := f.lstat(p); err == nil {
		return errs.New(errs.FileExists, p, "%s already exists. Use edit_file to change it, or write_file to replace it whole after reading it.", p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return f.osError(p, err)
	}
	dir := path.Dir(p)
	if dir != "." {
		if err := f.fs.MkdirAll(dir, 0o755); err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				return errs.Wrap(errs.NotAFile, p, err, "Cannot create %s: a part of its folder path is a file.", p)
			}
			return f.osError(p, err)
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

func (f *FS) writeAtomic(p string, data []byte, old fs.FileInfo) (err error) {
	dir := path.Dir(p)
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, TempPrefix+hex.EncodeToString(rnd[:]))
	mode := fs.FileMode(0o644)
	if old != nil {
		mode = old.Mode().Perm()
	}
	h, err := f.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return f.osError(p, err)
	}
	defer func() {
		if err != nil {
			f.fs.Remove(tmp)
		}
	}()
	if _, err = h.Write(data); err != nil {
		h.Close()
		return f.osError(p, err)
	}
	if err = h.Sync(); err != nil {
		h.Close()
		return f.osError(p, err)
	}
	if err = h.Close(); err != nil {
		return f.osError(p, err)
	}
	if old != nil {
		// The umask may have narrowed the mode at create; the owner is kept where the
		// process may set it (as root), else the new file is the caller's.
		if err = f.fs.Chmod(tmp, old.Mode().Perm()); err != nil {
			return f.osError(p, err)
		}
		if st, ok := old.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
			f.fs.Chown(tmp, int(st.Uid), int(st.Gid))
		}
	}
	if err = f.fs.Rename(tmp, p); err != nil {
		return f.osError(p, err)
	}
	return f.syncDir(dir)
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
