package winfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Handle is an open file or folder.
type Handle = windows.Handle

// share lets others read, write, rename and delete a file held open, as POSIX does:
// a replace renames over a file someone may be reading.
const share = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// Access rights for OpenAt.
const (
	ReadDir    = windows.FILE_LIST_DIRECTORY | windows.FILE_TRAVERSE | windows.FILE_READ_ATTRIBUTES
	ReadAttrs  = windows.FILE_READ_ATTRIBUTES
	WriteAttrs = windows.FILE_READ_ATTRIBUTES | windows.FILE_WRITE_ATTRIBUTES
	Delete     = windows.DELETE | windows.FILE_READ_ATTRIBUTES
)

// ErrBadName is what a name CheckName refuses is (errors.Is).
var ErrBadName = errors.New("not a name Windows stores as it is")

// CheckName refuses a path component that Windows would not take literally: "", "."
// and "..", a character NTFS forbids (a colon names an alternate data stream), a
// control character, a trailing dot or space (Win32 drops them, so the file could not
// be opened by its name), and a DOS device name (CON, NUL, COM1, ... with any
// extension), which Win32 opens as the device.
func CheckName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%q %s: %w", name, why, ErrBadName) }
	switch name {
	case "", ".", "..":
		return bad("is not a file name")
	}
	for _, r := range name {
		if r < 0x20 || strings.ContainsRune(`<>:"/\|?*`, r) {
			return bad(fmt.Sprintf("holds %q, which Windows does not allow in a name", r))
		}
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return bad("ends with a dot or a space, which Windows drops")
	}
	if isDevice(name) {
		return bad("is a device name on Windows")
	}
	return nil
}

// isDevice reports whether Win32 opens name as a DOS device: the part before the
// first dot, trailing spaces dropped, is one of the device names, any case.
func isDevice(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$":
		return true
	}
	if len(base) >= 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		switch base[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}

// OpenAt opens name, one component, in the folder dir: with access (SYNCHRONIZE is
// added), disposition (windows.FILE_OPEN, FILE_CREATE, FILE_OPEN_IF) and create
// options (FILE_DIRECTORY_FILE, FILE_NON_DIRECTORY_FILE). A reparse point is opened
// as itself (FILE_OPEN_REPARSE_POINT); the handle does synchronous I/O.
func OpenAt(dir Handle, name string, access, disposition, options, attrs uint32) (Handle, error) {
	if err := CheckName(name); err != nil {
		return windows.InvalidHandle, err
	}
	u, err := windows.NewNTUnicodeString(name)
	if err != nil {
		return windows.InvalidHandle, err
	}
	oa := windows.OBJECT_ATTRIBUTES{RootDirectory: dir, ObjectName: u, Attributes: windows.OBJ_CASE_INSENSITIVE}
	oa.Length = uint32(unsafe.Sizeof(oa))
	if attrs == 0 {
		attrs = windows.FILE_ATTRIBUTE_NORMAL
	}
	var h Handle
	var iosb windows.IO_STATUS_BLOCK
	err = windows.NtCreateFile(&h, access|windows.SYNCHRONIZE, &oa, &iosb, nil, attrs, share, disposition,
		options|windows.FILE_OPEN_REPARSE_POINT|windows.FILE_SYNCHRONOUS_IO_NONALERT|windows.FILE_OPEN_FOR_BACKUP_INTENT, 0, 0)
	if err != nil {
		return windows.InvalidHandle, errorOf(err)
	}
	return h, nil
}

// Reopen opens the folder open at dir again, as a new open of it: a listing of the
// new handle starts at the folder's beginning and shows it as it is now. A handle
// made by DuplicateHandle shares the first one's open, and with it where its listing
// stands (Wine even keeps the names it listed first): a second walk through it saw
// no file made since the first.
func Reopen(dir Handle, access uint32) (Handle, error) {
	return reopen(dir, access, windows.FILE_DIRECTORY_FILE)
}

// reopen opens what h is open on again, with access and the create options given.
func reopen(h Handle, access, options uint32) (Handle, error) {
	oa := windows.OBJECT_ATTRIBUTES{RootDirectory: h, ObjectName: new(windows.NTUnicodeString)}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var r Handle
	var iosb windows.IO_STATUS_BLOCK
	err := windows.NtCreateFile(&r, access|windows.SYNCHRONIZE, &oa, &iosb, nil, 0, share, windows.FILE_OPEN,
		options|windows.FILE_OPEN_REPARSE_POINT|windows.FILE_SYNCHRONOUS_IO_NONALERT|windows.FILE_OPEN_FOR_BACKUP_INTENT, 0, 0)
	if err != nil {
		return windows.InvalidHandle, errorOf(err)
	}
	return r, nil
}

