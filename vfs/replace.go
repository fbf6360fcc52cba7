package vfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// TempPrefix starts the names of temp files; they are hidden and easy to spot if a
// crash ever leaves one behind.
const TempPrefix = ".vfsctl-tmp-"

// Replace atomically replaces the existing regular file at canonical path p with data,
// keeping its mode and, where permitted, its owner. The steps are those of renameio,
// done through the confined afero.Fs rather than host paths: the temp file lives in the
// target's own directory (rename is atomic only within one filesystem), is fsynced
// before the rename (else a crash can leave the new name pointing at empty data), and
// the directory is fsynced after it (else the rename itself can be lost).
func (f *FS) Replace(p string, data []byte) error {
	_, err := f.ReplaceID(p, data)
	return err
}

// ReplaceID is Replace, returning the identity of the new file as written (before the
// rename, so that a change by someone else after it cannot be mistaken for ours).
func (f *FS) ReplaceID(p string, data []byte) (Identity, error) {
	fi, err := f.checkReplace(p)
	if err != nil {
		return Identity{}, err
	}
	return f.writeAtomic(p, data, fi, true)
}

// checkReplace refuses what cannot be replaced: not a regular file, read-only, or
// with other hard links.
func (f *FS) checkReplace(p string) (fs.FileInfo, error) {
	fi, err := f.fs.Stat(p)
	if err != nil {
		return nil, f.osError(p, err)
	}
	return fi, f.checkInfo(p, fi)
}

// checkInfo is checkReplace's refusal, of the file with stat fi.
func (f *FS) checkInfo(p string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() && !writable(fi) {
		return errs.New(errs.PermissionDenied, p, "%s is read-only (mode %v); nothing was written.", p, fi.Mode().Perm())
	}
	return checkSingle(p, fi)
}

// checkSingle refuses to replace what is not a regular file or has other hard links.
func checkSingle(p string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return errs.New(errs.NotAFile, p, "%s is not a regular file.", p)
	}
	if n := Links(fi); n > 1 {
		return errs.New(errs.NotAFile, p, "%s has %d hard links; replacing it would detach it from its other names. Break the link outside vfsctl first, or edit another file.", p, n).Stood(errs.FoundHardLinks, "")
	}
	return nil
}

// Create writes a new file at canonical path p, creating missing parent directories.
// It refuses a path that exists in any form, a dangling symlink included. The file
// appears whole (temp file and rename); a file that another program creates at the same
// path between the check and the rename would be replaced: within vfsctl the file's
// queue and the journal's lock rule that out.
func (f *FS) Create(p string, data []byte) error {
	_, _, err := f.CreateDirs(p, data, 0)
	return err
}

// CreatedMode is the mode a file CreateDirs makes gets from mode: its permission bits
// (read, write, execute), 0644 when it has none. Not setuid, setgid or sticky: the new
// file belongs to the user vfsctl runs as, who must not take over another's setuid
// program by a move or an undo.
func CreatedMode(mode fs.FileMode) fs.FileMode {
	if mode&fs.ModePerm == 0 {
		return 0o644
	}
	return mode & fs.ModePerm
}

// CreateDirs is Create with CreatedMode(mode) (a file put back or moved keeps its
// own), returning the identity of the new file as written and the folders it made,
// outermost first, so that a caller undoing the create can remove them (RemoveDirs). The new folders and the folder above them are synced: an
// acknowledged create survives a power loss. When it fails, it removes the folders
// it made.
func (f *FS) CreateDirs(p string, data []byte, mode fs.FileMode) (id Identity, made []string, err error) {
	return f.createDirs(p, data, mode, true)
}

// CreateDirsNoSync is CreateDirs without a single fsync: the file's data, its name and
// the new folders' names reach disk when the kernel writes them back, or when the caller
// syncs them (SyncFile, SyncDir on the file's folder and on the folder above each new
// one). THIS IS UNSAFE on its own: a power loss can leave the file empty or absent.
// The journal-durable mode uses it, with the journal able to redo the write.
func (f *FS) CreateDirsNoSync(p string, data []byte, mode fs.FileMode) (id Identity, made []string, err error) {
	return f.createDirs(p, data, mode, false)
}

func (f *FS) createDirs(p string, data []byte, mode fs.FileMode, sync bool) (id Identity, made []string, err error) {
	id, made, placed, err := f.createDirsOnce(p, data, mode, sync)
	if err != nil && !placed && (errors.Is(err, errFolderGone) || errors.Is(err, fs.ErrNotExist)) {
		// A folder of the path was removed before the file took its place there: an
		// undo removing the folders its own create had made, found empty a moment
		// before. The folders are made again, once.
		id, made, _, err = f.createDirsOnce(p, data, mode, sync)
	}
	return id, made, err
}

