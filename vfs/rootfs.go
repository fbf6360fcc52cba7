package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/spf13/afero"
)

// rootFs is an afero.Fs over a directory handle. Every operation walks its path from
// the root's handle one component at a time with openat and O_NOFOLLOW, refusing a
// symlink anywhere in the path (the final component included), a reserved name at any
// depth, "..", and, when opening, anything that is not a regular file or a folder.
//
// Paths reaching it are canonical (vfs.Resolve has followed every symlink), so a
// symlink found on the way means the tree changed since: a folder swapped for a link
// to .git or outside the root is refused here, not followed. Stat does not follow a
// final symlink either; it is Lstat. os.Root is not used because it follows symlinks
// that stay inside the root, into reserved folders included.
type rootFs struct {
	root     *os.File // the workspace folder, opened once by its host path
	reserved func(name string) bool
}

var (
	_ afero.Fs         = rootFs{}
	_ afero.Lstater    = rootFs{}
	_ afero.LinkReader = rootFs{}
	_ afero.Symlinker  = rootFs{}
)

// errSymlinkInPath is returned where a folder of a path that was resolved is a symlink
// now; ErrSymlinkNow where the file itself is (never followed).
var (
	errSymlinkInPath = errors.New("a folder in the path is a symlink now")
	ErrSymlinkNow    = errors.New("the file is a symlink now")
)

// errFolderGone is returned where a folder of a path, held open, was removed or moved
// away meanwhile (an undo removing the empty folders its create had made).
var errFolderGone = errors.New("a folder in the path was removed or moved meanwhile")

// errReservedInPath is returned for a reserved name in a path given to the filesystem.
var errReservedInPath = errors.New("path goes through a reserved folder")

// errEscapes is returned for a path that leaves the root; osError maps it to
// path_outside_root.
var errEscapes = errors.New("path escapes from parent")

// ErrRoot is the cause of a not_a_file refusal for a path that names the workspace root
// itself: a caller that lists folders takes it as the root.
var ErrRoot = errors.New("the workspace root")

// ErrNotRegular is returned when opening something that is neither a regular file nor
// a folder (a FIFO would block the open, a device could be endless).
var ErrNotRegular = errors.New("not a regular file")

// Replaced reports whether err, met opening or syncing a path that was written
// before, says that the path is gone or that something else stands there now: a
// symlink, a FIFO, a folder swapped for a symlink, a file where a folder was.
func Replaced(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotRegular) || errors.Is(err, ErrSymlinkNow) ||
		errors.Is(err, errSymlinkInPath) || errors.Is(err, errFolderGone) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP)
}

// split returns the components of a relative slash path; "" and "." are the root.
func (f rootFs) split(name string) ([]string, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, syscall.EINVAL
	}
	if path.IsAbs(name) {
		return nil, errEscapes
	}
	var out []string
	for _, c := range strings.Split(name, "/") {
		if c == "" || c == "." {
			continue
		}
		if err := f.checkName(c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// checkName refuses what split refuses of one component: "..", a reserved name, a
// name the system would not store as it is.
func (f rootFs) checkName(c string) error {
	if c == ".." {
		return errEscapes
	}
	if f.reserved != nil && f.reserved(c) {
		return errReservedInPath
	}
	return checkComponent(c)
}

// RemoveAll is not offered: nothing in vfsctl removes a tree, and a recursive removal
// on a tree someone else can change is its own race.
func (f rootFs) RemoveAll(name string) error {
	return &fs.PathError{Op: "removeall", Path: name, Err: errors.ErrUnsupported}
}

// folder is one folder held open: names given to it are single components.
type folder interface {
	OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
	Sync() error
	Close() error
}

// errNoExchange: the folder's file system cannot exchange two entries.
var errNoExchange = errors.New("no exchange of entries here")

// errNoNoReplace: the folder's file system cannot rename without replacing.
var errNoNoReplace = errors.New("no rename without replacing here")

// pathFolder is a folder of a filesystem without handles (in memory, or a wrapper
// that injects faults): each operation names the folder again.
type pathFolder struct {
	fs   afero.Fs
	name string
}

func (d pathFolder) full(name string) string { return path.Join(d.name, name) }

func (d pathFolder) OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error) {
	return d.fs.OpenFile(d.full(name), flag, perm)
}
func (d pathFolder) Rename(oldname, newname string) error {
	return d.fs.Rename(d.full(oldname), d.full(newname))
}
func (d pathFolder) Remove(name string) error { return d.fs.Remove(d.full(name)) }

func (d pathFolder) Sync() error {
	h, err := d.fs.Open(d.name)
	if err != nil {
		return err
	}
	defer h.Close()
	if err := h.Sync(); err != nil && !noFolderSync(err) {
		return err
	}
	return nil
}

func (d pathFolder) Close() error { return nil }

// cursor is a folder Resolve's walk stands in, held open: each step looks up one name
// in it. A lookup by path walks every folder above from the root again, so that a path
// d folders deep cost d² lookups.
type cursor interface {
	lstat(name string) (fs.FileInfo, error)
	readlink(name string) (string, error)
	names() ([]string, error)
	// enter opens folder name inside, never following a symlink.
	enter(name string) (cursor, error)
	close()
}

// pathCursor is a cursor of a filesystem without handles: each look names the path.
type pathCursor struct {
	fs  afero.Fs
	dir string
}

func (c pathCursor) full(name string) string { return path.Join(c.dir, name) }

func (c pathCursor) lstat(name string) (fs.FileInfo, error) { return lstatIn(c.fs, c.full(name)) }

func (c pathCursor) readlink(name string) (string, error) { return readlinkIn(c.fs, c.full(name)) }

func (c pathCursor) names() ([]string, error) {
	dir := c.dir
	if dir == "" {
		dir = "."
	}
	h, err := c.fs.Open(dir)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return h.Readdirnames(-1)
}

func (c pathCursor) enter(name string) (cursor, error) {
	fi, err := c.lstat(name)
	if err == nil && !fi.IsDir() {
		err = &fs.PathError{Op: "open", Path: c.full(name), Err: syscall.ENOTDIR}
	}
	if err != nil {
		return nil, err
	}
	return pathCursor{fs: c.fs, dir: c.full(name)}, nil
}

func (c pathCursor) close() {}

// syscallMode converts a FileMode to the mode bits of open, mkdir and chmod, the
// setuid, setgid and sticky bits included.
func syscallMode(m fs.FileMode) uint32 {
	o := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		o |= syscall.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		o |= syscall.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		o |= syscall.S_ISVTX
	}
	return o
}

type xattr struct {
	name  string
	value []byte
}