// OpenRoot opens the folder dir by its path, which is trusted as the user named it.
func OpenRoot(dir string) (Handle, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return windows.InvalidHandle, err
	}
	h, err := windows.CreateFile(p, ReadDir|windows.SYNCHRONIZE, share, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return windows.InvalidHandle, err
	}
	info, err := Stat(h)
	if err == nil && !info.IsDir() {
		err = ErrNotDir
	}
	if err != nil {
		windows.CloseHandle(h)
		return windows.InvalidHandle, err
	}
	return h, nil
}

// ErrNotDir is STATUS_NOT_A_DIRECTORY: a folder was asked for where a file stands.
// errors.Is takes it for syscall.ENOTDIR, as on Unix, and not for fs.ErrNotExist.
// Go's syscall.ENOTDIR on Windows is ERROR_PATH_NOT_FOUND, which errors.Is takes for
// a missing file: returned as such, a file where a folder was wanted read as nothing
// there (an undo under a folder replaced by a file went on to create the file).
var ErrNotDir error = notDir{}

type notDir struct{}

func (notDir) Error() string { return "not a directory" }

func (notDir) Is(target error) bool { return target == syscall.ENOTDIR }

// errorOf turns an NTSTATUS into the Win32 error it stands for, with the POSIX
// errors the callers branch on where Windows has one of its own.
func errorOf(err error) error {
	st, ok := err.(windows.NTStatus)
	if !ok {
		return err
	}
	switch st {
	case windows.STATUS_NOT_A_DIRECTORY:
		return ErrNotDir
	case windows.STATUS_FILE_IS_A_DIRECTORY:
		return syscall.EISDIR
	case windows.STATUS_DIRECTORY_NOT_EMPTY:
		return syscall.ENOTEMPTY
	case windows.STATUS_DISK_FULL:
		return syscall.ENOSPC
	case windows.STATUS_NAME_TOO_LONG:
		return syscall.ENAMETOOLONG
	case windows.STATUS_TOO_MANY_OPENED_FILES:
		return syscall.EMFILE
	case windows.STATUS_DELETE_PENDING:
		return windows.ERROR_ACCESS_DENIED // as Win32 reports it
	}
	return st.Errno()
}

// Info is what Stat reports of a file: fs.FileInfo, with Sys the *Info itself.
type Info struct {
	name       string
	Attributes uint32
	Volume     uint32 // the volume's serial number
	Index      uint64 // the file's number on its volume
	Links      uint32
	Length     int64
	Mtime      int64 // last write, Unix nanoseconds
	Ctime      int64 // last change of data or metadata, Unix nanoseconds (0 if unknown)
	ReparseTag uint32
}

// fileBasicInfo is FILE_BASIC_INFO.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

// fileAttributeTagInfo is FILE_ATTRIBUTE_TAG_INFO.
type fileAttributeTagInfo struct {
	FileAttributes uint32
	ReparseTag     uint32
}

// Stat reports what h is.
func Stat(h Handle) (*Info, error) {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return nil, err
	}
	in := &Info{
		Attributes: d.FileAttributes,
		Volume:     d.VolumeSerialNumber,
		Index:      uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow),
		Links:      d.NumberOfLinks,
		Length:     int64(d.FileSizeHigh)<<32 | int64(d.FileSizeLow),
		Mtime:      d.LastWriteTime.Nanoseconds(),
	}
	var b fileBasicInfo
	if windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&b)), uint32(unsafe.Sizeof(b))) == nil && b.ChangeTime != 0 {
		in.Ctime = (b.ChangeTime - 116444736000000000) * 100
	}
	if in.Attributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		var t fileAttributeTagInfo
		if windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&t)), uint32(unsafe.Sizeof(t))) == nil {
			in.ReparseTag = t.ReparseTag
		}
	}
	if in.Attributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0 {
		if ft, err := windows.GetFileType(h); err == nil && ft != windows.FILE_TYPE_DISK {
			in.Attributes |= windows.FILE_ATTRIBUTE_DEVICE
		}
	}
	return in, nil
}

