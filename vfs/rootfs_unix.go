//go:build !windows

package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"
	"golang.org/x/sys/unix"
)

func openRootFs(dir string, reserved func(string) bool) (rootFs, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return rootFs{}, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return rootFs{root: os.NewFile(uintptr(fd), dir), reserved: reserved}, nil
}

func (f rootFs) Name() string { return "nofollow:" + f.root.Name() }

// parent opens the folder that holds name's last component, never following a
// symlink, and returns its descriptor (to be given back with release) and that
// component ("." for the root itself). For a name in the root, that is the root's own
// descriptor: no copy of it is made.
func (f rootFs) parent(op, name string) (int, string, error) {
	comps, err := f.split(name)
	if err != nil {
		return -1, "", &fs.PathError{Op: op, Path: name, Err: err}
	}
	fd := int(f.root.Fd())
	if len(comps) == 0 {
		return fd, ".", nil
	}
	for _, c := range comps[:len(comps)-1] {
		next, err := openDir(fd, c)
		f.release(fd)
		if err != nil {
			return -1, "", &fs.PathError{Op: op, Path: name, Err: err}
		}
		fd = next
	}
	return fd, comps[len(comps)-1], nil
}

// release closes a descriptor parent returned, unless it is the root's own.
func (f rootFs) release(fd int) {
	if fd != int(f.root.Fd()) {
		unix.Close(fd)
	}
}

// openDir opens folder name inside dirfd without following a symlink.
func openDir(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.ELOOP, err == unix.ENOTDIR && !isFileAt(dirfd, name):
			// ENOTDIR for what is a folder or a symlink now: it was swapped meanwhile.
			return -1, errSymlinkInPath
		}
		return fd, err
	}
}

// isFileAt reports whether name in dirfd is something other than a folder or a
// symlink (a regular file, a FIFO, ...).
func isFileAt(dirfd int, name string) bool {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	t := st.Mode & unix.S_IFMT
	return t != unix.S_IFDIR && t != unix.S_IFLNK
}

