package vfs

import (
	"io/fs"
	"syscall"
)

// Identity tells whether a file is still the one that was read, without reading it:
// device, inode, size and timestamps. Every replace makes a new inode, and an in-place
// write changes the size or the modification time. On Linux 6.13 and later, once a
// file's timestamps have been looked at (as reading it here does), its next change
// gets a fine-grained, later timestamp, so two changes within one clock tick differ
// too; on older kernels a same-size rewrite within one tick of the read could pass
// unseen. Where the filesystem reports no such fields (in memory), an Identity is zero
// and callers compare content instead.
type Identity struct {
	Dev, Ino     uint64
	Size         int64
	Mtime, Ctime int64 // nanoseconds
}

// Known reports whether the identity was taken from a real file.
func (id Identity) Known() bool { return id.Ino != 0 }

// SameFile compares everything but the change time, which a rename updates: a file
// written and then renamed into place is the same file it was before the rename.
func (id Identity) SameFile(o Identity) bool {
	return id.Known() && id.Dev == o.Dev && id.Ino == o.Ino && id.Size == o.Size && id.Mtime == o.Mtime
}

func identityOf(fi fs.FileInfo) Identity {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Identity{}
	}
	return Identity{
		Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size,
		Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		Ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
	}
}

// Unchanged reports whether the file at canonical path p still holds want, read when
// it had identity id: by identity when it is known and equal, else by comparing the
// content (without allocating the file's size).
func (f *FS) Unchanged(p string, id Identity, want []byte) (bool, error) {
	if id.Known() {
		fi, err := f.fs.Stat(p)
		if err != nil {
			return false, err
		}
		if identityOf(fi) == id {
			return true, nil
		}
	}
	return f.SameContent(p, want)
}
