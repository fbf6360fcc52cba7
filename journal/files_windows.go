package journal

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/vfsctl/vfsctl/internal/winfs"
)

// The journal's file calls on Windows (files_unix.go has Linux's and macOS's): every
// name opened relative to the folder's handle without following a reparse point
// (internal/winfs), LockFileEx for flock, and the owner a security identifier: a file
// is this user's when its owner is the process's user, or the owner the process gives
// the files it makes (Administrators, for an elevated process).

type handle = winfs.Handle

const noHandle handle = windows.InvalidHandle

// keepsLog: no log is kept on Windows (walKey), so bbolt's map is not made large for
// one: on Windows bbolt grows the file to the size of its map.
const keepsLog = false

func closeHandle(h handle) { winfs.Close(h) }

func openRoot(dir string) (handle, error) { return winfs.OpenRoot(dir) }

// dirAccess lets a folder's handle list it, and be the root of opens and renames.
const dirAccess = winfs.ReadDir

// openDirUnder: Windows opens the root, then the folder in it (openDir).
func openDirUnder(root, name string) (handle, bool) { return noHandle, false }

// openDirAt opens folder name in at; a reparse point or a file there is errNotOurs.
func openDirAt(at handle, name string) (handle, error) {
	h, err := winfs.OpenAt(at, name, dirAccess, windows.FILE_OPEN, windows.FILE_DIRECTORY_FILE, 0)
	if err == winfs.ErrNotDir {
		return noHandle, errNotOurs
	}
	if err != nil {
		return noHandle, err
	}
	if in, err := winfs.Stat(h); err != nil || in.Reparse() {
		winfs.Close(h)
		if err == nil {
			err = errNotOurs
		}
		return noHandle, err
	}
	return h, nil
}

func mkdirAt(at handle, name string) error { return winfs.Mkdir(at, name, false) }

// openFileAt opens name in at as itself (a reparse point is not followed); a folder
// there is errNotOurs. The caller checks what it opened.
func openFileAt(at handle, name string, flag int, perm os.FileMode) (handle, error) {
	access := winfs.Access(flag, windows.FILE_READ_ATTRIBUTES|windows.READ_CONTROL)
	disposition := uint32(windows.FILE_OPEN)
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		disposition = windows.FILE_CREATE
	case flag&os.O_CREATE != 0:
		disposition = windows.FILE_OPEN_IF
	}
	h, err := winfs.OpenAt(at, name, access, disposition, windows.FILE_NON_DIRECTORY_FILE, 0)
	if err == syscall.EISDIR {
		return noHandle, errNotOurs
	}
	return h, err
}

func statAt(at handle, name string) (entry, error) {
	h, err := winfs.OpenAt(at, name, winfs.ReadAttrs|windows.READ_CONTROL, windows.FILE_OPEN, 0, 0)
	if err != nil {
		return entry{}, err
	}
	defer winfs.Close(h)
	return statHandle(h)
}

func statHandle(h handle) (entry, error) {
	in, err := winfs.Stat(h)
	if err != nil {
		return entry{}, err
	}
	e := entry{Links: uint64(in.Links), Size: in.Length, perm: 0o600, mtime: time.Unix(0, in.Mtime), Dev: uint64(in.Volume), Ino: in.Index}
	switch {
	case in.Reparse():
		e.kind = kindLink
	case in.IsDir():
		e.kind = kindDir
	case in.Regular():
		e.kind = kindFile
	default:
		e.kind = kindDevice
	}
	e.mine, e.owner = ownedByMe(h)
	return e, nil
}

// ownedByMe reports whether the file open at h (with READ_CONTROL) is this user's,
// and names its owner.
func ownedByMe(h handle) (bool, string) {
	sd, err := windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return false, "an owner that could not be read"
	}
	o, _, err := sd.Owner()
	if err != nil || o == nil {
		return false, "no owner"
	}
	for _, me := range mySIDs() {
		if windows.EqualSid(o, me) {
			return true, o.String()
		}
	}
	return false, o.String()
}

// mySIDs are the owners of this process's files: its user, and the owner the process
// gives the files it makes.
var mySIDs = sync.OnceValue(func() []*windows.SID {
	var out []*windows.SID
	t := windows.GetCurrentProcessToken()
	if u, err := t.GetTokenUser(); err == nil {
		s, _ := u.User.Sid.Copy()
		out = append(out, s)
	}
	var n uint32
	windows.GetTokenInformation(t, windows.TokenOwner, nil, 0, &n)
	if n > 0 {
		buf := make([]byte, n)
		if windows.GetTokenInformation(t, windows.TokenOwner, &buf[0], n, &n) == nil {
			o := (*struct{ Owner *windows.SID })(unsafe.Pointer(&buf[0])) // TOKEN_OWNER
			s, _ := o.Owner.Copy()
			out = append(out, s)
		}
	}
	return out
})

// unlinkAt removes name in at: a file, or with dir an empty folder.
func unlinkAt(at handle, name string, dir bool) error {
	kind := winfs.FileOnly
	if dir {
		kind = winfs.DirOnly
	}
	return winfs.DeleteAt(at, name, kind)
}

func renameAt(at handle, from, to string) error { return winfs.RenameAt(at, from, to, true) }

// readNames lists the folder open at h as it is now: through a new open of it
// (winfs.Reopen), as a duplicate of h would go on from, or repeat, the last listing.
func readNames(h handle) []string {
	dup, err := winfs.Reopen(h, dirAccess)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(dup), queueDir)
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return names
}

// touch sets the file's modification time to now.
func touch(h handle) error {
	now := windows.NsecToFiletime(time.Now().UnixNano())
	return windows.SetFileTime(h, nil, nil, &now)
}

// alive reports whether process pid exists (and has not exited).
func alive(pid int) bool { return winfs.ProcessAlive(pid) }

// tryLock takes the exclusive lock of f's first byte if it is free; unlock lets it
// go. LockFileEx locks byte ranges: every process locks the same one.
func tryLock(f *os.File) bool {
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol) == nil
}

func unlock(f *os.File) {
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// dataSync and fullSync flush the file's data and metadata (FlushFileBuffers). A
// folder's handle, open for listing, cannot be flushed: NTFS logs the changes of its
// entries in its own journal.
func dataSync(h handle) error { return winfs.Sync(h, false) }
func fullSync(h handle) error {
	in, err := winfs.Stat(h)
	return winfs.Sync(h, err == nil && in.IsDir())
}

// walKey: Windows has no extended attributes to keep the log's key in (walkey_unix.go).
// As on a Unix file system without them, no log is kept and bbolt syncs every
// commit: slower, and nothing to trust. A key kept in a file beside the journal
// would be written by whoever can write .vfsctl/, and an alternate data stream
// travels with copies of the file.
func walKey(*os.File, bool) ([]byte, error) { return nil, errors.ErrUnsupported }