// Lstat reports what name in dir is, without following a reparse point.
func Lstat(dir Handle, name string) (*Info, error) {
	h, err := OpenAt(dir, name, ReadAttrs, windows.FILE_OPEN, 0, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	in, err := Stat(h)
	if in != nil {
		in.name = name
	}
	return in, err
}

// Named returns in with the name its FileInfo reports.
func (in *Info) Named(name string) *Info { c := *in; c.name = name; return &c }

// Reparse reports a reparse point: a symbolic link, a junction, or any other.
func (in *Info) Reparse() bool { return in.Attributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 }

// Regular reports a plain file: not a folder, a reparse point or a device.
func (in *Info) Regular() bool {
	return in.Attributes&(windows.FILE_ATTRIBUTE_DIRECTORY|windows.FILE_ATTRIBUTE_REPARSE_POINT|windows.FILE_ATTRIBUTE_DEVICE) == 0
}

func (in *Info) Name() string       { return in.name }
func (in *Info) Size() int64        { return in.Length }
func (in *Info) ModTime() time.Time { return time.Unix(0, in.Mtime) }
func (in *Info) IsDir() bool        { return in.Mode().IsDir() }
func (in *Info) Sys() any           { return in }

// Mode is the file's type, with permissions as Go's os reports them on Windows: 0o666
// or, with the read-only attribute, 0o444 (folders 0o777 or 0o555).
func (in *Info) Mode() fs.FileMode {
	var m fs.FileMode = 0o666
	if in.Attributes&windows.FILE_ATTRIBUTE_READONLY != 0 {
		m = 0o444
	}
	switch {
	case in.Reparse():
		return fs.ModeSymlink | m
	case in.Attributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0:
		return fs.ModeDir | m | 0o111
	case in.Attributes&windows.FILE_ATTRIBUTE_DEVICE != 0:
		return fs.ModeDevice | fs.ModeIrregular | m
	}
	return m
}

// fileRenameInformation is FILE_RENAME_INFORMATION without its name, which follows it.
// FILE_RENAME_INFORMATION_EX has the same layout, its Flags where ReplaceIfExists is.
type fileRenameInformation struct {
	ReplaceIfExists uint32 // a BOOLEAN, padded; Flags in the _EX form
	RootDirectory   Handle
	FileNameLength  uint32
}

// fileRenameInformationEx is FILE_INFORMATION_CLASS FileRenameInformationEx.
const fileRenameInformationEx = 65

// Rename gives the file open at h (with DELETE access) the name newname in folder
// dir, replacing what stands there only when replace is set; a name taken is then an
// error that is fs.ErrExist.
//
// A replace asks for POSIX semantics (FILE_RENAME_POSIX_SEMANTICS, Windows 10 1709
// and later, on NTFS), as rename(2) does and Go's own os.Root does: it succeeds over
// a file another handle holds open (opened with FILE_SHARE_DELETE, as every open
// here is), which keeps reading what it opened. The older rename, the fallback where
// that is not implemented (FAT, Wine 8), is refused with access denied while the file
// it would replace is open: a call reading a file while another replaced it failed.
func Rename(h Handle, dir Handle, newname string, replace bool) error {
	if err := CheckName(newname); err != nil {
		return err
	}
	name, err := windows.UTF16FromString(newname)
	if err != nil {
		return err
	}
	name = name[:len(name)-1]
	buf := make([]byte, unsafe.Sizeof(fileRenameInformation{})+uintptr(2*len(name)))
	ri := (*fileRenameInformation)(unsafe.Pointer(&buf[0]))
	ri.RootDirectory = dir
	ri.FileNameLength = uint32(2 * len(name))
	// FileName starts right after FileNameLength: at 20 on 64-bit Windows.
	start := unsafe.Offsetof(ri.FileNameLength) + 4
	copy(unsafe.Slice((*uint16)(unsafe.Pointer(&buf[start])), len(name)), name)
	// The length given is the whole buffer: Windows refuses one under
	// sizeof(FILE_RENAME_INFORMATION), 24 bytes with its padding, as
	// STATUS_INVALID_PARAMETER, which the name's own end (20+2) was for a one-letter name.
	var iosb windows.IO_STATUS_BLOCK
	if replace {
		ri.ReplaceIfExists = windows.FILE_RENAME_REPLACE_IF_EXISTS | windows.FILE_RENAME_POSIX_SEMANTICS
		err = windows.NtSetInformationFile(h, &iosb, &buf[0], uint32(len(buf)), fileRenameInformationEx)
		switch err {
		case windows.STATUS_INVALID_INFO_CLASS, windows.STATUS_NOT_IMPLEMENTED, windows.STATUS_INVALID_PARAMETER, windows.STATUS_NOT_SUPPORTED:
			ri.ReplaceIfExists = 1 // a file system without it (FAT), or an older Windows
		case nil:
			return nil
		default:
			return errorOf(err)
		}
	}
	// The older rename is refused while the file it would replace is open. Those who
	// hold it (a call reading it beside this one, an indexer, a virus scanner) hold it
	// briefly: a replace is tried again for about a second.
	for wait := time.Millisecond; ; wait *= 2 {
		err = windows.NtSetInformationFile(h, &iosb, &buf[0], uint32(len(buf)), windows.FileRenameInformation)
		if !replace || err != windows.STATUS_ACCESS_DENIED && err != windows.STATUS_SHARING_VIOLATION || wait > 512*time.Millisecond {
			break
		}
		time.Sleep(wait)
	}
	if err != nil {
		return errorOf(err)
	}
	return nil
}

// RenameAt renames oldname to newname, both in folder dir, the file itself even if
// it is a reparse point.
func RenameAt(dir Handle, oldname, newname string, replace bool) error {
	h, err := OpenAt(dir, oldname, Delete, windows.FILE_OPEN, 0, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return Rename(h, dir, newname, replace)
}

// fileDispositionInformationEx is FILE_DISPOSITION_INFORMATION_EX.
type fileDispositionInformationEx struct{ Flags uint32 }

// DeleteHandle deletes the file open at h (with DELETE access). It goes at once where
// the file system does POSIX deletion; elsewhere when its last handle is closed.
func DeleteHandle(h Handle) error {
	var iosb windows.IO_STATUS_BLOCK
	ex := fileDispositionInformationEx{Flags: windows.FILE_DISPOSITION_DELETE | windows.FILE_DISPOSITION_POSIX_SEMANTICS}
	err := windows.NtSetInformationFile(h, &iosb, (*byte)(unsafe.Pointer(&ex)), uint32(unsafe.Sizeof(ex)), windows.FileDispositionInformationEx)
	switch err {
	case nil:
		return nil
	case windows.STATUS_INVALID_INFO_CLASS, windows.STATUS_NOT_IMPLEMENTED, windows.STATUS_INVALID_PARAMETER, windows.STATUS_NOT_SUPPORTED:
	default:
		return errorOf(err)
	}
	del := byte(1)
	if err := windows.NtSetInformationFile(h, &iosb, &del, 1, windows.FileDispositionInformation); err != nil {
		return errorOf(err)
	}
	return nil
}

// Kind selects what DeleteAt removes.
type Kind int

const (
	AnyKind Kind = iota
	FileOnly
	DirOnly
)

// DeleteAt removes name in dir, a reparse point as itself: a file only (EISDIR for a
// folder), a folder only (ErrNotDir for a file; a folder that is not empty stays), or
// either.
func DeleteAt(dir Handle, name string, kind Kind) error {
	var opts uint32
	switch kind {
	case FileOnly:
		opts = windows.FILE_NON_DIRECTORY_FILE
	case DirOnly:
		opts = windows.FILE_DIRECTORY_FILE
	}
	h, err := OpenAt(dir, name, Delete, windows.FILE_OPEN, opts, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return DeleteHandle(h)
}

// Mkdir makes folder name in dir.
func Mkdir(dir Handle, name string, readOnly bool) error {
	var attrs uint32
	if readOnly {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	h, err := OpenAt(dir, name, ReadAttrs, windows.FILE_CREATE, windows.FILE_DIRECTORY_FILE, attrs)
	if err != nil {
		return err
	}
	return windows.CloseHandle(h)
}

// SetReadOnly sets or clears the read-only attribute of the file open at h (with
// WriteAttrs access).
func SetReadOnly(h Handle, readOnly bool) error {
	var b fileBasicInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&b)), uint32(unsafe.Sizeof(b))); err != nil {
		return err
	}
	a := b.FileAttributes &^ windows.FILE_ATTRIBUTE_READONLY
	if readOnly {
		a |= windows.FILE_ATTRIBUTE_READONLY
	}
	if a == b.FileAttributes {
		return nil
	}
	if a == 0 {
		a = windows.FILE_ATTRIBUTE_NORMAL
	}
	set := fileBasicInfo{FileAttributes: a} // zero times: left as they are
	return windows.SetFileInformationByHandle(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&set)), uint32(unsafe.Sizeof(set)))
}

