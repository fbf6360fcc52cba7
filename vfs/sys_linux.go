package vfs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The Linux system calls rootfs.go and replace.go use; sys_darwin.go has the macOS
// ones. Windows has no build: see docs/runtime.md.

// renameAt's flags: swap the two entries, or rename only if the new name is free.
const (
	renameExchange  = unix.RENAME_EXCHANGE
	renameNoReplace = unix.RENAME_NOREPLACE
)

// renameAt renames oldname to newname, both in folder fd, with renameat2's flags.
func renameAt(fd int, oldname, newname string, flags uint) error {
	return unix.Renameat2(fd, oldname, fd, newname, flags)
}

// renameBetween renames oldname in folder oldfd to newname in folder newfd, with
// renameat2's flags.
func renameBetween(oldfd int, oldname string, newfd int, newname string, flags uint) error {
	return unix.Renameat2(oldfd, oldname, newfd, newname, flags)
}

// enotsup is ENOTSUP, which is EOPNOTSUPP on Linux (a variable: a case may repeat it).
var enotsup error = unix.ENOTSUP

// syncFilesystemOf syncs the whole filesystem that fd is on (syncfs(2)).
func syncFilesystemOf(fd int) error { return unix.Syncfs(fd) }

// fullSync makes fd's data and metadata durable (fsync(2)).
func fullSync(fd int) error { return unix.Fsync(fd) }

const ext4Magic = 0xef53

// worthHolding reports whether holding a replaced file open (FS.hold) pays in folder
// fd: on ext4 only, where it was measured.
func worthHolding(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) == nil && st.Type == ext4Magic
}

// mountDiscards reports whether the file system on device dev is mounted with
// discard (/proc/self/mountinfo), which frees a file's blocks by a request to the
// device that the last unlink of the file waits for.
func mountDiscards(dev uint64) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	return err == nil && discardIn(b, unix.Major(dev), unix.Minor(dev))
}

// discardIn reports whether a line of mountinfo for the device major:minor has
// discard among its mount or file-system options.
func discardIn(mountinfo []byte, major, minor uint32) bool {
	want := fmt.Sprintf("%d:%d", major, minor)
	for line := range strings.Lines(string(mountinfo)) {
		f := strings.Fields(line)
		if len(f) < 6 || f[2] != want {
			continue
		}
		opts := f[5]
		for i, x := range f {
			if x == "-" && i+3 < len(f) {
				opts += "," + f[i+3]
				break
			}
		}
		if slices.Contains(strings.Split(opts, ","), "discard") {
			return true
		}
	}
	return false
}

// openHold opens name in folder fd by O_PATH, without following a symlink.
func openHold(fd int, name string) (int, error) { return openRaw(fd, name, unix.O_PATH, 0) }

func mtimeOf(st *syscall.Stat_t) (sec, nsec int64) { return int64(st.Mtim.Sec), int64(st.Mtim.Nsec) }
func ctimeOf(st *syscall.Stat_t) (sec, nsec int64) { return int64(st.Ctim.Sec), int64(st.Ctim.Nsec) }

