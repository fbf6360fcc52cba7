package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// The journal's own files (.vfsctl/ and journal.db, holder, marks, temps, lock,
// .gitignore and the queue's folder turns/ in it) live in the workspace, where anyone
// who can write the workspace can replace them: a symlink would send vfsctl's writes
// outside the root, a FIFO would hang every call. So the folder is opened once per
// hold, by handle: below Options.Root one component at a time, never through a
// symlink; each file is then opened relative to that handle with O_NOFOLLOW, without
// blocking, and used only if it is a regular file. Nothing re-walks a host path.

// ownFiles are the journal folder's files that open checks before anything else.
var ownFiles = []string{"journal.db", "holder", "marks", "temps", "lock", ".gitignore", walName}

// A hard link in the folder is another file under one of these names: a file outside
// the root on the same filesystem (ln ../victim .vfsctl/holder), written through
// it, would be written wherever it is. So no file of the folder is truncated, written
// or removed until it is known to be a regular file with one link that this process's
// user owns (writable): open checks the file it opened before anything touches it,
// truncates only then (never with O_TRUNC), and remove leaves whatever is not such a
// file for the next open to refuse, naming it. Two files are checked with less:
// journal.db may belong to another user, which identity.go refuses (and Adopt reads
// without writing), and .gitignore is never opened once it exists.

// dirHandle is the journal's folder, open.
type dirHandle struct {
	fd   handle
	name string // the folder as messages name it, relative to the root ("" if unknown)
}

// entryKind is what an entry of the folder is.
type entryKind int

const (
	kindOther entryKind = iota
	kindFile
	kindDir
	kindLink // a symlink, or on Windows any reparse point
	kindFIFO
	kindSocket
	kindDevice
)

// entry is what the journal reads of a stat, on every system.
type entry struct {
	kind     entryKind
	Links    uint64
	mine     bool   // this process's user owns it
	owner    string // who does, for messages: "uid 1000", or a Windows SID
	Size     int64
	perm     os.FileMode
	mtime    time.Time
	Dev, Ino uint64
}

// errNotOurs is the cause of an open refused for what stands at the name: a symlink,
// a FIFO, a folder where a file belongs, or the reverse. The caller says which.
var errNotOurs = errors.New("not what vfsctl makes there")

// show names a file of the folder in a message: relative to the workspace root, never
// a host path outside it.
func (d *dirHandle) show(name string) string {
	if d.name == "" {
		return name
	}
	return d.name + "/" + name
}

func (d *dirHandle) close() {
	if d != nil && d.fd != noHandle {
		closeHandle(d.fd)
		d.fd = noHandle
	}
}