// Sync flushes what was written to h to the disk (FlushFileBuffers). A folder's
// handle opened for reading cannot be flushed: NTFS logs the changes of its entries
// (creations, renames) in its own journal, so that is not an error.
//
// A file's handle opened only for reading cannot be flushed either (the flush needs
// write or append access), and vfs syncs files it wrote earlier through such a handle
// (a checkpoint, recovery): the file is then opened again for appending, which
// writes nothing, and flushed through that.
func Sync(h Handle, folder bool) error {
	err := windows.FlushFileBuffers(h)
	if folder && (err == windows.ERROR_ACCESS_DENIED || err == windows.ERROR_INVALID_FUNCTION || err == windows.ERROR_INVALID_HANDLE) {
		return nil
	}
	if !folder && err == windows.ERROR_ACCESS_DENIED {
		w, rerr := reopen(h, windows.FILE_APPEND_DATA, windows.FILE_NON_DIRECTORY_FILE)
		if rerr != nil {
			return err
		}
		defer windows.CloseHandle(w)
		return windows.FlushFileBuffers(w)
	}
	return err
}

// Close closes h.
func Close(h Handle) error { return windows.CloseHandle(h) }

// Streams returns the names of the file's alternate data streams (its unnamed data
// stream left out), which a copy of its data would lose. A file system that does not
// report streams has none.
func Streams(h Handle) ([]string, error) {
	buf := make([]byte, 4096)
	for {
		var iosb windows.IO_STATUS_BLOCK
		err := windows.NtQueryInformationFile(h, &iosb, &buf[0], uint32(len(buf)), fileStreamInformation)
		switch err {
		case nil:
		case windows.STATUS_BUFFER_OVERFLOW, windows.STATUS_BUFFER_TOO_SMALL:
			if len(buf) >= 1<<20 {
				return nil, errorOf(err)
			}
			buf = make([]byte, 2*len(buf))
			continue
		case windows.STATUS_INVALID_INFO_CLASS, windows.STATUS_NOT_IMPLEMENTED, windows.STATUS_INVALID_PARAMETER, windows.STATUS_NOT_SUPPORTED:
			return nil, nil
		default:
			return nil, errorOf(err)
		}
		if iosb.Information == 0 {
			return nil, nil
		}
		var out []string
		for off := 0; off+24 <= len(buf); {
			next := int(*(*uint32)(unsafe.Pointer(&buf[off])))
			n := int(*(*uint32)(unsafe.Pointer(&buf[off+4])))
			if off+24+n > len(buf) {
				break
			}
			name := windows.UTF16ToString(unsafe.Slice((*uint16)(unsafe.Pointer(&buf[off+24])), n/2))
			if name != "::$DATA" {
				out = append(out, name)
			}
			if next == 0 {
				break
			}
			off += next
		}
		return out, nil
	}
}

