//go:build !windows

package testutil

import (
	"io/fs"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// nodeOf is the Node of p's stat fi, its content left out; Links only for a file (a
// folder's links follow its subfolders: .vfsctl/ made).
func nodeOf(p string, fi fs.FileInfo) Node {
	st := fi.Sys().(*syscall.Stat_t)
	n := Node{Mode: fi.Mode(), Ino: st.Ino, Uid: st.Uid, Gid: st.Gid}
	if fi.Mode().IsRegular() {
		n.Links = uint64(st.Nlink)
	}
	return n
}

func xattrsOf(p string) []string {
	size, err := unix.Llistxattr(p, nil)
	if err != nil || size == 0 {
		return nil
	}
	buf := make([]byte, size)
	n, err := unix.Llistxattr(p, buf)
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		v := make([]byte, 4096)
		vn, err := unix.Lgetxattr(p, name, v)
		if err != nil {
			continue
		}
		out = append(out, name+"="+string(v[:vn]))
	}
	sort.Strings(out)
	return out
}