// toSyscall copies a stat into the type os.Lstat's FileInfo carries, which the rest
// of vfs reads identities from.
func toSyscall(u *unix.Stat_t) syscall.Stat_t {
	return syscall.Stat_t{
		Dev: u.Dev, Ino: u.Ino, Nlink: u.Nlink, Mode: u.Mode, Uid: u.Uid, Gid: u.Gid,
		Rdev: u.Rdev, Size: u.Size, Blksize: u.Blksize, Blocks: u.Blocks,
		Atim: syscall.Timespec(u.Atim), Mtim: syscall.Timespec(u.Mtim), Ctim: syscall.Timespec(u.Ctim),
	}
}

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// listAt lists the folder held as fd (getdents), each entry as fstatat in it sees it (a
// symlink as itself). An entry gone between the listing and its stat is left out.
func listAt(fd int, dir string) ([]fs.FileInfo, error) {
	// The buffer is reused: a walk lists every folder, and a fresh 16 KiB for each
	// (about 21 MiB for the Go tree's 1,300 folders) cost more in clearing and
	// collecting than the listing.
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []fs.FileInfo
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		if out, err = statDirents(fd, buf[:n], out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// statDirents appends to out the entries of one getdents result, each stat'ed by its
// name where getdents left it (NUL-terminated in buf), and returns out. The names are
// parts of one string and the stats one slice, allocated once for buf: a walk of the
// Go tree made three allocations an entry (the name, its copy for the system call, the
// stat), and in a fresh process every new page of heap is a page fault.
func statDirents(fd int, buf []byte, out []fs.FileInfo) ([]fs.FileInfo, error) {
	// The layout of struct linux_dirent64: ino 8 bytes, off 8, reclen 2, type 1, then
	// the name and its NUL.
	const nameAt = 19
	count, size := 0, 0
	for off := 0; off+nameAt <= len(buf); {
		reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
		if reclen < nameAt || off+reclen > len(buf) {
			break
		}
		count++
		size += max(0, bytes.IndexByte(buf[off+nameAt:off+reclen], 0))
		off += reclen
	}
	// The names alone are kept, not the records around them (about half of a
	// record's bytes), and each stat in a direntInfo, not a whole statInfo: a walk
	// holds every entry of the tree until it ends, and a fresh process pays a page
	// fault for each new page of heap.
	var nb strings.Builder
	nb.Grow(size)
	infos := make([]direntInfo, 0, count)
	out = slices.Grow(out, count)
	for off := 0; off+nameAt <= len(buf); {
		reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
		if reclen < nameAt || off+reclen > len(buf) {
			break
		}
		rec := buf[off : off+reclen]
		ino := binary.NativeEndian.Uint64(rec)
		first := off + nameAt
		off += reclen
		end := bytes.IndexByte(rec[nameAt:], 0)
		if end < 0 || ino == 0 { // no name, or a deleted entry
			continue
		}
		raw := buf[first : first+end]
		if end == 0 || string(raw) == "." || string(raw) == ".." {
			continue
		}
		var st unix.Stat_t
		err := lstatNameAt(fd, &rec[nameAt], &st)
		if err == unix.ENOENT {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: string(raw), Err: err}
		}
		n := nb.Len()
		nb.Write(raw)
		infos = append(infos, direntOf(nb.String()[n:], &st))
		out = append(out, &infos[len(infos)-1])
	}
	return out, nil
}

// direntInfo is an fs.FileInfo from a listing's stat: the fields of it that vfs reads
// (96 bytes on amd64, where a statInfo takes 160). Sys gives them as a *syscall.Stat_t
// made anew, without the block counts and the access time.
type direntInfo struct {
	name            string
	dev, ino, nlink uint64
	size            int64
	mtim, ctim      syscall.Timespec
	mode, uid, gid  uint32
}

func direntOf(name string, st *unix.Stat_t) direntInfo {
	return direntInfo{name: name, dev: uint64(st.Dev), ino: uint64(st.Ino), nlink: uint64(st.Nlink), size: st.Size,
		mtim: syscall.Timespec(st.Mtim), ctim: syscall.Timespec(st.Ctim), mode: st.Mode, uid: st.Uid, gid: st.Gid}
}

func (d *direntInfo) Name() string       { return d.name }
func (d *direntInfo) Size() int64        { return d.size }
func (d *direntInfo) ModTime() time.Time { return time.Unix(int64(d.mtim.Sec), int64(d.mtim.Nsec)) }
func (d *direntInfo) IsDir() bool        { return d.mode&syscall.S_IFMT == syscall.S_IFDIR }

func (d *direntInfo) Mode() fs.FileMode {
	s := statInfo{}
	s.st.Mode = d.mode
	return s.Mode()
}

func (d *direntInfo) Sys() any {
	st := &syscall.Stat_t{Mode: d.mode, Uid: d.uid, Gid: d.gid, Size: d.size, Mtim: d.mtim, Ctim: d.ctim}
	setUint(&st.Dev, d.dev)
	setUint(&st.Ino, d.ino)
	setUint(&st.Nlink, d.nlink)
	return st
}

// identity is statIdentity's, without making the Stat_t Sys makes: a snapshot asks
// it of every entry.
func (d *direntInfo) identity() Identity {
	return Identity{Dev: d.dev, Ino: d.ino, Size: d.size,
		Mtime: nanos(int64(d.mtim.Sec), int64(d.mtim.Nsec)), Ctime: nanos(int64(d.ctim.Sec), int64(d.ctim.Nsec))}
}

// setUint sets a stat field whose width differs between architectures.
func setUint[T ~uint32 | ~uint64](p *T, v uint64) { *p = T(v) }

// testHookNoXattrs, when set by a test, is told the answer of each look for extended
// attributes by the folder's /proc path.
var testHookNoXattrs func(none bool)

// noXattrsAt reports whether the entry name in folder dirfd has no extended
// attributes, told by one listing through the folder's /proc path, which does not
// follow name should it be a symlink. False when it has some, or when that could not
// be told so (no /proc): xattrsAt then opens the file to read them. An entry that is
// no longer the file planned is refused at the rename, which compares identities.
func noXattrsAt(dirfd int, name string) bool {
	n, err := unix.Llistxattr("/proc/self/fd/"+strconv.Itoa(dirfd)+"/"+name, nil)
	none := err == nil && n == 0 || err == unix.ENOTSUP
	if testHookNoXattrs != nil {
		testHookNoXattrs(none)
	}
	return none
}