// createDirsOnce is one try of createDirs; placed says the file took its place.
func (f *FS) createDirsOnce(p string, data []byte, mode fs.FileMode, sync bool) (id Identity, made []string, placed bool, err error) {
	if _, err := f.lstat(p); err == nil {
		return Identity{}, nil, false, existsError(p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Identity{}, nil, false, f.osError(p, err)
	}
	dir := path.Dir(p)
	if dir != "." {
		if made, err = f.mkdirs(dir); err != nil {
			f.RemoveDirs(made)
			if errors.Is(err, syscall.ENOTDIR) {
				return Identity{}, nil, false, errs.Wrap(errs.NotAFile, p, err, "Cannot create %s: a part of its folder path is a file.", p)
			}
			return Identity{}, nil, false, f.osError(p, err)
		}
	}
	st, err := f.stage(p, data, nil, mode, sync)
	if err == nil {
		st.create = true
		id, err = st.Commit()
		if err != nil && st.placed {
			// The folder's sync failed after the rename: the file is there, and the
			// caller's rollback removes it, then the folders made for it.
			return Identity{}, made, true, err
		}
	}
	if err != nil {
		f.RemoveDirs(made)
		return Identity{}, nil, false, err
	}
	if !sync {
		return id, made, true, nil
	}
	// The file's own folder was synced by the rename; each new folder's entry lives in
	// the folder above it. Past this point the file exists: on an error the caller's
	// rollback removes it, and then the folders made.
	if len(made) > 0 {
		if err = f.syncChain(append([]string{path.Dir(made[0])}, made[:len(made)-1]...)); err != nil {
			return Identity{}, made, true, err
		}
	}
	return id, made, true, nil
}

// syncChain syncs the folders dirs, each the one above the next, in one walk down:
// the first walked to from the root, each next entered from the one above it, held
// open (never through a symlink), where a sync of each by its path walked from the
// root again, d² looks for d folders.
func (f *FS) syncChain(dirs []string) error {
	top := dirs[0]
	if top == "." {
		top = ""
	}
	at, err := f.cursor(top)
	if err != nil {
		return f.osError(dirs[0], err)
	}
	defer func() { at.close() }()
	for i, d := range dirs {
		if i > 0 {
			next, err := at.enter(path.Base(d))
			if err != nil {
				return f.osError(d, err)
			}
			at.close()
			at = next
		}
		held, err := syncHeld(at)
		if !held {
			err = f.syncDir(d) // a filesystem without handles: by its path
		}
		if err != nil {
			return f.osError(d, err)
		}
	}
	return nil
}

// mkdirs creates the missing folders of dir and returns them, outermost first.
func (f *FS) mkdirs(dir string) ([]string, error) {
	if r, ok := f.fs.(rootFs); ok {
		return r.mkdirAll(dir, 0o755)
	}
	var made []string
	cur := ""
	for _, c := range strings.Split(dir, "/") {
		cur = path.Join(cur, c)
		if _, err := f.lstat(cur); err == nil {
			continue
		}
		if err := f.fs.MkdirAll(cur, 0o755); err != nil {
			return made, err
		}
		made = append(made, cur)
	}
	return made, nil
}

// IsFolder reports whether canonical path p is a folder (not a symlink to one).
func (f *FS) IsFolder(p string) bool {
	fi, err := f.lstat(p)
	return err == nil && fi.IsDir()
}

// MissingFolders are the folders above canonical path p that are not there,
// shallowest first: those a create of p would make now. They are found in one walk
// down from the root, each folder entered from the one above it, held open: those
// below the first name that is not a folder there (missing, a file, a symlink, or a
// folder that cannot be entered) are missing.
func (f *FS) MissingFolders(p string) []string {
	dir := path.Dir(p)
	if dir == "." || dir == "/" {
		return nil
	}
	comps := strings.Split(dir, "/")
	missing := func(from int) []string {
		var out []string
		for i := from; i < len(comps); i++ {
			out = append(out, strings.Join(comps[:i+1], "/"))
		}
		return out
	}
	at, err := f.cursor("")
	if err != nil {
		return missing(0)
	}
	defer func() { at.close() }()
	for i, c := range comps {
		fi, err := at.lstat(c)
		if err != nil {
			return missing(i)
		}
		if !fi.IsDir() {
			return missing(i + 1)
		}
		next, err := at.enter(c)
		if err != nil {
			return missing(i + 1)
		}
		at.close()
		at = next
	}
	return nil
}

// RemoveDirs removes the folders a create made (as CreateDirs returned them), innermost
// first, where they are empty; a folder something else was put in stays. Each is
// removed from the folder above it, held (Looker): a chain of d folders costs d
// looks, not d².
func (f *FS) RemoveDirs(made []string) {
	l := f.Looker()
	defer l.Close()
	for i := len(made) - 1; i >= 0; i-- {
		if l.rmdir(made[i]) != nil {
			return
		}
	}
	if len(made) > 0 {
		f.syncDir(path.Dir(made[0]))
	}
}

// RemoveDir removes folder dir (a canonical path) only while it is an empty folder,
// and syncs the folder above.
func (f *FS) RemoveDir(dir string) error {
	if err := f.rmdir(dir); err != nil {
		return err
	}
	f.syncDir(path.Dir(dir))
	return nil
}

// rmdir removes dir only while it is an empty folder: a symlink or a file put in its
// place, or a file put in it, stays.
func (f *FS) rmdir(dir string) error {
	if r, ok := f.fs.(rootFs); ok {
		return r.rmdir(dir) // one rmdir(2): no window between the look and the removal
	}
	if fi, err := f.lstat(dir); err != nil || !fi.IsDir() || !f.emptyDir(dir) {
		return &fs.PathError{Op: "rmdir", Path: dir, Err: syscall.ENOTEMPTY}
	}
	return f.fs.Remove(dir)
}

func (f *FS) emptyDir(dir string) bool {
	h, err := f.fs.Open(dir)
	if err != nil {
		return false
	}
	defer h.Close()
	names, err := h.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}

// Remove deletes the file at canonical path p and syncs its directory (undo of a create).
func (f *FS) Remove(p string) error {
	if err := f.RemoveNoSync(p); err != nil {
		return err
	}
	return f.syncDir(path.Dir(p))
}

// RemoveNoSync deletes the file at canonical path p without syncing its folder: a
// power loss can bring the name back until the folder is synced (SyncDir).
func (f *FS) RemoveNoSync(p string) error {
	if err := f.fs.Remove(p); err != nil {
		return f.osError(p, err)
	}
	return nil
}

// SyncFile fsyncs the regular file at canonical path p: the data a NoSync write left
// in the page cache becomes durable. Its name needs SyncDir of its folder.
func (f *FS) SyncFile(p string) error {
	h, err := f.fs.Open(p)
	if err != nil {
		// A file made unreadable since it was written (chmod 000) cannot be opened to
		// be synced, but its bytes can still be made durable: with the rest of the
		// filesystem its folder is on.
		if errors.Is(err, fs.ErrPermission) && f.syncFilesystem(path.Dir(p)) == nil {
			return nil
		}
		return f.osError(p, err)
	}
	defer h.Close()
	// Someone may have put a FIFO or a folder there since: not the file that was
	// written, and fsync of a FIFO fails.
	if fi, err := h.Stat(); err != nil {
		return f.osError(p, err)
	} else if !fi.Mode().IsRegular() {
		return f.osError(p, ErrNotRegular)
	}
	if err := h.Sync(); err != nil {
		// Windows flushes a file only through a handle that may write to it
		// (FlushFileBuffers needs write access): a handle opened for appending writes
		// nothing and may. The root's own files do this in winfs.Sync; this is for
		// any other afero.Fs. (Elsewhere a path opened again for writing could be a
		// FIFO put there since, and an open of it would block.)
		if runtime.GOOS == "windows" && errors.Is(err, fs.ErrPermission) {
			if w, werr := f.fs.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); werr == nil {
				defer w.Close()
				if w.Sync() == nil {
					return nil
				}
			}
		}
		return f.osError(p, err)
	}
	return nil
}

