package vfs

import "golang.org/x/sys/unix"

// onExt4 reports whether dir is on ext4, where replaced files are held (FS.hold).
func onExt4(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == 0xef53
}

// exchangePaths swaps two entries atomically (renameat2 with RENAME_EXCHANGE).
func exchangePaths(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
