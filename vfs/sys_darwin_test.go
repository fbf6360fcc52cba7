package vfs

import "golang.org/x/sys/unix"

// onExt4: macOS has no ext4.
func onExt4(dir string) bool { return false }

// exchangePaths swaps two entries atomically (renamex_np with RENAME_SWAP).
func exchangePaths(a, b string) error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) }