// syncFilesystem syncs the whole filesystem that folder dir is on (syncfs(2)).
func (f *FS) syncFilesystem(dir string) error {
	r, ok := f.fs.(rootFs)
	if !ok {
		return errors.ErrUnsupported
	}
	return r.syncfs(dir)
}

// SyncDir fsyncs the folder at canonical path dir ("." is the root): the creates,
// renames and removals made in it become durable.
func (f *FS) SyncDir(dir string) error { return f.syncDir(dir) }

func (f *FS) writeAtomic(p string, data []byte, old fs.FileInfo, sync bool) (Identity, error) {
	st, err := f.stage(p, data, old, 0, sync)
	if err != nil {
		return Identity{}, err
	}
	return st.Commit()
}

// Staged is new content written beside its file (a temp file in the same directory,
// fsynced, with the file's mode, owner and extended attributes), waiting to be renamed
// over it. Staging does not touch the file, so a caller may stage while it makes its
// journal record durable and rename only after that (Commit), or give up (Abort).
//
// The folder is held by handle from staging to the rename: if a folder in the path is
// swapped meanwhile, the rename still happens in the folder the temp file is in (the
// one that was checked), and the temp file is never left behind.
type Staged struct {
	f         *FS
	dir       folder
	path, tmp string // tmp is a name inside dir
	id        Identity
	done      bool
	sync      bool // fsync the temp file before the rename and the folder after it
	create    bool // the file is new: never replace what someone put there meanwhile
	placed    bool // a create's Commit renamed the content into place (even if it then failed)
	old       int  // a descriptor (O_PATH) of the file being replaced, or -1 (release); f.hmu
	oldSmall  bool // old is held for discard only: let go of by FreeHeld
}