// folderName is how messages name the journal's folder.
func (j *Journal) folderName() string {
	if j.opts.Root == "" {
		return ""
	}
	rel, err := filepath.Rel(j.opts.Root, filepath.Dir(j.path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// showPath names the journal file in messages.
func (j *Journal) showPath() string {
	if n := j.folderName(); n != "" {
		return n + "/" + filepath.Base(j.path)
	}
	return filepath.Base(j.path)
}

// openDir opens the journal's folder, creating it when create is set. With a Root, the
// root is trusted as the user named it and every component below it is opened without
// following a symlink; without one, the folder is trusted as named.
func (j *Journal) openDir(create bool) (*dirHandle, error) {
	dir := filepath.Dir(j.path)
	name := j.folderName()
	if name == "" {
		if create {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, errs.Wrap(errs.IOError, "", err, "Cannot create the journal's folder: %v.", errors.Unwrap(err))
			}
		}
		fd, err := openRoot(dir)
		if err != nil {
			return nil, errs.Wrap(errs.IOError, "", err, "Cannot open the journal's folder: %v.", err)
		}
		return &dirHandle{fd: fd}, nil
	}
	fd, err := openRoot(j.opts.Root)
	if err != nil {
		// A root that may be searched but not listed (a command's chmod 311 .): the
		// folder right under it opens in one open, as lookDir opens it.
		if !strings.Contains(name, "/") {
			if fd, ok := openDirUnder(j.opts.Root, name); ok {
				return &dirHandle{fd: fd, name: name}, nil
			}
		}
		return nil, errs.Wrap(errs.IOError, "", err, "Cannot open the workspace root: %v.", err)
	}
	done := ""
	for _, c := range strings.Split(name, "/") {
		done = filepath.ToSlash(filepath.Join(done, c))
		sub, err := openSubdir(fd, c, done, create)
		closeHandle(fd)
		if err != nil {
			return nil, err
		}
		fd = sub
	}
	return &dirHandle{fd: fd, name: name}, nil
}

// lookDir opens the journal's folder to look at, as openDir(false) does. A folder
// right under the root (.vfsctl) is opened in one open where the system can: the
// root's path followed as openRoot follows it, the folder's own name not followed,
// where openDir opens and closes the root first (two system calls a call).
func (j *Journal) lookDir() (*dirHandle, error) {
	if name := j.folderName(); name != "" && !strings.Contains(name, "/") {
		if fd, ok := openDirUnder(j.opts.Root, name); ok {
			return &dirHandle{fd: fd, name: name}, nil
		}
	}
	return j.openDir(false)
}

// openSubdir opens folder name in at without following a symlink; show names it in
// messages.
func openSubdir(at handle, name, show string, create bool) (handle, error) {
	for try := 0; ; try++ {
		fd, err := openDirAt(at, name)
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, os.ErrNotExist) && create && try == 0:
			if err := mkdirAt(at, name); err != nil && !errors.Is(err, os.ErrExist) {
				return noHandle, errs.Wrap(errs.IOError, "", err, "Cannot create %s: %v.", show, err)
			}
			continue
		case errors.Is(err, os.ErrNotExist):
			return noHandle, errs.Wrap(errs.IOError, "", os.ErrNotExist, "%s does not exist.", show)
		case errors.Is(err, errNotOurs):
			return noHandle, notOurs(at, name, show, "folder")
		}
		return noHandle, errs.Wrap(errs.IOError, "", err, "Cannot open %s: %v.", show, err)
	}
}

// describe says what the entry name in at is, for a refusal.
func describe(at handle, name string) string {
	st, err := statAt(at, name)
	if err != nil {
		return "not what vfsctl made"
	}
	switch st.kind {
	case kindLink:
		return "a symlink"
	case kindFIFO:
		return "a FIFO"
	case kindSocket:
		return "a socket"
	case kindDevice:
		return "a device"
	case kindDir:
		return "a folder"
	case kindFile:
		return "a file" // where a folder belongs
	}
	return "not a regular file"
}

// notOurs refuses a journal file that is not what vfsctl makes there.
func notOurs(at handle, name, show, want string) error {
	return errs.New(errs.IOError, "", "The journal's %s %s is %s, which vfsctl never makes there and does not follow. Remove %s (vfsctl makes a new one) and retry.", want, show, describe(at, name), show)
}

// check refuses the folder's own files that exist but are not regular files, and a
// queue entry that is not a folder: what open checks before it uses any of them. Then
// it refuses those of the files vfsctl writes that are hard links or another user's,
// naming every one.
func (d *dirHandle) check() error {
	for _, n := range ownFiles {
		if err := d.checkEntry(n, kindFile, "file"); err != nil {
			return err
		}
	}
	if err := d.checkEntry(queueDir, kindDir, "folder"); err != nil {
		return err
	}
	var all []string
	for _, n := range ownFiles {
		st, ok := d.stat(n)
		if n == ".gitignore" || !ok {
			continue
		}
		if err := d.unwritable(n, &st, n != "journal.db"); err != nil {
			all = append(all, err.(*errs.Error).Message)
		}
	}
	if len(all) > 0 {
		return errs.New(errs.IOError, "", "%s", strings.Join(all, " "))
	}
	return nil
}

// writable reports whether st is a file vfsctl may write: a regular file with one
// link, of this process's user.
func writable(st *entry) bool {
	return st.kind == kindFile && st.Links == 1 && st.mine
}

// unwritable says why the folder's regular file name (st) is not one vfsctl writes: a
// hard link, or, when mine is set, a file of another user. nil if it is neither.
func (d *dirHandle) unwritable(name string, st *entry, mine bool) error {
	show := d.show(name)
	again := fmt.Sprintf("Remove %s (vfsctl makes a new one) and retry.", show)
	if name == "journal.db" {
		// Its content is the history: a copy of its own keeps it.
		again = fmt.Sprintf("To keep its history, replace it by a copy of its own (cp %s %s.copy && mv %s.copy %s) and retry.", show, show, show, show)
	}
	switch {
	case st.Links > 1:
		// A hard link: writing it would write another file, wherever that is.
		return errs.New(errs.IOError, "", "The journal's file %s is a hard link to another file (%d links), which vfsctl never makes and does not write. %s", show, st.Links, again)
	case mine && !st.mine:
		return errs.New(errs.IOError, "", "The journal's file %s belongs to another user (%s), and vfsctl writes no file of another user's there. %s", show, st.owner, again)
	}
	return nil
}