// fileStreamInformation is FILE_INFORMATION_CLASS FileStreamInformation.
const fileStreamInformation = 22

// SetTimes sets the access and modification times of the file open at h.
func SetTimes(h Handle, atime, mtime time.Time) error {
	a := windows.NsecToFiletime(atime.UnixNano())
	m := windows.NsecToFiletime(mtime.UnixNano())
	return windows.SetFileTime(h, nil, &a, &m)
}

// Access is the access an open(2)-style flag asks for, beside base: read, write or
// both, and appending only where O_APPEND is given.
func Access(flag int, base uint32) uint32 {
	access := base
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access |= windows.GENERIC_READ
	case os.O_WRONLY:
		access |= windows.GENERIC_WRITE
	case os.O_RDWR:
		access |= windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		// Only a handle without FILE_WRITE_DATA writes at the end whatever its
		// offset; GENERIC_WRITE grants it, so it goes, and the rest of what it
		// stands for is asked by name (as Go's syscall.Open does). Clearing only the
		// FILE_WRITE_DATA bit left GENERIC_WRITE: every "append" wrote from offset 0
		// over the file's first lines (the marks and temps files).
		access = access&^windows.GENERIC_WRITE | windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES |
			windows.FILE_WRITE_EA | windows.STANDARD_RIGHTS_WRITE | windows.SYNCHRONIZE
	}
	return access
}

// ProcessAlive reports whether process pid exists and has not exited.
func ProcessAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