// StageReplace stages data as the new content of the existing regular file p.
func (f *FS) StageReplace(p string, data []byte) (*Staged, error) {
	fi, err := f.checkReplace(p)
	if err != nil {
		return nil, err
	}
	return f.stage(p, data, fi, 0, true)
}

// StageReplaceNoSync is StageReplace without fsync: neither the temp file nor, at
// Commit, the folder is synced. THIS IS UNSAFE on its own: after a power loss the file
// can be found empty, torn, or at its old content. The journal-durable mode uses it,
// with the journal able to redo the write, and syncs in batches (SyncFile, SyncDir).
func (f *FS) StageReplaceNoSync(p string, data []byte) (*Staged, error) {
	fi, err := f.checkReplace(p)
	if err != nil {
		return nil, err
	}
	return f.stage(p, data, fi, 0, false)
}

// StageReplaceStat is StageReplace, or with sync false StageReplaceNoSync, for a caller
// that holds fi, a stat of the file, and checks before Commit that the file still has
// fi's identity (Unchanged): the checks and the metadata kept use fi instead of a stat
// of their own. A nil fi is stat'ed.
func (f *FS) StageReplaceStat(p string, data []byte, fi fs.FileInfo, sync bool) (*Staged, error) {
	if fi == nil {
		var err error
		if fi, err = f.checkReplace(p); err != nil {
			return nil, err
		}
	} else if err := f.checkInfo(p, fi); err != nil {
		return nil, err
	}
	return f.stage(p, data, fi, 0, sync)
}

// StageReplaceAs is StageReplaceStat giving the new content the permission bits
// mode, and replacing a read-only file all the same: an undo putting back the bits
// and content a command changed (a command's chmod 444 is part of what it takes
// back). Only the journal's recorded bits are ever passed; a file that is not
// regular or has other hard links is still refused.
func (f *FS) StageReplaceAs(p string, data []byte, fi fs.FileInfo, mode fs.FileMode, sync bool) (*Staged, error) {
	if fi == nil {
		var err error
		if fi, err = f.fs.Stat(p); err != nil {
			return nil, f.osError(p, err)
		}
	}
	if err := checkSingle(p, fi); err != nil {
		return nil, err
	}
	if mode == 0 {
		mode = fi.Mode()
	}
	return f.stage(p, data, fi, mode, sync)
}

// ReplaceAs is Replace through StageReplaceAs: data with the bits mode, read-only or
// not (a rollback or recovery putting back a file as the journal recorded it).
func (f *FS) ReplaceAs(p string, data []byte, mode fs.FileMode) (Identity, error) {
	st, err := f.StageReplaceAs(p, data, nil, mode, true)
	if err != nil {
		return Identity{}, err
	}
	return st.Commit()
}

// folder opens dir by handle where the filesystem has handles.
func (f *FS) folder(dir string) (folder, error) {
	if r, ok := f.fs.(rootFs); ok {
		return r.openFolder(dir)
	}
	return pathFolder{fs: f.fs, name: dir}, nil
}

