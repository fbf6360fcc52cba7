package vfs

import (
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// procFs reports whether /proc is the proc filesystem, whose fd links tell where a
// folder held open is now. Without it (not mounted, or something else there) no
// answer is taken from it.
var procFs = sync.OnceValue(func() bool {
	var st unix.Statfs_t
	return unix.Statfs("/proc/self/fd", &st) == nil && st.Type == unix.PROC_SUPER_MAGIC
})

// fdPath is where the kernel says folder fd is now: the names of the folders from
// the process's root down to it, as they stand, never a symlink's.
func fdPath(fd int) (string, bool) {
	buf := make([]byte, unix.PathMax+1)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n <= 0 || n == len(buf) || buf[0] != '/' {
		return "", false
	}
	return string(buf[:n]), true
}

// heldInPlace reports whether folder fd, entered down the canonical path dir from the
// root's descriptor, is still the folder at dir below the root: known is false where
// it cannot be told (no proc filesystem, a path too long for a link).
//
// The kernel's path of the folder must be the root's own current path and dir joined,
// byte for byte. Both are read now, from the descriptors, so a root opened through a
// symlink, or renamed since, is compared where it is. The kernel builds each from the
// folders' own names, no symlink among them, in one consistent look, with no escaping:
// a name holding a newline is itself. A folder moved anywhere else, in the root or out
// of it, reads as another path. A removed folder reads with " (deleted)" added, which
// equals the path wanted only where that path's last name ends so and the folder was
// renamed before its removal; a removed folder holds nothing and takes nothing, so a
// change in it still fails. Only a mount over a folder on the way, which takes the
// privilege to mount, could show the path wanted for another folder. A mismatch is no
// refusal: the Looker walks from the root.
func heldInPlace(root, fd int, dir string) (in, known bool) {
	if !procFs() {
		return false, false
	}
	r, ok := fdPath(root)
	if !ok {
		return false, false
	}
	h, ok := fdPath(fd)
	if !ok {
		return false, false
	}
	if r != "/" {
		r += "/"
	}
	return h == r+dir, true
}