func (d *dirHandle) checkEntry(name string, want entryKind, what string) error {
	st, err := statAt(d.fd, name)
	if err != nil || st.kind == want {
		return nil // absent (or unreadable: its open reports it)
	}
	return notOurs(d.fd, name, d.show(name), what)
}

// stat returns the entry name without following a symlink; ok is false if it is absent.
func (d *dirHandle) stat(name string) (entry, bool) {
	st, err := statAt(d.fd, name)
	return st, err == nil
}

// open opens the folder's file name: never through a symlink, without blocking on a
// FIFO, and only if it is a regular file with one link; opened for writing, only if
// this process's user owns it. O_TRUNC truncates it once that is known.
func (d *dirHandle) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	trunc := flag&os.O_TRUNC != 0
	fd, err := openFileAt(d.fd, name, flag&^os.O_TRUNC, perm)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &os.PathError{Op: "open", Path: d.show(name), Err: os.ErrNotExist}
		}
		if errors.Is(err, errNotOurs) {
			return nil, notOurs(d.fd, name, d.show(name), "file")
		}
		return nil, &os.PathError{Op: "open", Path: d.show(name), Err: err}
	}
	f := os.NewFile(uintptr(fd), d.show(name))
	st, err := statHandle(fd)
	if err != nil {
		f.Close()
		return nil, &os.PathError{Op: "stat", Path: d.show(name), Err: err}
	}
	if st.kind != kindFile {
		f.Close()
		return nil, notOurs(d.fd, name, d.show(name), "file")
	}
	if err := d.unwritable(name, &st, flag&(os.O_WRONLY|os.O_RDWR) != 0); err != nil {
		f.Close()
		return nil, err
	}
	if trunc {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, &os.PathError{Op: "truncate", Path: d.show(name), Err: err}
		}
	}
	return f, nil
}

// remove removes the folder's file name if it is one vfsctl may write (writable);
// anything else is left for the next open to refuse, naming it. Between the check and
// the removal someone may swap the entry: removing a name harms no other file.
func (d *dirHandle) remove(name string) error {
	st, err := statAt(d.fd, name)
	if err != nil {
		return err
	}
	if !writable(&st) {
		return &os.PathError{Op: "remove", Path: d.show(name), Err: os.ErrPermission}
	}
	return unlinkAt(d.fd, name, false)
}

// rename replaces the folder's file to with from.
func (d *dirHandle) rename(from, to string) error { return renameAt(d.fd, from, to) }

// cutShort reports, from the file's meta pages, whether a bbolt file of size bytes lost
// its end: bbolt maps what its meta pages claim, and reading a page past the end of
// the file is a fault, not an error. "" means the size is consistent (or the file is
// not bbolt's, which bbolt reports itself).
func cutShort(f *os.File, size int64) string {
	var pageSize, pages int64
	for i := range 2 {
		var m [80]byte
		off := int64(i) * 4096
		if i == 1 && pageSize > 0 {
			off = pageSize
		}
		if n, _ := f.ReadAt(m[:], off); n < len(m) {
			continue
		}
		meta, ok := readMeta(m[:])
		if !ok {
			continue
		}
		ps, pg := meta.pageSize, meta.pages
		if i == 0 {
			pageSize = ps
		}
		pages = max(pages, pg)
		if pageSize == 0 {
			pageSize = ps
		}
	}
	switch {
	case pageSize <= 0:
		return ""
	case size%pageSize != 0:
		return fmt.Sprintf("it is %d bytes, not a whole number of %d-byte pages: it was cut short", size, pageSize)
	case size < pages*pageSize:
		return fmt.Sprintf("it is %d bytes where its header counts %d pages of %d bytes: it was cut short", size, pages, pageSize)
	}
	return ""
}

