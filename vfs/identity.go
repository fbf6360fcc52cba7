package vfs

import (
	"io/fs"
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

// SameFile reports whether o is the file id was taken of, unchanged since: every
// field, the change time included. Only the change time gives away a write in place
// that kept the size and then set the modification time back (utimes changes the
// change time too, and nothing in user space can set it back).
func (id Identity) SameFile(o Identity) bool { return id.Known() && id == o }

// SameInode reports whether o is the inode id was taken of with the same size and
// modification time: what a rename or a change of mode or owner keeps, although
// they update the change time.
func (id Identity) SameInode(o Identity) bool {
	return id.Known() && id.Dev == o.Dev && id.Ino == o.Ino && id.Size == o.Size && id.Mtime == o.Mtime
}

// IdentityOf returns the identity the file at canonical path p has now.
func (f *FS) IdentityOf(p string) (Identity, error) {
	fi, err := f.fs.Stat(p)
	if err != nil {
		return Identity{}, err
	}
	return identityOf(fi), nil
}

// identityOf is the identity in fi, zero where fi carries none (stat_unix.go,
// stat_windows.go).
func identityOf(fi fs.FileInfo) Identity {
	id, _ := statIdentity(fi)
	return id
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
