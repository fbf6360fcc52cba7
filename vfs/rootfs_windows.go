package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"

	"github.com/spf13/afero"
	"golang.org/x/sys/windows"

	"github.com/vfsctl/vfsctl/internal/winfs"
)

// The Windows rootFs: the same walk by handle as rootfs_unix.go, with NtCreateFile
// relative to the folder's handle and FILE_OPEN_REPARSE_POINT (internal/winfs) for
// openat with O_NOFOLLOW. A reparse point (a symbolic link, a junction, a mount
// point) is never followed: met as a folder of a path it is errSymlinkInPath, as the
// file itself ErrSymlinkNow, and Resolve does not follow one either (readlink fails
// with errReparse). Renames and deletions go through a handle of the entry, its new
// name relative to its folder's handle.

// errReparse is readlink's error on Windows: vfsctl follows no reparse point there.
var errReparse = errors.New("a symbolic link or junction, which vfsctl does not follow on Windows")

func openRootFs(dir string, reserved func(string) bool) (rootFs, error) {
	h, err := winfs.OpenRoot(dir)
	if err != nil {
		return rootFs{}, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return rootFs{root: os.NewFile(uintptr(h), dir), reserved: reserved}, nil
}

func (f rootFs) Name() string { return "nofollow:" + f.root.Name() }

// checkComponent refuses a name Windows would not store as it is (winfs.CheckName).
func checkComponent(c string) error {
	return winfs.CheckName(c)
}

// errBadName is what checkComponent refuses.
var errBadName = winfs.ErrBadName

func (f rootFs) rootHandle() winfs.Handle { return winfs.Handle(f.root.Fd()) }

// parent opens the folder that holds name's last component, as on Unix.
func (f rootFs) parent(op, name string) (winfs.Handle, string, error) {
	comps, err := f.split(name)
	if err != nil {
		return 0, "", &fs.PathError{Op: op, Path: name, Err: err}
	}
	h := f.rootHandle()
	if len(comps) == 0 {
		return h, ".", nil
	}
	for _, c := range comps[:len(comps)-1] {
		next, err := openDir(h, c)
		f.release(h)
		if err != nil {
			return 0, "", &fs.PathError{Op: op, Path: name, Err: err}
		}
		h = next
	}
	return h, comps[len(comps)-1], nil
}

// release closes a handle parent returned, unless it is the root's own.
func (f rootFs) release(h winfs.Handle) {
	if h != f.rootHandle() {
		winfs.Close(h)
	}
}

// openDir opens folder name inside dir; a reparse point there is errSymlinkInPath.
func openDir(dir winfs.Handle, name string) (winfs.Handle, error) {
	h, err := winfs.OpenAt(dir, name, winfs.ReadDir, windows.FILE_OPEN, windows.FILE_DIRECTORY_FILE, 0)
	if err == winfs.ErrNotDir {
		if in, lerr := winfs.Lstat(dir, name); lerr == nil && in.Reparse() {
			return 0, errSymlinkInPath
		}
	}
	if err != nil {
		return 0, err
	}
	in, err := winfs.Stat(h)
	if err == nil && in.Reparse() {
		err = errSymlinkInPath
	}
	if err != nil {
		winfs.Close(h)
		return 0, err
	}
	return h, nil
}

// file is an open file of the rootFs: Stat reports the volume and file index, which
// vfs takes identities from (os.File's Stat on Windows does not carry them).
type file struct{ *os.File }

func (h file) Stat() (os.FileInfo, error) {
	in, err := winfs.Stat(winfs.Handle(h.Fd()))
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: h.Name(), Err: err}
	}
	return in.Named(path.Base(h.Name())), nil
}

// Readdir lists the folder with each entry's winfs.Info, read through the folder's
// handle: os.File's own listing carries no file index or change time, and without
// them a walk knows no identity, so every snapshot of an exec hashed every file
// again. An entry gone since it was listed is left out, as if listed a moment later.
func (h file) Readdir(count int) ([]os.FileInfo, error) {
	list, err := h.File.Readdir(count)
	out := list[:0]
	for _, fi := range list {
		in, lerr := winfs.Lstat(winfs.Handle(h.Fd()), fi.Name())
		if errors.Is(lerr, fs.ErrNotExist) {
			continue
		}
		if lerr != nil {
			out = append(out, fi) // its identity unknown: read again, never trusted
			continue
		}
		out = append(out, in)
	}
	return out, err
}