func isSymlinkAt(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// openAt opens name inside dirfd: no symlink followed (openRaw), and only a regular file
// or a folder kept.
func openAt(dirfd int, base, name string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := openRaw(dirfd, base, flag, perm)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if flag&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL {
		return os.NewFile(uintptr(fd), name), nil // made by this open: a regular file
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFREG && t != unix.S_IFDIR {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	unix.SetNonblock(fd, false)
	return os.NewFile(uintptr(fd), name), nil
}

// openRaw is openat for openAt: no symlink followed, and O_NONBLOCK so that a FIFO does
// not block the open, except for a file the open creates (O_EXCL), which cannot be one.
func openRaw(dirfd int, base string, flag int, perm fs.FileMode) (int, error) {
	flag |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	if flag&(unix.O_CREAT|unix.O_EXCL) != unix.O_CREAT|unix.O_EXCL {
		flag |= unix.O_NONBLOCK
	}
	for {
		fd, err := unix.Openat(dirfd, base, flag, uint32(syscallMode(perm)))
		if err == unix.EINTR {
			continue
		}
		if err == unix.ELOOP || (err == unix.ENOTDIR && isSymlinkAt(dirfd, base)) {
			err = ErrSymlinkNow
		}
		return fd, err
	}
}

func (f rootFs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (f rootFs) Open(name string) (afero.File, error) { return f.OpenFile(name, os.O_RDONLY, 0) }

func (f rootFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	dfd, base, err := f.parent("open", name)
	if err != nil {
		return nil, err
	}
	defer f.release(dfd)
	h, err := openAt(dfd, base, name, flag, perm)
	if err != nil {
		return nil, err // a nil *os.File must not become a non-nil afero.File
	}
	return h, nil
}

func (f rootFs) Mkdir(name string, perm os.FileMode) error {
	dfd, base, err := f.parent("mkdir", name)
	if err != nil {
		return err
	}
	defer f.release(dfd)
	if err := unix.Mkdirat(dfd, base, uint32(syscallMode(perm))); err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return nil
}

func (f rootFs) MkdirAll(name string, perm os.FileMode) error {
	_, err := f.mkdirAll(name, perm)
	return err
}

// mkdirAll creates the missing folders of name and returns them, outermost first.
// An existing component must be a real folder: a symlink is refused, not followed.
func (f rootFs) mkdirAll(name string, perm os.FileMode) ([]string, error) {
	comps, err := f.split(name)
	if err != nil {
		return nil, &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	fd, err := unix.Dup(int(f.root.Fd()))
	if err != nil {
		return nil, err
	}
	var made []string
	for i, c := range comps {
		err := unix.Mkdirat(fd, c, uint32(syscallMode(perm)))
		if err == nil {
			made = append(made, strings.Join(comps[:i+1], "/"))
		} else if err != unix.EEXIST {
			unix.Close(fd)
			if err == unix.ENOENT {
				err = errFolderGone // the folder held was removed or moved away meanwhile
			}
			return made, &fs.PathError{Op: "mkdir", Path: name, Err: err}
		}
		next, err := openDir(fd, c)
		unix.Close(fd)
		if err != nil {
			return made, &fs.PathError{Op: "mkdir", Path: name, Err: err}
		}
		fd = next
	}
	unix.Close(fd)
	return made, nil
}

func (f rootFs) Remove(name string) error {
	dfd, base, err := f.parent("remove", name)
	if err != nil {
		return err
	}
	defer f.release(dfd)
	err = unix.Unlinkat(dfd, base, 0)
	if err == unix.EISDIR {
		err = unix.Unlinkat(dfd, base, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

// rmdir removes name only if it is an empty folder (never a symlink or a file).
func (f rootFs) rmdir(name string) error {
	dfd, base, err := f.parent("rmdir", name)
	if err != nil {
		return err
	}
	defer f.release(dfd)
	if err := unix.Unlinkat(dfd, base, unix.AT_REMOVEDIR); err != nil {
		return &fs.PathError{Op: "rmdir", Path: name, Err: err}
	}
	return nil
}

// syncfs syncs the filesystem folder name is on (syncfs(2); where the system has no
// such call, errors.ErrUnsupported), the folder reached as every other path is,
// without following a symlink.
func (f rootFs) syncfs(name string) error {
	dfd, base, err := f.parent("syncfs", name)
	if err != nil {
		return err
	}
	fd := dfd
	if base != "." {
		fd, err = openDir(dfd, base)
		f.release(dfd)
		if err != nil {
			return &fs.PathError{Op: "syncfs", Path: name, Err: err}
		}
		defer unix.Close(fd)
	} else {
		defer f.release(dfd)
	}
	if err := syncFilesystemOf(fd); err != nil {
		return &fs.PathError{Op: "syncfs", Path: name, Err: err}
	}
	return nil
}

func (f rootFs) Rename(oldname, newname string) error {
	ofd, obase, err := f.parent("rename", oldname)
	if err != nil {
		return err
	}
	defer f.release(ofd)
	nfd, nbase, err := f.parent("rename", newname)
	if err != nil {
		return err
	}
	defer f.release(nfd)
	if err := unix.Renameat(ofd, obase, nfd, nbase); err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// Stat does not follow a final symlink: see the type's comment.
func (f rootFs) Stat(name string) (os.FileInfo, error) { return f.lstat("stat", name) }

func (f rootFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	fi, err := f.lstat("lstat", name)
	return fi, true, err
}

func (f rootFs) lstat(op, name string) (os.FileInfo, error) {
	dfd, base, err := f.parent(op, name)
	if err != nil {
		return nil, err
	}
	defer f.release(dfd)
	return lstatAt(dfd, base, name)
}

func lstatAt(dfd int, base, name string) (os.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return &statInfo{name: path.Base(name), st: toSyscall(&st)}, nil
}

// Chmod refuses a symlink: Linux's fchmodat cannot be told not to follow one.
func (f rootFs) Chmod(name string, mode os.FileMode) error {
	dfd, base, err := f.parent("chmod", name)
	if err != nil {
		return err
	}
	defer f.release(dfd)
	if err := chmodAt(dfd, base, uint32(syscallMode(mode))); err != nil {
		return &fs.PathError{Op: "chmod", Path: name, Err: err}
	}
	return nil
}

func (f rootFs) Chown(name string, uid, gid int) error {
	dfd, base, err := f.parent("chown", name)
	if err != nil {
		return err
	}
	defer f.release(dfd)
	if err := unix.Fchownat(dfd, base, uid, gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "chown", Path: name, Err: err}
	}
	return nil
}

func (f rootFs) Chtimes(name string, atime, mtime time.Time) error {
	dfd, base, err := f.parent("chtimes", name)
	if err != nil {
		return err
	}
	defer f.release(dfd)
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	if err := unix.UtimesNanoAt(dfd, base, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "chtimes", Path: name, Err: err}
	}
	return nil
}

func (f rootFs) ReadlinkIfPossible(name string) (string, error) {
	dfd, base, err := f.parent("readlink", name)
	if err != nil {
		return "", err
	}
	defer f.release(dfd)
	return readlinkAt(dfd, base, name)
}

func readlinkAt(dfd int, base, name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dfd, base, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(buf[:n]), nil
}

// cursor opens folder dir, walked from the root as every path is, for Resolve's walk.
func (f rootFs) cursor(dir string) (cursor, error) {
	fd, base, err := f.parent("open", dir)
	if err != nil {
		return nil, err
	}
	if base != "." {
		next, err := openDir(fd, base)
		f.release(fd)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		fd = next
	}
	return fdCursor{f: f, fd: fd, dir: dir}, nil
}

// fdCursor is a folder of the rootFs held open (the root's own descriptor, or one of
// its own). Names given to it are checked as split checks each component of a path.
type fdCursor struct {
	f   rootFs
	fd  int
	dir string // its path, for errors
}

func (c fdCursor) full(name string) string { return path.Join(c.dir, name) }

func (c fdCursor) lstat(name string) (fs.FileInfo, error) {
	if err := c.f.checkName(name); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: c.full(name), Err: err}
	}
	return lstatAt(c.fd, name, c.full(name))
}

func (c fdCursor) readlink(name string) (string, error) {
	if err := c.f.checkName(name); err != nil {
		return "", &fs.PathError{Op: "readlink", Path: c.full(name), Err: err}
	}
	return readlinkAt(c.fd, name, c.full(name))
}

func (c fdCursor) names() ([]string, error) {
	fd, err := unix.Openat(c.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: c.dir, Err: err}
	}
	h := os.NewFile(uintptr(fd), c.dir)
	defer h.Close()
	return h.Readdirnames(-1)
}

func (c fdCursor) enter(name string) (cursor, error) {
	err := c.f.checkName(name)
	fd := -1
	if err == nil {
		fd, err = openDir(c.fd, name)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: c.full(name), Err: err}
	}
	return fdCursor{f: c.f, fd: fd, dir: c.full(name)}, nil
}

func (c fdCursor) close() { c.f.release(c.fd) }

func (f rootFs) SymlinkIfPossible(oldname, newname string) error {
	dfd, base, err := f.parent("symlink", newname)
	if err != nil {
		return err
	}
	defer f.release(dfd)
	if err := unix.Symlinkat(oldname, dfd, base); err != nil {
		return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// openFolder opens the folder dir by handle, for a sequence of operations inside it
// that must all act on the same folder (stage, rename, sync, clean up).
func (f rootFs) openFolder(dir string) (folder, error) {
	dfd, base, err := f.parent("open", dir)
	if err != nil {
		return nil, err
	}
	if base == "." {
		// The folder is closed when done with: a copy of the root's descriptor.
		fd, err := unix.Dup(dfd)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		return fdFolder{fd: fd, name: dir}, nil
	}
	fd, err := openDir(dfd, base)
	f.release(dfd)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fdFolder{fd: fd, name: dir}, nil
}

type fdFolder struct {
	fd   int
	name string
}

func (d fdFolder) full(name string) string { return path.Join(d.name, name) }

func (d fdFolder) OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error) {
	h, err := openAt(d.fd, name, d.full(name), flag, perm)
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (d fdFolder) Rename(oldname, newname string) error {
	if err := unix.Renameat(d.fd, oldname, d.fd, newname); err != nil {
		return &os.LinkError{Op: "rename", Old: d.full(oldname), New: d.full(newname), Err: err}
	}
	return nil
}

// Exchange swaps the entries oldname and newname atomically (renameat2 with
// RENAME_EXCHANGE on Linux, renameatx_np with RENAME_SWAP on macOS): newname then holds what oldname held, and oldname the rest.
// Where the file system cannot, the error is errNoExchange.
func (d fdFolder) Exchange(oldname, newname string) error {
	err := renameAt(d.fd, oldname, newname, renameExchange)
	switch err {
	case nil:
		return nil
	case unix.EINVAL, unix.ENOSYS, unix.EOPNOTSUPP, enotsup:
		return errNoExchange
	}
	return &os.LinkError{Op: "exchange", Old: d.full(oldname), New: d.full(newname), Err: err}
}

// RenameNoReplace renames oldname to newname only if newname does not exist
// (renameat2 with RENAME_NOREPLACE on Linux, renameatx_np with RENAME_EXCL on
// macOS), else fails with an error that is fs.ErrExist.
// Where the file system has no such rename, a hard link does the same, then
// oldname is removed; where it has neither, the error is errNoNoReplace.
func (d fdFolder) RenameNoReplace(oldname, newname string) error {
	return d.MoveTo(oldname, d, newname)
}

// MoveTo is RenameNoReplace into another folder, to, held open as well: oldname in d
// becomes newname in to, the same inode.
func (d fdFolder) MoveTo(oldname string, to fdFolder, newname string) error {
	err := renameBetween(d.fd, oldname, to.fd, newname, renameNoReplace)
	switch err {
	case nil:
		return nil
	case unix.EINVAL, unix.ENOSYS, unix.EOPNOTSUPP, enotsup:
		switch err := unix.Linkat(d.fd, oldname, to.fd, newname, 0); err {
		case nil:
			d.Remove(oldname) // else a second name of the new file: cleaned up with the temp files
			return nil
		case unix.EPERM, unix.EOPNOTSUPP, unix.ENOSYS, enotsup:
			return errNoNoReplace // no hard links here either
		default:
			return &os.LinkError{Op: "link", Old: d.full(oldname), New: to.full(newname), Err: err}
		}
	}
	return &os.LinkError{Op: "rename", Old: d.full(oldname), New: to.full(newname), Err: err}
}

func (d fdFolder) Remove(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: d.full(name), Err: err}
	}
	return nil
}

func (d fdFolder) Sync() error {
	if err := fullSync(d.fd); err != nil && err != unix.EINVAL {
		return &fs.PathError{Op: "sync", Path: d.name, Err: err}
	}
	return nil
}

func (d fdFolder) Close() error { return unix.Close(d.fd) }

// statInfo is an fs.FileInfo from a raw stat, as os.Lstat builds one.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(mtimeOf(&s.st)) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// xattrsAt reads the extended attributes of the regular file name in dirfd, opening it
// without following a symlink. A filesystem without extended attributes has none.
func xattrsAt(dirfd int, name string) ([]xattr, error) {
	// Most files have none: one system call says so, where opening, checking and
	// closing the file took four.
	if noXattrsAt(dirfd, name) {
		return nil, nil
	}
	// A bare descriptor: an *os.File would cost three fcntl calls for one listing.
	fd, err := openRaw(dirfd, name, unix.O_RDONLY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFREG && t != unix.S_IFDIR {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	size, err := unix.Flistxattr(fd, nil)
	if err == unix.ENOTSUP || size == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	n, err := unix.Flistxattr(fd, buf)
	if err != nil {
		return nil, err
	}
	var out []xattr
	for _, a := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		if a == "" {
			continue
		}
		vs, err := unix.Fgetxattr(fd, a, nil)
		if err != nil {
			return nil, err
		}
		v := make([]byte, vs)
		vn, err := unix.Fgetxattr(fd, a, v)
		if err != nil {
			return nil, err
		}
		out = append(out, xattr{name: a, value: v[:vn]})
	}
	return out, nil
}

// errBadName is returned for a name the system would not store as it is: never on
// Linux and macOS (rootfs_windows.go: a colon, NUL, a trailing dot).
var errBadName = errors.New("a name this system does not store as it is")

// checkComponent: every name but "", ".", ".." and one with a NUL or a slash (which
// split has dealt with) is a name the kernel takes literally.
func checkComponent(string) error { return nil }

// closeFd closes a descriptor the walk opened.
func closeFd(fd int) { unix.Close(fd) }