// stage writes data beside p: a replace of the file old, which it takes its mode,
// owner and extended attributes from, or a new file (old nil) with CreatedMode(mode).
func (f *FS) stage(p string, data []byte, old fs.FileInfo, mode fs.FileMode, sync bool) (*Staged, error) {
	dir := path.Dir(p)
	d, err := shedding(f, func() (folder, error) { return f.folder(dir) })
	if err != nil {
		return nil, f.osError(p, err)
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := TempPrefix + hex.EncodeToString(rnd[:])
	if f.onTemp != nil {
		f.onTemp(path.Join(dir, tmp))
	}
	// Only the owner may read the temp file until it has the file's own mode.
	h, err := shedding(f, func() (afero.File, error) { return d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) })
	if err != nil {
		d.Close()
		return nil, f.osError(p, err)
	}
	s := &Staged{f: f, dir: d, path: p, tmp: tmp, sync: sync, old: -1}
	staged := false
	defer func() {
		if !staged { // an error, or a panic unwinding through here
			h.Close()
			d.Remove(tmp)
			d.Close()
			s.closeOld()
		}
	}()
	if fd, ok := d.(fdFolder); ok && old != nil {
		f.hold(s, fd, old)
	}
	if _, err = h.Write(data); err != nil {
		return nil, f.osError(p, err)
	}
	switch {
	case old != nil && mode != 0: // StageReplaceAs: the bits asked for
		mode &= fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	case old != nil:
		mode = old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	default:
		mode = CreatedMode(mode)
	}
	fi, err := f.keepMeta(p, d, tmp, h, old, mode)
	if err != nil {
		return nil, err
	}
	// Synced after its mode, owner and attributes are set: a folder's sync makes
	// the rename durable, not the file's own metadata, so a power loss could
	// otherwise leave the new content under the temp file's mode 0600.
	if sync {
		if err = h.Sync(); err != nil {
			return nil, f.osError(p, err)
		}
	}
	if fi == nil {
		fi, _ = h.Stat()
	}
	if fi != nil {
		s.id = identityOf(fi)
	}
	if err = h.Close(); err != nil {
		return nil, f.osError(p, err)
	}
	staged = true
	return s, nil
}

// Commit renames the staged content over its file and syncs the directory. It returns
// the identity of the new file as written (before the rename, so that a change by
// someone else after it cannot be mistaken for ours).
func (s *Staged) Commit() (Identity, error) {
	if s.done {
		return Identity{}, errs.New(errs.IOError, s.path, "%s: staged content was already used.", s.path)
	}
	s.done = true
	defer s.dir.Close()
	defer s.release()
	if s.create {
		return s.commitCreate()
	}
	if !s.sync {
		if x, ok := s.dir.(interface{ Exchange(a, b string) error }); ok {
			switch err := exchange(x, s.dir, s.tmp, path.Base(s.path)); {
			case err == nil:
				return s.id, nil
			case !errors.Is(err, errNoExchange) && !errors.Is(err, fs.ErrNotExist):
				// (The file removed meanwhile: renamed into place, as a rename over it
				// would have done.)
				s.dir.Remove(s.tmp)
				return Identity{}, s.f.osError(s.path, err)
			}
		}
	}
	if err := s.dir.Rename(s.tmp, path.Base(s.path)); err != nil {
		s.dir.Remove(s.tmp)
		return Identity{}, s.f.osError(s.path, err)
	}
	if !s.sync {
		return s.id, nil
	}
	if err := s.dir.Sync(); err != nil {
		return s.id, s.f.osError(s.path, err)
	}
	return s.id, nil
}

// commitCreate renames the staged content of a new file into place, unless a file
// of that name appeared since it was found absent: that file is someone else's, and
// the create fails as if it had been there all along.
func (s *Staged) commitCreate() (Identity, error) {
	// The temp file goes unless it took its place, on an error or a panic in the
	// filesystem alike: a rollback then finds the folders made for it empty.
	defer func() {
		if !s.placed {
			s.dir.Remove(s.tmp)
		}
	}()
	name := path.Base(s.path)
	err := errNoNoReplace
	if nr, ok := s.dir.(interface{ RenameNoReplace(a, b string) error }); ok {
		err = nr.RenameNoReplace(s.tmp, name)
	}
	if errors.Is(err, errNoNoReplace) {
		err = s.dir.Rename(s.tmp, name) // as good as it gets here: absent when staged
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Identity{}, existsError(s.path)
		}
		return Identity{}, s.f.osError(s.path, err)
	}
	s.placed = true
	if s.sync {
		if err := s.dir.Sync(); err != nil {
			return s.id, s.f.osError(s.path, err)
		}
	}
	return s.id, nil
}

// existsError refuses to create p, which exists.
func existsError(p string) error {
	return errs.New(errs.FileExists, p, "%s already exists. Use edit_file to change it, or write_file to replace it whole after reading it.", p)
}

