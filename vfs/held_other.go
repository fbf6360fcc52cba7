//go:build !linux && !windows

package vfs

// heldInPlace cannot tell here where a folder held open is now: a change walks from
// the root (Looker.folder).
func heldInPlace(root, fd int, dir string) (in, known bool) { return false, false }