// withoutFreelist reports, from the file's meta pages, whether the one bbolt will use
// names no freelist. bbolt then rebuilds the freelist by walking every page of the
// tree in a goroutine of its own, where a damaged page is a panic nothing can
// recover: the process dies. vfsctl never writes such a file, so it is refused as
// damage before bbolt reads it. "" means it names one (or the file is not bbolt's,
// which bbolt reports itself).
func withoutFreelist(f *os.File) string {
	var metas [2]meta
	var valid [2]bool
	read := func(i int, off int64) {
		var m [80]byte
		if n, _ := f.ReadAt(m[:], off); n == len(m) {
			metas[i], valid[i] = readMeta(m[:])
			valid[i] = valid[i] && metas[i].version == 2 // as bbolt validates them
		}
	}
	// As bbolt finds them: the second meta page one page size (the first's, else
	// the system's) after the first.
	read(0, 0)
	ps := int64(os.Getpagesize())
	if valid[0] {
		ps = metas[0].pageSize
	}
	read(1, ps)
	// bbolt uses the valid meta page with the higher transaction id (the first on
	// a tie).
	use := -1
	switch {
	case valid[0] && valid[1]:
		use = 0
		if metas[1].txid > metas[0].txid {
			use = 1
		}
	case valid[0]:
		use = 0
	case valid[1]:
		use = 1
	}
	if use < 0 || metas[use].freelist != noFreelist {
		return ""
	}
	return "its meta page names no freelist (written with bbolt's NoFreelistSync, which vfsctl never uses), so bbolt would have to walk every page to rebuild it, and a damaged page would crash this process"
}

// PlaceID is the identity of the journal at its place now: its folder's and its file's
// (device and inode), looked up from the root one component at a time without
// following a symlink and without creating anything. It is "" when no folder holding
// a journal file stands there: removed, moved away, or replaced by a symlink. A
// process that ran something able to remove or replace them (a command) compares it
// with the identity before it, and writes nothing when they differ: a journal made
// anew, one moved elsewhere, or a copy put in its place is not the workspace's history.
func (j *Journal) PlaceID() string {
	dir, file := j.place(true)
	if file == "" {
		return ""
	}
	return dir + "/" + file
}

// fileID is the identity of the bbolt file as this process holds it open ("" when
// it is not), and atPlace that of the file at the journal's place now, looked up as
// PlaceID does ("" when none is there).
func (j *Journal) fileID() string {
	if j.file == nil {
		return ""
	}
	if j.fileIdent != "" {
		return j.fileIdent // an open file's device and inode do not change
	}
	st, err := statHandle(handle(j.file.Fd()))
	if err != nil {
		return ""
	}
	j.fileIdent = fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	return j.fileIdent
}

func (j *Journal) atPlace() string {
	_, file := j.place(false)
	return file
}

// testHookPlace, when set by a test, runs at each look-up of the journal's place.
var testHookPlace func()

// place looks up the identities of the journal's folder (with withDir; "" without)
// and of the file at its place ("dev:ino" each; "" when none stands there), without
// following a symlink.
func (j *Journal) place(withDir bool) (dir, file string) {
	if testHookPlace != nil {
		testHookPlace()
	}
	d, err := j.lookDir()
	if err != nil {
		return "", ""
	}
	defer d.close()
	f, ok := d.stat(filepath.Base(j.path))
	if !ok || f.kind != kindFile {
		return "", ""
	}
	file = fmt.Sprintf("%d:%d", f.Dev, f.Ino)
	if !withDir {
		return "", file
	}
	st, err := statHandle(d.fd)
	if err != nil {
		return "", ""
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), file
}

// Gone marks the journal gone for this process: the file it opened was removed,
// moved or replaced under it (why says by what, e.g. "call 2's command"). Every
// Acquire from then on is refused with the error returned, and the hold ends when
// its last call does: nothing is written to a journal that is not the workspace's,
// nor to a new one in its place, which would start another history unseen.
func (j *Journal) Gone(why string) error {
	if why != "" {
		why = " (" + why + ")"
	}
	err := error(errs.New(errs.IOError, "", "The journal %s is gone or was replaced since this process opened it%s. Nothing was written, and this process writes no journal from now on: one moved elsewhere, or a new one in its place, is not this workspace's history. Restart vfsctl: it opens the journal at the root, or starts a new history.", j.showPath(), why))
	if j.gone.CompareAndSwap(nil, &err) {
		return err
	}
	return *j.gone.Load()
}

// Shown names the journal file as messages do: relative to the workspace root.
func (j *Journal) Shown() string { return j.showPath() }
