//go:build !windows

package vfs

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// The changes a Looker makes in a folder it holds: each names one entry of the
// folder, checked as split checks a path's component, and never follows a symlink.

func (c fdCursor) mkdir(name string, perm fs.FileMode) error {
	err := c.f.checkName(name)
	if err == nil {
		err = unix.Mkdirat(c.fd, name, syscallMode(perm))
	}
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: c.full(name), Err: err}
	}
	return nil
}

// rmdir removes name only if it is an empty folder (never a symlink or a file).
func (c fdCursor) rmdir(name string) error {
	err := c.f.checkName(name)
	if err == nil {
		err = unix.Unlinkat(c.fd, name, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return &fs.PathError{Op: "rmdir", Path: c.full(name), Err: err}
	}
	return nil
}

// chmod refuses a symlink, as rootFs.Chmod does.
func (c fdCursor) chmod(name string, mode fs.FileMode) error {
	err := c.f.checkName(name)
	if err == nil {
		err = chmodAt(c.fd, name, syscallMode(mode))
	}
	if err != nil {
		return &fs.PathError{Op: "chmod", Path: c.full(name), Err: err}
	}
	return nil
}

// inPlace reports whether the folder held is still the one at its path below the
// root, in one look (heldInPlace); the root's own descriptor always is.
func (c fdCursor) inPlace() (in, known bool) {
	root := int(c.f.root.Fd())
	if c.fd == root {
		return true, true
	}
	return heldInPlace(root, c.fd, c.dir)
}