// exchange puts unsynced staged content tmp in place of name in d by swapping the two
// entries, then removes tmp, which holds the old content. A rename over the file
// would do the same, but ext4 (auto_da_alloc) then starts writing the new content
// out at once, and the next sync anywhere on the disk waits for it: the
// journal-durable mode syncs files in batches, and recovery repairs from the journal
// what a power loss took. Should tmp not be a file to remove (something swapped in a
// folder meanwhile), the swap is undone.
func exchange(x interface{ Exchange(a, b string) error }, d folder, tmp, name string) error {
	if err := x.Exchange(tmp, name); err != nil {
		return err
	}
	if err := d.Remove(tmp); err != nil {
		if x.Exchange(tmp, name) == nil {
			d.Remove(tmp)
		}
		return err
	}
	return nil
}

// Abort removes staged content that will not be used.
func (s *Staged) Abort() {
	if s != nil && !s.done {
		s.done = true
		s.dir.Remove(s.tmp)
		s.dir.Close()
		s.closeOld()
	}
}

// Holding a replaced file (hold, release) pays where freeing its blocks is costly:
// on ext4 (the only file system it was measured on; on NFS a removed file still
// held would show as a .nfs file), for files of holdMin bytes or more, or of any
// size where the file system is mounted with discard, and for at most maxHeld files
// of an FS at once, so that a call that changes many files needs at most maxHeld
// descriptors more than without it. The small files replaced and kept until the next
// FreeHeld count apart, up to maxKept more: counted with those held, they used up the
// holds of the call after a call that replaced maxHeld of them.
const (
	holdMin = 64 << 10
	maxHeld = 4
	maxKept = maxHeld
)

// discarding caches, by device, whether ext4 is mounted there with discard.
var discarding sync.Map

// holdPays says whether the replaced file old, in folder d, is worth holding. With
// discard, ext4 frees even a small file's blocks by a request to the device that the
// rename (or the removal of its old name) waits for: on a virtual disk a median 1.8
// ms at a load average of 10, 31 µs for the same rename with the file held.
func holdPays(d fdFolder, old fs.FileInfo) (pays, small bool) {
	switch size := old.Size(); {
	case size == 0: // no blocks to free
		return false, false
	case size >= holdMin:
		return worthHolding(d.fd), false
	}
	id, ok := statIdentity(old)
	if !ok {
		return false, false
	}
	if v, ok := discarding.Load(id.Dev); ok {
		return v.(bool), true
	}
	v := worthHolding(d.fd) && mountDiscards(id.Dev)
	discarding.Store(id.Dev, v)
	return v, true
}

// hold opens the file that s replaces, old, in folder d, by O_PATH, where that pays
// (see release), and keeps the descriptor in s. Only on Linux: elsewhere worthHolding
// is false.
func (f *FS) hold(s *Staged, d fdFolder, old fs.FileInfo) {
	pays, small := holdPays(d, old)
	if !pays {
		return
	}
	if n := f.held.Add(1); n > maxHeld || int(n)+f.freeing.keptNow() > maxHeld+maxKept {
		f.held.Add(-1)
		return
	}
	fd, err := openHold(d.fd, path.Base(s.path))
	if err != nil {
		f.held.Add(-1)
		return
	}
	f.hmu.Lock()
	defer f.hmu.Unlock()
	if f.holding == nil {
		f.holding = map[*Staged]bool{}
	}
	s.old, s.oldSmall = fd, small
	f.holding[s] = true
}

// release lets go of the replaced file, once the rename is done (and, in the
// file-durable mode, synced). While the descriptor held since staging is open, the
// replaced file's inode outlives the rename over it (or, in the journal-durable mode,
// the removal of its old name); closing it frees the file's blocks, which on ext4
// took about a quarter of a durable replace of a 600 KB file, inside the rename. Now
// it runs beside the rest of the call, which does not wait for it, once the call's
// change is durable (the new content in the file-durable mode, its record in the
// journal-durable one). Should the process die first, the kernel frees the blocks
// as it closes the descriptor, and after a power loss the file system does it as it
// mounts. WaitFreed waits for these.
//
// A small file held for discard only is let go of by the next FreeHeld (or
// WaitFreed): a goroutine of its own would wake a thread in each call, for a close
// that the next call's staging goroutine can make once its own work is done. Kept,
// it no longer counts as held (it is counted as kept before it stops being held).
func (s *Staged) release() {
	if fd := s.letGo(); fd >= 0 {
		if s.oldSmall {
			s.f.freeing.later(func() { closeHeld(fd) })
			s.f.held.Add(-1)
			return
		}
		s.f.freeing.Go(func() { s.f.unhold(fd) })
	}
}

// FreeHeld lets go of the small replaced files kept since their replace (release):
// a close that may wait for the device, for a goroutine that does not keep a call
// waiting.
func (f *FS) FreeHeld() { f.freeing.runLater() }