// Sync flushes the file (FlushFileBuffers); a folder's, which a handle open for
// listing cannot flush, is logged by NTFS itself (winfs.Sync).
func (h file) Sync() error {
	in, err := winfs.Stat(winfs.Handle(h.Fd()))
	if err == nil {
		err = winfs.Sync(winfs.Handle(h.Fd()), in.IsDir())
	}
	if err != nil {
		return &fs.PathError{Op: "sync", Path: h.Name(), Err: err}
	}
	return nil
}

// openAt opens base inside dir: no reparse point followed, only a regular file or a
// folder kept, and a file truncated (O_TRUNC) only once it is known to be one.
func openAt(dir winfs.Handle, base, name string, flag int, perm fs.FileMode) (afero.File, error) {
	access := winfs.Access(flag, windows.FILE_READ_ATTRIBUTES)
	disposition := uint32(windows.FILE_OPEN)
	var options uint32
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		disposition, options = windows.FILE_CREATE, windows.FILE_NON_DIRECTORY_FILE
	case flag&os.O_CREATE != 0:
		disposition = windows.FILE_OPEN_IF
	}
	var attrs uint32
	if perm&0o222 == 0 && flag&os.O_CREATE != 0 {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	h, err := winfs.OpenAt(dir, base, access, disposition, options, attrs)
	if err == winfs.ErrNotDir || err == syscall.EISDIR {
		err = syscall.EISDIR
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	in, err := winfs.Stat(h)
	switch {
	case err != nil:
	case in.Reparse():
		err = ErrSymlinkNow
	case in.IsDir() && flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_TRUNC) != 0:
		err = syscall.EISDIR
	case !in.IsDir() && !in.Regular():
		err = ErrNotRegular
	case flag&os.O_TRUNC != 0 && in.Length > 0:
		err = windows.SetEndOfFile(h)
	}
	if err != nil {
		winfs.Close(h)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return file{os.NewFile(uintptr(h), name)}, nil
}

func (f rootFs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (f rootFs) Open(name string) (afero.File, error) { return f.OpenFile(name, os.O_RDONLY, 0) }

func (f rootFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	dh, base, err := f.parent("open", name)
	if err != nil {
		return nil, err
	}
	defer f.release(dh)
	if base == "." {
		return f.reopenRoot(name, flag)
	}
	return openAt(dh, base, name, flag, perm)
}

// reopenRoot opens the root folder itself for reading (Open("") or Open(".")): a new
// handle to the folder the root's handle is.
func (f rootFs) reopenRoot(name string, flag int) (afero.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_TRUNC|os.O_CREATE) != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	h, err := winfs.Reopen(f.rootHandle(), winfs.ReadDir) // a listing of its own
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return file{os.NewFile(uintptr(h), f.root.Name())}, nil
}

func (f rootFs) Mkdir(name string, perm os.FileMode) error {
	dh, base, err := f.parent("mkdir", name)
	if err != nil {
		return err
	}
	defer f.release(dh)
	if err := winfs.Mkdir(dh, base, false); err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return nil
}

func (f rootFs) MkdirAll(name string, perm os.FileMode) error {
	_, err := f.mkdirAll(name, perm)
	return err
}

// mkdirAll creates the missing folders of name and returns them, outermost first.
// An existing component must be a real folder: a reparse point is refused.
func (f rootFs) mkdirAll(name string, perm os.FileMode) ([]string, error) {
	comps, err := f.split(name)
	if err != nil {
		return nil, &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	h := f.rootHandle()
	var made []string
	for i, c := range comps {
		err := winfs.Mkdir(h, c, false)
		if err == nil {
			made = append(made, joinComps(comps[:i+1]))
		} else if !errors.Is(err, fs.ErrExist) {
			f.release(h)
			if errors.Is(err, fs.ErrNotExist) || err == windows.ERROR_ACCESS_DENIED && gone(h) {
				err = errFolderGone
			}
			return made, &fs.PathError{Op: "mkdir", Path: name, Err: err}
		}
		next, err := openDir(h, c)
		f.release(h)
		if err != nil {
			return made, &fs.PathError{Op: "mkdir", Path: name, Err: err}
		}
		h = next
	}
	f.release(h)
	return made, nil
}

// gone reports whether the folder held at h was deleted (its deletion pending).
func gone(h winfs.Handle) bool {
	_, err := winfs.Stat(h)
	return err != nil
}

func joinComps(c []string) string { return path.Join(c...) }

func (f rootFs) Remove(name string) error {
	dh, base, err := f.parent("remove", name)
	if err != nil {
		return err
	}
	defer f.release(dh)
	if err := winfs.DeleteAt(dh, base, winfs.AnyKind); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

// rmdir removes name only if it is an empty folder (a reparse point goes as itself).
func (f rootFs) rmdir(name string) error {
	dh, base, err := f.parent("rmdir", name)
	if err != nil {
		return err
	}
	defer f.release(dh)
	if err := winfs.DeleteAt(dh, base, winfs.DirOnly); err != nil {
		return &fs.PathError{Op: "rmdir", Path: name, Err: err}
	}
	return nil
}

// syncfs: Windows has no call that syncs a file system's files without a volume
// handle, which only an administrator gets.
func (f rootFs) syncfs(name string) error {
	return &fs.PathError{Op: "syncfs", Path: name, Err: errors.ErrUnsupported}
}

func (f rootFs) Rename(oldname, newname string) error {
	oh, obase, err := f.parent("rename", oldname)
	if err != nil {
		return err
	}
	defer f.release(oh)
	nh, nbase, err := f.parent("rename", newname)
	if err != nil {
		return err
	}
	defer f.release(nh)
	h, err := winfs.OpenAt(oh, obase, winfs.Delete, windows.FILE_OPEN, 0, 0)
	if err == nil {
		err = winfs.Rename(h, nh, nbase, true)
		winfs.Close(h)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// Stat does not follow a final reparse point: see the type's comment.
func (f rootFs) Stat(name string) (os.FileInfo, error) { return f.lstat("stat", name) }

func (f rootFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	fi, err := f.lstat("lstat", name)
	return fi, true, err
}

func (f rootFs) lstat(op, name string) (os.FileInfo, error) {
	dh, base, err := f.parent(op, name)
	if err != nil {
		return nil, err
	}
	defer f.release(dh)
	if base == "." {
		in, err := winfs.Stat(dh)
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		return in.Named("."), nil
	}
	in, err := winfs.Lstat(dh, base)
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return in.Named(path.Base(name)), nil
}

// Chmod sets or clears the read-only attribute, the one permission Windows keeps in
// a file's mode; a reparse point is refused.
func (f rootFs) Chmod(name string, mode os.FileMode) error {
	return f.withHandle("chmod", name, winfs.WriteAttrs, func(h winfs.Handle) error {
		return winfs.SetReadOnly(h, mode&0o222 == 0)
	})
}

// withHandle runs do on name opened with access, refusing a reparse point.
func (f rootFs) withHandle(op, name string, access uint32, do func(winfs.Handle) error) error {
	dh, base, err := f.parent(op, name)
	if err != nil {
		return err
	}
	defer f.release(dh)
	h, err := winfs.OpenAt(dh, base, access, windows.FILE_OPEN, 0, 0)
	if err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	defer winfs.Close(h)
	in, err := winfs.Stat(h)
	if err == nil && in.Reparse() {
		err = ErrSymlinkNow
	}
	if err == nil {
		err = do(h)
	}
	if err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

// Chown: a file's owner on Windows is a security identifier, not a uid.
func (f rootFs) Chown(name string, uid, gid int) error {
	return &fs.PathError{Op: "chown", Path: name, Err: errors.ErrUnsupported}
}

func (f rootFs) Chtimes(name string, atime, mtime time.Time) error {
	return f.withHandle("chtimes", name, winfs.WriteAttrs, func(h winfs.Handle) error {
		return winfs.SetTimes(h, atime, mtime)
	})
}

// ReadlinkIfPossible fails: on Windows a reparse point in the workspace is not
// followed (Resolve refuses the path).
func (f rootFs) ReadlinkIfPossible(name string) (string, error) {
	return "", &fs.PathError{Op: "readlink", Path: name, Err: errReparse}
}

// cursor opens folder dir, walked from the root as every path is, for Resolve's walk.
func (f rootFs) cursor(dir string) (cursor, error) {
	h, base, err := f.parent("open", dir)
	if err != nil {
		return nil, err
	}
	if base != "." {
		next, err := openDir(h, base)
		f.release(h)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		h = next
	}
	return handleCursor{f: f, h: h, dir: dir}, nil
}

// handleCursor is a folder of the rootFs held open (the root's own handle, or one of
// its own). Names given to it are checked as split checks each component of a path.
type handleCursor struct {
	f   rootFs
	h   winfs.Handle
	dir string // its path, for errors
}

func (c handleCursor) full(name string) string { return path.Join(c.dir, name) }

func (c handleCursor) lstat(name string) (fs.FileInfo, error) {
	err := c.f.checkName(name)
	var in *winfs.Info
	if err == nil {
		in, err = winfs.Lstat(c.h, name)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: c.full(name), Err: err}
	}
	return in.Named(name), nil
}

func (c handleCursor) readlink(name string) (string, error) {
	return "", &fs.PathError{Op: "readlink", Path: c.full(name), Err: errReparse}
}

func (c handleCursor) names() ([]string, error) {
	h, err := winfs.Reopen(c.h, winfs.ReadDir)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: c.dir, Err: err}
	}
	d := os.NewFile(uintptr(h), c.dir)
	defer d.Close()
	return d.Readdirnames(-1)
}

func (c handleCursor) enter(name string) (cursor, error) {
	err := c.f.checkName(name)
	var h winfs.Handle
	if err == nil {
		h, err = openDir(c.h, name)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: c.full(name), Err: err}
	}
	return handleCursor{f: c.f, h: h, dir: c.full(name)}, nil
}

func (c handleCursor) close() { c.f.release(c.h) }

func (f rootFs) SymlinkIfPossible(oldname, newname string) error {
	return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: errors.ErrUnsupported}
}

// openFolder opens the folder dir by handle, for a sequence of operations inside it.
func (f rootFs) openFolder(dir string) (folder, error) {
	dh, base, err := f.parent("open", dir)
	if err != nil {
		return nil, err
	}
	if base == "." {
		var h windows.Handle
		p := windows.CurrentProcess()
		if err := windows.DuplicateHandle(p, dh, p, &h, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
			return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		return fdFolder{fd: h, name: dir}, nil
	}
	h, err := openDir(dh, base)
	f.release(dh)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fdFolder{fd: h, name: dir}, nil
}

type fdFolder struct {
	fd   winfs.Handle
	name string
}

func (d fdFolder) full(name string) string { return path.Join(d.name, name) }

func (d fdFolder) OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error) {
	return openAt(d.fd, name, d.full(name), flag, perm)
}

func (d fdFolder) Rename(oldname, newname string) error {
	if err := winfs.RenameAt(d.fd, oldname, newname, true); err != nil {
		return &os.LinkError{Op: "rename", Old: d.full(oldname), New: d.full(newname), Err: err}
	}
	return nil
}

// Exchange: Windows cannot swap two entries.
func (d fdFolder) Exchange(oldname, newname string) error { return errNoExchange }

// RenameNoReplace renames oldname to newname only if newname does not exist, else
// fails with an error that is fs.ErrExist (FileRenameInformation without
// ReplaceIfExists).
func (d fdFolder) RenameNoReplace(oldname, newname string) error {
	if err := winfs.RenameAt(d.fd, oldname, newname, false); err != nil {
		return &os.LinkError{Op: "rename", Old: d.full(oldname), New: d.full(newname), Err: err}
	}
	return nil
}

// MoveTo is RenameNoReplace into another folder, to, held open as well: oldname in d
// becomes newname in to, the same file (FileRenameInformation with to's handle as
// the root of the new name).
func (d fdFolder) MoveTo(oldname string, to fdFolder, newname string) error {
	h, err := winfs.OpenAt(d.fd, oldname, winfs.Delete, windows.FILE_OPEN, 0, 0)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: d.full(oldname), New: to.full(newname), Err: err}
	}
	defer windows.CloseHandle(h)
	if err := winfs.Rename(h, to.fd, newname, false); err != nil {
		return &os.LinkError{Op: "rename", Old: d.full(oldname), New: to.full(newname), Err: err}
	}
	return nil
}

func (d fdFolder) Remove(name string) error {
	if err := winfs.DeleteAt(d.fd, name, winfs.FileOnly); err != nil {
		return &fs.PathError{Op: "remove", Path: d.full(name), Err: err}
	}
	return nil
}

func (d fdFolder) Sync() error {
	if err := winfs.Sync(d.fd, true); err != nil {
		return &fs.PathError{Op: "sync", Path: d.name, Err: err}
	}
	return nil
}

func (d fdFolder) Close() error { return winfs.Close(d.fd) }

// xattrsAt: Windows has no extended attributes vfsctl could copy. What a copy of a
// file's data loses there is its alternate data streams (the "mark of the web"
// among them): keepMeta refuses to replace a file that has any (streamsAt).
func xattrsAt(dir winfs.Handle, name string) ([]xattr, error) {
	h, err := winfs.OpenAt(dir, name, winfs.ReadAttrs, windows.FILE_OPEN, windows.FILE_NON_DIRECTORY_FILE, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer winfs.Close(h)
	streams, err := winfs.Streams(h)
	if err != nil {
		return nil, err
	}
	var out []xattr
	for _, s := range streams {
		out = append(out, xattr{name: s})
	}
	return out, nil
}
