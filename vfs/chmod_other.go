//go:build !windows && !linux

package vfs

import "golang.org/x/sys/unix"

// chmodAt sets the bits of name in folder dirfd, never through a symlink: these
// systems take AT_SYMLINK_NOFOLLOW, so an entry that became a symlink since the look
// has the link's own bits set, inside the workspace.
func chmodAt(dirfd int, name string, mode uint32) error {
	if isSymlinkAt(dirfd, name) {
		return ErrSymlinkNow
	}
	return unix.Fchmodat(dirfd, name, mode, unix.AT_SYMLINK_NOFOLLOW)
}