// closeOld closes the descriptor of the replaced file now: nothing was replaced.
func (s *Staged) closeOld() {
	if fd := s.letGo(); fd >= 0 {
		s.f.unhold(fd)
	}
}

// letGo takes the descriptor s holds, or -1: the one who takes it closes it, once.
func (s *Staged) letGo() int {
	s.f.hmu.Lock()
	defer s.f.hmu.Unlock()
	fd := s.old
	s.old = -1
	delete(s.f.holding, s)
	return fd
}

// shed closes every descriptor held for a replace not yet made, and waits for those
// of the replaces made already to close: a staging found no descriptor left, and
// holding a file is worth a descriptor only where one is to spare. Their renames then
// free the files' blocks themselves, as without the hold.
func (f *FS) shed() {
	f.hmu.Lock()
	var fds []int
	for s := range f.holding {
		fds = append(fds, s.old)
		s.old = -1
	}
	clear(f.holding)
	f.hmu.Unlock()
	for _, fd := range fds {
		f.unhold(fd)
	}
	f.WaitFreed()
}

// shedding runs open, which takes a descriptor, and runs it again once f has shed
// the files it holds if it found none left, for the process or the system.
func shedding[T any](f *FS, open func() (T, error)) (T, error) {
	v, err := open()
	if outOfDescriptors(err) {
		f.shed()
		v, err = open()
	}
	return v, err
}

// unhold closes fd, a descriptor hold returned, and counts it as no longer held.
func (f *FS) unhold(fd int) {
	closeHeld(fd)
	f.held.Add(-1)
}

// WaitFreed waits until the files that replaces of this FS let go of are closed
// (Staged.release): the work a call leaves to do after its reply is done.
func (f *FS) WaitFreed() { f.freeing.wait() }

// background runs work on goroutines of its own, and waits for the work added
// before the wait: work added meanwhile (calls that go on while the engine closes)
// counts in a batch of its own, so a wait ends even if work never stops coming.
type background struct {
	mu     sync.Mutex
	cur    *batch   // where new work is counted; nil when none is
	sealed []*batch // batches a wait closed to new work, not done yet
	kept   []func() // work for the next runLater or wait
	nKept  int      // work later kept that is not done yet
}

// later keeps fn for the next runLater or wait, which runs it on the goroutine that
// calls them.
func (b *background) later(fn func()) {
	b.mu.Lock()
	b.kept = append(b.kept, fn)
	b.nKept++
	b.mu.Unlock()
}

// keptNow is how much of the work later kept is not done yet.
func (b *background) keptNow() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.nKept
}

// runLater runs the work that later kept, counted as work a wait waits for.
func (b *background) runLater() {
	b.mu.Lock()
	kept := b.kept
	if len(kept) == 0 {
		b.mu.Unlock()
		return
	}
	b.kept = nil
	if b.cur == nil {
		b.cur = &batch{done: make(chan struct{})}
	}
	bt := b.cur
	bt.n++
	b.mu.Unlock()
	defer b.finish(bt)
	for _, fn := range kept {
		fn()
		b.mu.Lock()
		b.nKept--
		b.mu.Unlock()
	}
}

type batch struct {
	n    int
	done chan struct{} // closed when n drops to 0
}

func (b *background) Go(fn func()) {
	b.mu.Lock()
	if b.cur == nil {
		b.cur = &batch{done: make(chan struct{})}
	}
	bt := b.cur
	bt.n++
	b.mu.Unlock()
	go func() {
		defer b.finish(bt)
		fn()
	}()
}

func (b *background) finish(bt *batch) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bt.n--; bt.n == 0 {
		close(bt.done)
		if b.cur == bt {
			b.cur = nil
		}
		b.sealed = slices.DeleteFunc(b.sealed, func(x *batch) bool { return x == bt })
	}
}

// wait returns once all the work added before it is done, the work kept by later
// included.
func (b *background) wait() {
	b.runLater()
	b.mu.Lock()
	if b.cur != nil {
		b.sealed = append(b.sealed, b.cur)
		b.cur = nil // what comes next is the next wait's
	}
	all := slices.Clone(b.sealed)
	b.mu.Unlock()
	for _, bt := range all {
		<-bt.done
	}
}

// syncDir makes a rename in dir durable.
func (f *FS) syncDir(dir string) error {
	h, err := f.fs.Open(dir)
	if err != nil {
		return f.osError(dir, err)
	}
	defer h.Close()
	if err := h.Sync(); err != nil && !noFolderSync(err) {
		return f.osError(dir, err)
	}
	return nil
}

