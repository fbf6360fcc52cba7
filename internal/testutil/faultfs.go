package testutil

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/afero"
)

// Op names an operation FaultFs can intercept.
type Op string

const (
	OpOpen   Op = "open" // Open and OpenFile
	OpWrite  Op = "write"
	OpSync   Op = "sync"
	OpRename Op = "rename"
	OpMkdir  Op = "mkdir" // Mkdir and MkdirAll
	OpRemove Op = "remove"
	OpChmod  Op = "chmod"
	OpLink   Op = "symlink" // SymlinkIfPossible
)

// FaultFs wraps an afero.Fs and calls Hook before each intercepted operation; an error
// from Hook is returned instead of doing the operation. Tests use it to fail the Nth
// write, sync, rename or mkdir, or to change a file behind a caller's back.
type FaultFs struct {
	afero.Fs
	mu   sync.Mutex
	Hook func(op Op, name string) error
}

func (f *FaultFs) call(op Op, name string) error {
	f.mu.Lock()
	h := f.Hook
	f.mu.Unlock()
	if h == nil {
		return nil
	}
	return h(op, name)
}

// SetHook replaces the hook; nil disables it.
func (f *FaultFs) SetHook(h func(op Op, name string) error) {
	f.mu.Lock()
	f.Hook = h
	f.mu.Unlock()
}

func (f *FaultFs) Open(name string) (afero.File, error) {
	if err := f.call(OpOpen, name); err != nil {
		return nil, err
	}
	h, err := f.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: h, fs: f}, nil
}

func (f *FaultFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if err := f.call(OpOpen, name); err != nil {
		return nil, err
	}
	h, err := f.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: h, fs: f}, nil
}

func (f *FaultFs) Rename(o, n string) error {
	if err := f.call(OpRename, n); err != nil {
		return err
	}
	return f.Fs.Rename(o, n)
}

func (f *FaultFs) Mkdir(name string, perm os.FileMode) error {
	if err := f.call(OpMkdir, name); err != nil {
		return err
	}
	return f.Fs.Mkdir(name, perm)
}

func (f *FaultFs) MkdirAll(name string, perm os.FileMode) error {
	if err := f.call(OpMkdir, name); err != nil {
		return err
	}
	return f.Fs.MkdirAll(name, perm)
}

func (f *FaultFs) Remove(name string) error {
	if err := f.call(OpRemove, name); err != nil {
		return err
	}
	return f.Fs.Remove(name)
}

func (f *FaultFs) Chmod(name string, mode os.FileMode) error {
	if err := f.call(OpChmod, name); err != nil {
		return err
	}
	return f.Fs.Chmod(name, mode)
}

// LstatIfPossible passes through, so symlink handling sees the real filesystem.
func (f *FaultFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	if l, ok := f.Fs.(afero.Lstater); ok {
		return l.LstatIfPossible(name)
	}
	fi, err := f.Fs.Stat(name)
	return fi, false, err
}

// SymlinkIfPossible makes a symlink where the wrapped filesystem can, as an
// intercepted operation (named by the new link).
func (f *FaultFs) SymlinkIfPossible(oldname, newname string) error {
	if err := f.call(OpLink, newname); err != nil {
		return err
	}
	if l, ok := f.Fs.(afero.Linker); ok {
		return l.SymlinkIfPossible(oldname, newname)
	}
	return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: afero.ErrNoSymlink}
}

// ReadlinkIfPossible passes through, as LstatIfPossible does.
func (f *FaultFs) ReadlinkIfPossible(name string) (string, error) {
	if l, ok := f.Fs.(afero.LinkReader); ok {
		return l.ReadlinkIfPossible(name)
	}
	return "", &os.PathError{Op: "readlink", Path: name, Err: afero.ErrNoReadlink}
}

type faultFile struct {
	afero.File
	fs *FaultFs
}

// name is the file's name with slashes, as the names the hook gets for the other
// operations are: an afero.BasePathFs file names itself with the system's separator
// (`\new` on Windows), which a hook waiting for "new" never matched.
func (h *faultFile) name() string { return filepath.ToSlash(h.Name()) }

func (h *faultFile) Write(p []byte) (int, error) {
	if err := h.fs.call(OpWrite, h.name()); err != nil {
		return 0, err
	}
	return h.File.Write(p)
}

func (h *faultFile) Sync() error {
	if err := h.fs.call(OpSync, h.name()); err != nil {
		return err
	}
	return h.File.Sync()
}