// memName is name as afero's MemMapFs keys it: its Chmod and Chown look the name up
// without cleaning it, and it keeps its files under the system's separator, so on
// Windows a Chmod of "a/b" missed the file `a\b` it had just made.
func memName(name string) string { return filepath.FromSlash(name) }

// keepMeta gives the temp file h (named tmp in d) the mode, and for a replace the
// owner, group and extended attributes of old; where one cannot be kept the call is
// refused, since a replaced file that changed hands or lost its setuid bit or its ACL
// would be a change no one asked for. The owner goes first: a chown clears the setuid
// and setgid bits and file capabilities, which are then set again. It returns the stat
// of h it took last, after every change of its metadata, where it took one.
func (f *FS) keepMeta(p string, d folder, tmp string, h afero.File, old fs.FileInfo, mode fs.FileMode) (fs.FileInfo, error) {
	osf, real := osFile(h)
	if old != nil {
		if want, ok := ownerOf(old); ok {
			fi, err := h.Stat()
			if err != nil {
				return nil, f.osError(p, err)
			}
			if have, ok := ownerOf(fi); !ok || have.Uid != want.Uid || have.Gid != want.Gid {
				var err error
				if real {
					err = osf.Chown(int(want.Uid), int(want.Gid))
				} else {
					err = f.fs.Chown(memName(path.Join(path.Dir(p), tmp)), int(want.Uid), int(want.Gid))
				}
				if err != nil {
					return nil, errs.Wrap(errs.PermissionDenied, p, err, "%s belongs to user %d, group %d, and its replacement could not be given the same owner (%v); nothing was written.", p, want.Uid, want.Gid, err)
				}
			}
		}
	}
	var err error
	if real {
		err = osf.Chmod(mode)
	} else {
		err = f.fs.Chmod(memName(path.Join(path.Dir(p), tmp)), mode)
	}
	if err != nil {
		return nil, f.osError(p, err)
	}
	if !real {
		return nil, nil
	}
	// The kernel silently drops a setgid bit for a group the process is not in.
	fi, err := h.Stat()
	if err != nil {
		return nil, f.osError(p, err)
	}
	if got := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); got != storedMode(mode) {
		return nil, errs.New(errs.PermissionDenied, p, "%s has mode %v, and its replacement could not be given that mode (it got %v); nothing was written.", p, mode, got)
	}
	if old == nil {
		return fi, nil
	}
	fd, ok := d.(fdFolder)
	if !ok {
		return fi, nil
	}
	attrs, err := shedding(f, func() ([]xattr, error) { return xattrsAt(fd.fd, path.Base(p)) })
	if outOfDescriptors(err) {
		return nil, f.osError(p, err) // not a permission refused
	}
	if err != nil {
		return nil, errs.Wrap(errs.PermissionDenied, p, err, "The extended attributes of %s could not be read (%v), so its replacement could not keep them; nothing was written.", p, err)
	}
	for _, a := range attrs {
		if err := setXattr(osf, a); err != nil {
			return nil, errs.Wrap(errs.PermissionDenied, p, err, "%s has the extended attribute %s, which its replacement could not be given (%v); nothing was written.", p, a.name, err)
		}
	}
	if len(attrs) > 0 {
		return nil, nil // setting them changed h's change time since fi
	}
	return fi, nil
}

// CheckWritable refuses a file whose mode grants no write permission: to the process's
// user, or when running as root (as agent sandboxes often do) to anyone. Its owner
// marked it read-only, and an edit tool must not override that, although a rename
// over it would succeed.
func (f *FS) CheckWritable(r *Resolved) error {
	if r.Info == nil || writable(r.Info) {
		return nil
	}
	return errs.New(errs.PermissionDenied, r.Name, "%s is read-only (mode %v); the file tools do not change read-only files. Leave it as it is, or ask the user to make it writable.", r.Name, r.Info.Mode().Perm())
}

// MakeDirs makes folder dir (a canonical path) and its missing parents, each a real
// folder (a symlink on the way is refused, not followed), and syncs the folder above
// the outermost one it made. It returns the folders made, outermost first.
func (f *FS) MakeDirs(dir string) ([]string, error) {
	made, err := f.mkdirs(dir)
	if len(made) > 0 {
		if serr := f.syncDir(path.Dir(made[0])); err == nil {
			err = serr
		}
	}
	return made, err
}

// Entries counts the entries of folder dir (a canonical path), everything included.
func (f *FS) Entries(dir string) (int, error) {
	h, err := f.fs.Open(dir)
	if err != nil {
		return 0, err
	}
	defer h.Close()
	names, err := h.Readdirnames(-1)
	return len(names), err
}
