// Package vfs is the filesystem that model tool calls see: an afero.Fs confined to one
// root, with paths resolved to a canonical form inside it, reserved folders refused,
// and files replaced atomically.
//
// Invariants:
//   - No path, however spelled (.., absolute, symlinks in any component, NUL bytes),
//     reaches a file outside the root or in a reserved folder. On the real filesystem
//     every operation walks its canonical path from the root's handle with O_NOFOLLOW
//     and refuses reserved names at each step (rootfs.go), so a symlink swapped in
//     after Resolve is refused, not followed: the file checked is the file written.
//   - A file is replaced by a complete new file or not at all: temp file beside it,
//     write, fsync, rename over it, fsync the directory, all in one folder held by
//     handle. The mode (setuid, setgid, sticky included), owner, group and extended
//     attributes are kept, or the replace is refused.
//   - A file is deleted in two steps (aside.go): renamed to a name in its own folder
//     (SetAside), then that name removed (DropAside) or renamed back (PutBack), never
//     over something at the path: the file put back is the same inode.
//   - Reserved folders (.vfsctl/ and .git/ by default) are never read or written, nor
//     is any name that macOS, Windows or git take for one (".git.", "GIT~1", names.go).
//   - Only regular files and folders are opened: a FIFO or device never blocks a call.
package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/spf13/afero"
	"golang.org/x/text/unicode/norm"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// DefaultReserved are folders no tool may touch: the journal, and .git, where a model
// that writes hooks/ runs code on the next commit.
var DefaultReserved = []string{".vfsctl", ".git"}

// DefaultMaxFileSize bounds what read and edit load into memory.
const DefaultMaxFileSize = 32 << 20

// maxNameBytes is the longest name of one path component (NAME_MAX on Linux).
const maxNameBytes = 255

// maxSymlinkHops is the bound on symlinks followed while resolving one path (as Linux).
const maxSymlinkHops = 40

// Options configure an FS.
type Options struct {
	// Reserved top-level folders; nil means DefaultReserved. An empty, non-nil slice
	// reserves nothing (then .git/hooks is writable by the model).
	Reserved []string
	// MaxFileSize in bytes; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// RootAliases, for New, are the spellings of the root that absolute paths may use,
	// as another FS's Aliases gives them: a replay of that workspace's calls, which
	// named their files by absolute paths, reads them here. nil: "/".
	RootAliases []string
}

// FS is a root-confined filesystem.
type FS struct {
	fs       afero.Fs
	dir      string   // absolute root directory on disk; "" for an in-memory FS
	aliases  []string // spellings of dir that absolute paths may use
	reserved reservedSet
	maxSize  int64
	onTemp   func(name string) // told each temp file's name before it is created
	freeing  background        // the replaced files being let go of (Staged.release)
	held     atomic.Int32      // replaced files held open (FS.hold)
	hmu      sync.Mutex        // guards holding, and the old of each Staged in it
	holding  map[*Staged]bool  // the replaces staged that hold their file (FS.shed)
}

// OnTemp sets a function told the name of every temp file before it is created, so
// that a caller can clean up after a crash between staging and renaming.
func (f *FS) OnTemp(fn func(name string)) { f.onTemp = fn }

// Open returns an FS over the directory dir, walked by handle (rootfs.go).
func Open(dir string, opts Options) (*FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	f := New(nil, opts)
	r, err := openRootFs(abs, f.Reserved)
	if err != nil {
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	f.fs = r
	f.dir = abs
	f.aliases = []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		f.aliases = append(f.aliases, real)
	}
	return f, nil
}

// New returns an FS over fsys, which is taken as already confined (afero.MemMapFs in
// tests, or a fault-injecting wrapper). Absolute paths are read against "/".
func New(fsys afero.Fs, opts Options) *FS {
	names := opts.Reserved
	if names == nil {
		names = DefaultReserved
	}
	f := &FS{fs: fsys, reserved: newReservedSet(names), maxSize: opts.MaxFileSize}
	if f.maxSize == 0 {
		f.maxSize = DefaultMaxFileSize
	}
	f.aliases = []string{"/"}
	if opts.RootAliases != nil {
		f.aliases = slices.Clone(opts.RootAliases)
	}
	return f
}

// Aliases are the spellings of the root that absolute paths may use: the root's
// absolute path, and the path its symlinks resolve to.
func (f *FS) Aliases() []string { return slices.Clone(f.aliases) }

// Close lets go of the root's handle. An FS is usually kept for the life of its
// process; on Windows a folder held open cannot be removed, which a test that
// removes its workspace needs.
func (f *FS) Close() error {
	if r, ok := f.fs.(rootFs); ok {
		return r.root.Close()
	}
	return nil
}

// Afero returns the underlying filesystem, for callers that keep their own files in the
// root (the journal) and for tests.
func (f *FS) Afero() afero.Fs { return f.fs }

// Dir is the root directory on disk, or "" for an in-memory FS.
func (f *FS) Dir() string { return f.dir }

// MaxFileSize is the largest file read or edited.
func (f *FS) MaxFileSize() int64 { return f.maxSize }

// Clean validates a path as a model sent it and returns it relative to the root, in
// slash form, without resolving symlinks.
func (f *FS) Clean(p string) (string, error) {
	switch {
	case p == "":
		return "", errs.New(errs.InvalidInput, p, "path is empty. Send the file's path relative to the workspace root, e.g. \"src/main.go\".")
	case strings.IndexByte(p, 0) >= 0:
		return "", errs.New(errs.InvalidInput, p, "path %q contains a NUL byte. Send a plain relative path.", p)
	case len(p) > 4096:
		return "", errs.New(errs.InvalidInput, p[:64], "path is %d bytes long; paths are at most 4096 bytes.", len(p))
	}
	q := filepath.ToSlash(p)
	sent := q
	if isAbs(q) {
		// Outside the root is the first thing to say of "/" or "/etc/".
		if _, ok := f.relToRoot(path.Clean(q)); !ok {
			return "", errs.New(errs.PathOutsideRoot, p, "%s is outside the workspace. Send a path relative to the workspace root.", p)
		}
	}
	if strings.HasSuffix(q, "/") {
		return "", errs.New(errs.InvalidInput, p, "%s ends with a slash, which names a folder. Send the path of a file, without the trailing slash.", p)
	}
	if !isAbs(q) {
		// Before the names' own checks: ".git " is reserved before it ends in a space.
		if err := f.checkReserved(p, q); err != nil {
			return "", err
		}
	}
	if err := checkNames(p, q); err != nil {
		return "", err
	}
	if isAbs(q) {
		// Clean first: an absolute path whose .. stays inside the root is inside it.
		rel, ok := f.relToRoot(path.Clean(q))
		if !ok {
			return "", errs.New(errs.PathOutsideRoot, p, "%s is outside the workspace. Send a path relative to the workspace root.", p)
		}
		q = rel
	}
	q = path.Clean(q)
	if q == ".." || strings.HasPrefix(q, "../") {
		if sub, there := f.fromHere(sent, q); there != "" {
			return "", errs.New(errs.PathOutsideRoot, p, "%s leads outside the workspace: paths are taken from the workspace root, not from the current folder (%s/). If you meant it from %s/, send %q.", p, sub, sub, there)
		}
		return "", errs.New(errs.PathOutsideRoot, p, "%s leads outside the workspace. Send a path inside it, relative to its root.", p)
	}
	if q == "." {
		return "", errs.Wrap(errs.NotAFile, p, ErrRoot, "%q names the workspace root, a directory. Send the path of a file.", p).Stood(errs.FoundRoot, "")
	}
	if err := f.checkReserved(p, q); err != nil {
		return "", err
	}
	return q, nil
}

// fromHere reads the root-relative path q, which leads out of the root, as if from the
// process's current folder, which a model told of that folder may have meant. When
// that folder is below the root and q leads from it to a path inside, it returns the
// folder and that path, both relative to the root; else "", "". Only names inside the
// root are returned, so a reply that says them shows nothing of the host. sent is the
// path as sent, in slash form: one with a name before a ".." gets no hint, as that
// name may be a symlink, which the kernel follows before taking its "..", where q,
// cleaned, has dropped it.
func (f *FS) fromHere(sent, q string) (sub, there string) {
	if f.dir == "" {
		return "", ""
	}
	named := false
	for _, name := range strings.Split(sent, "/") {
		switch name {
		case "", ".":
		case "..":
			if named {
				return "", ""
			}
		default:
			named = true
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	// The kernel takes ".." from the folder itself, not from a symlink's name for it.
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	sub, ok := f.relToRoot(filepath.ToSlash(wd))
	if !ok || sub == "." || checkNames(sub, sub) != nil {
		return "", ""
	}
	there = path.Join(sub, q)
	if there == "." || there == ".." || strings.HasPrefix(there, "../") || f.checkReserved(there, there) != nil {
		return "", ""
	}
	return sub, there
}

// isAbs reports whether the slash path q is absolute: "/x", or on Windows "C:/x".
func isAbs(q string) bool { return path.IsAbs(q) || filepath.IsAbs(filepath.FromSlash(q)) }

func (f *FS) relToRoot(abs string) (string, bool) {
	for _, a := range f.aliases {
		a = filepath.ToSlash(a)
		if a == "/" {
			return strings.TrimPrefix(abs, "/"), true
		}
		if abs == a {
			return ".", true
		}
		if strings.HasPrefix(abs, a+"/") {
			return abs[len(a)+1:], true
		}
	}
	return "", false
}

// checkNames refuses path components that no one means: control characters (a line
// break in a name), bidirectional controls (which make "x\u202etxt.exe" display as
// "xexe.txt"), and a leading or trailing space ("new file .txt "). They are
// invalid_input, not path_reserved: the name is not off limits, the character is.
func checkNames(orig, q string) error {
	for _, comp := range strings.Split(q, "/") {
		for _, r := range comp {
			if r < 0x20 || r == 0x7f {
				return errs.New(errs.InvalidInput, orig, "path %q holds a control character (%U) in %q. Send the file's name without it.", orig, r, comp)
			}
		}
		if c := bidiIn(comp); c != "" {
			return errs.New(errs.InvalidInput, orig, "path %q holds %s in %q, a control that makes a name display as another. Send the file's name without it.", orig, c, comp)
		}
		if len(comp) > maxNameBytes {
			return errs.New(errs.InvalidInput, orig, "path %q has a name of %d bytes (%.40q...); a name is at most %d bytes. Send a shorter name.", orig, len(comp), comp, maxNameBytes)
		}
		if comp != strings.TrimSpace(comp) && strings.TrimSpace(comp) != "" {
			return errs.New(errs.InvalidInput, orig, "path %q has a name that starts or ends with a space (%q). Send the name without the space.", orig, comp)
		}
	}
	return nil
}

// Reserved reports whether name, one path component, is a reserved folder, or a name
// that git, or a filesystem of macOS or Windows, takes for one (names.go).
func (f *FS) Reserved(name string) bool {
	return f.reserved.as(name) != ""
}

// checkReserved refuses a reserved folder as a component at any depth, compared without
// case: vendor/lib/.git/config is a repository's config as much as .git/config, and on
// macOS and Windows .GIT is the same folder as .git. So are the names those systems
// fold into it, ".g\u200cit" on a Mac, ".git.", "GIT~1" and ".git::$DATA" on Windows,
// which git refuses too.
func (f *FS) checkReserved(orig, q string) error {
	for _, comp := range strings.Split(q, "/") {
		if pre := StagingPrefix(comp); pre != "" {
			return errs.New(errs.PathReserved, orig, "%s uses a name starting with %s, a prefix vfsctl keeps for its own files while it writes (hidden from listings, not tracked by the journal). Send another name, e.g. without the leading %s.", orig, pre, ".vfsctl-")
		}
		r := f.reserved.as(comp)
		switch {
		case r == "":
		case strings.EqualFold(comp, r):
			return errs.New(errs.PathReserved, orig, "%s is inside a %s/ folder, which the file tools do not touch. Edit files outside it.", orig, r)
		default:
			return errs.New(errs.PathReserved, orig, "%s goes through %q, which stands for %s/ (on macOS or Windows, to git, or to a reader), a folder the file tools do not touch. Edit files outside it.", orig, comp, r)
		}
	}
	return nil
}

// StagingPrefix returns the prefix of vfsctl's own staging names that name starts
// with (TempPrefix, AsidePrefix), or "". The file tools never create, move to or
// touch such a name: path_reserved.
func StagingPrefix(name string) string {
	for _, p := range []string{TempPrefix, AsidePrefix} {
		if strings.HasPrefix(name, p) {
			return p
		}
	}
	return ""
}

// IsStaging reports whether name has the very shape of a name vfsctl stages under:
// a staging prefix and 16 lowercase hex digits. Only those are hidden from walks and
// removed by recovery's cleanup; a file someone else named .vfsctl-tmp-notes is
// theirs, listed and tracked like any other.
func IsStaging(name string) bool {
	h, ok := strings.CutPrefix(name, TempPrefix)
	if !ok {
		h, ok = strings.CutPrefix(name, AsidePrefix)
	}
	if !ok || len(h) != 16 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Resolved is a path resolved inside the root.
type Resolved struct {
	Name   string // the path as the model sent it
	Path   string // canonical: relative, slash form, every symlink resolved
	Exists bool
	Link   bool // Name went through a symlink
	// LinkAt is the first symlink Name went through, from the root: Name itself, or
	// a folder on its way ("" when none). Messages name it: the link is what the
	// model sees, not where it leads.
	LinkAt string
	Info   fs.FileInfo
	clean  string // Name cleaned, from the root
}

// IsLink reports whether Name itself is a symlink (not only a folder on its way).
func (r *Resolved) IsLink() bool { return r.Link && r.LinkAt != "" && r.LinkAt == r.clean }

// Dangling reports whether Name itself is a symlink to nothing.
func (r *Resolved) Dangling() bool { return r.IsLink() && !r.Exists }

// DanglingAdvice is what every tool says of a dangling symlink r: what is there, and
// the one way on that the file tools offer.
func DanglingAdvice(r *Resolved) string {
	return fmt.Sprintf("%s is a dangling symlink: it leads to %s, which does not exist. The file tools do not write over or remove a link: create_file %s gives the link a file; the link itself is changed outside vfsctl.", r.Name, r.Path, r.Path)
}

// Through says, for a message, that r went through a symlinked folder on its way:
// "od/a.txt goes through od, a symlink (it leads to real/a.txt)". "" when it did not.
func (r *Resolved) Through() string {
	if !r.Link || r.IsLink() || r.LinkAt == "" {
		return ""
	}
	return fmt.Sprintf("%s goes through %s, a symlink (it leads to %s)", r.Name, r.LinkAt, r.Path)
}

// Resolve cleans p and follows every symlink in it, refusing links that lead outside the
// root or into a reserved folder, and loops. A path that does not exist resolves too
// (Exists false), so that create_file can use it.
func (f *FS) Resolve(p string) (*Resolved, error) {
	q, err := f.Clean(p)
	if err != nil {
		return nil, err
	}
	w := &walker{f: f, p: p, todo: strings.Split(q, "/")}
	defer w.leave()
	for len(w.todo) > 0 {
		comp := w.todo[0]
		w.todo = w.todo[1:]
		if err := w.step(comp); err != nil {
			return nil, err
		}
	}
	if err := f.checkReserved(p, w.cur); err != nil {
		return nil, err
	}
	if w.gone != "" {
		return nil, w.nowhere(q)
	}
	if w.cur == "" {
		return nil, errs.Wrap(errs.NotAFile, p, ErrRoot, "%q resolves to the workspace root, a directory. Send the path of a file.", p)
	}
	res := &Resolved{Name: p, Path: w.cur, Link: w.link, LinkAt: w.linkAt, clean: q}
	// Stat walks from the root again: what the folders held say is checked against
	// the path as it stands now, a folder swapped for a symlink since refused, and the
	// file described is the one at the path, not one in a folder moved away meanwhile.
	fi, err := f.fs.Stat(w.cur)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, f.osError(p, err)
	default:
		res.Exists, res.Info = true, fi
	}
	if c := bidiIn(w.cur); c != "" && !res.Exists {
		// A symlink's target would give a new file the name: refused as if sent.
		return nil, errs.New(errs.InvalidInput, p, "%s leads through a symlink to %q, which holds %s, a control that makes a name display as another. Send another path.", p, w.cur, c)
	}
	return res, nil
}

// walker resolves a path component by component: cur is the part resolved so far,
// never above the root, and todo what is left, symlink targets spliced in.
type walker struct {
	f    *FS
	p    string // the path as the caller named it
	todo []string
	cur  string
	hops int
	link bool // the path went through a symlink
	// linkAt is the first symlink followed: a prefix of the path as named, since
	// nothing was followed before it.
	linkAt string
	// at is the folder atDir held open, nil before the first look: a step down from
	// it opens the next folder inside it, and only a ".." or an absolute symlink's
	// target walks from the root again. So a path costs looks in proportion to its
	// length, where looking up each prefix from the root cost its square.
	at    cursor
	atDir string
	// gone is the first name that did not exist and that a symlink target then
	// climbed out of with "..": the path leads nowhere.
	gone string
	// need is the folder that first ".." climbed out of (gone, or one inside it):
	// once it exists, the target leads on.
	need string
}

// folder returns the folder cur held open.
func (w *walker) folder() (cursor, error) {
	if w.at != nil && w.atDir == w.cur {
		return w.at, nil
	}
	var next cursor
	var err error
	if up := parentOf(w.cur); w.at != nil && w.cur != "" && up == w.atDir {
		next, err = w.at.enter(path.Base(w.cur))
	} else {
		next, err = w.f.cursor(w.cur)
	}
	w.leave()
	if err != nil {
		return nil, err
	}
	w.at, w.atDir = next, w.cur
	return next, nil
}

// leave lets go of the folder held.
func (w *walker) leave() {
	if w.at != nil {
		w.at.close()
		w.at = nil
	}
}

// parentOf is the folder above the relative path p, "" for the root.
func parentOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// cursor opens folder dir (a path relative to the root) for Resolve's walk.
func (f *FS) cursor(dir string) (cursor, error) {
	if r, ok := f.fs.(rootFs); ok {
		return r.cursor(dir)
	}
	return pathCursor{fs: f.fs, dir: dir}, nil
}

// outside is the refusal of a path that climbs above the root.
func (w *walker) outside() error {
	return errs.New(errs.PathOutsideRoot, w.p, "%s leads outside the workspace through a symlink. Send a path inside it.", w.p)
}

// step resolves one component: "." stays, ".." climbs but never above the root, a
// missing name ends the walk with the rest taken as is, a folder is entered, a symlink
// followed.
func (w *walker) step(comp string) error {
	switch comp {
	case "", ".":
		return nil
	case "..":
		if w.cur == "" {
			return w.outside()
		}
		if w.cur = path.Dir(w.cur); w.cur == "." {
			w.cur = ""
		}
		return nil
	}
	if len(w.todo) > 0 && w.down(comp) {
		return nil
	}
	next, fi, err := w.lstat(comp)
	if errors.Is(err, fs.ErrNotExist) {
		w.absent(next)
		return nil
	}
	if err != nil {
		return w.f.osError(w.p, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		if len(w.todo) > 0 && !fi.IsDir() {
			return errs.New(errs.NotAFile, w.p, "%s: %s is a file, not a directory.", w.p, next).Stood(errs.FoundFile, next)
		}
		w.cur = next
		return nil
	}
	return w.follow(next)
}

// nowhere is the refusal of a path whose symlink target climbs with ".." out of a
// folder that does not exist. The folder's names come from a target the workspace
// chose, so they are quoted: a control in them reaches the reply escaped.
func (w *walker) nowhere(clean string) error {
	what := fmt.Sprintf("%s goes through a symlink that leads nowhere", w.p)
	switch {
	case w.linkAt == clean:
		what = fmt.Sprintf("%s is a symlink that leads nowhere", w.p)
	case w.linkAt != "":
		what = fmt.Sprintf("%s goes through %s, a symlink that leads nowhere", w.p, w.linkAt)
	}
	return errs.New(errs.FileNotFound, w.p, "%s: its target climbs with \"..\" out of %q, a folder that does not exist, a step the system refuses while that folder is not there. Nothing was read or written. Once the folder %q exists (create_file with a path inside it makes it), the link leads on; the link itself is changed outside vfsctl.", what, w.gone, w.need)
}

// absent takes next, a name that does not exist, and the names after it as they are:
// the path of a file to create. A ".." from a symlink target that climbs back out of
// them cannot be taken (the system finds no folder to climb out of), so the path leads
// nowhere (gone). The walk still goes on from where that ".." lands, as if the missing
// folders were there, so that a target that would lead outside the root or into a
// reserved folder is refused as such.
func (w *walker) absent(next string) {
	names := []string{path.Base(next)}
	for len(names) > 0 && len(w.todo) > 0 {
		comp := w.todo[0]
		w.todo = w.todo[1:]
		switch comp {
		case "", ".":
		case "..":
			if w.gone == "" {
				w.gone, w.need = next, path.Join(append([]string{w.cur}, names...)...)
			}
			names = names[:len(names)-1]
		default:
			names = append(names, comp)
		}
	}
	w.cur = path.Join(append([]string{w.cur}, names...)...)
}

// down enters comp, a folder in the one resolved so far, when it is one (not a
// symlink): one open, where a look then an open took two. Anything else is left to
// lstat to tell apart.
func (w *walker) down(comp string) bool {
	at, err := w.folder()
	if err != nil {
		return false
	}
	next, err := at.enter(comp)
	if err != nil {
		return false
	}
	w.leave()
	w.cur = path.Join(w.cur, comp)
	w.at, w.atDir = next, w.cur
	return true
}

// lstat looks up comp in the folder resolved so far. A name stored in another Unicode
// normalization (NFD on macOS, NFC from the model) is the same name to a person: the
// one on disk is used.
func (w *walker) lstat(comp string) (string, fs.FileInfo, error) {
	next := path.Join(w.cur, comp)
	at, err := w.folder()
	if err != nil {
		return next, nil, err
	}
	fi, err := at.lstat(comp)
	if errors.Is(err, fs.ErrNotExist) {
		if alt := sameNameNormalized(at, comp); alt != "" {
			next = path.Join(w.cur, alt)
			fi, err = at.lstat(alt)
		}
	}
	return next, fi, err
}

// follow puts the target of symlink next in front of what is left to resolve; a target
// outside the root, a loop, or a link swapped meanwhile is refused.
func (w *walker) follow(next string) error {
	p := w.p
	if !w.link {
		w.linkAt = next
	}
	w.link = true
	w.hops++
	if w.hops > maxSymlinkHops {
		return errs.New(errs.NotAFile, p, "%s goes through a symlink loop. Send the path of a regular file.", p).Stood(errs.FoundSymlinkLoop, "")
	}
	var target string
	at, err := w.folder()
	if err == nil {
		target, err = at.readlink(path.Base(next))
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, fs.ErrNotExist) {
		// Not a symlink any more, or gone: it was swapped while this path was resolved.
		return errs.Wrap(errs.Conflict, p, err, "%s changed while it was being resolved (%s was replaced); nothing was done. Check the folder, then retry.", p, next)
	}
	if err != nil {
		return w.f.osError(p, err)
	}
	target = filepath.ToSlash(target)
	if path.IsAbs(target) {
		rel, ok := w.f.relToRoot(target)
		if !ok {
			return errs.New(errs.PathOutsideRoot, p, "%s is a symlink to a path outside the workspace, which no reply names. Edit files inside it.", p)
		}
		target, w.cur = rel, ""
	}
	w.todo = append(strings.Split(target, "/"), w.todo...)
	return nil
}

// sameNameNormalized returns the entry of folder dir whose name equals name under
// Unicode NFC, or "". Only names that are not ASCII can differ so.
func sameNameNormalized(dir cursor, name string) string {
	if isASCII(name) {
		return ""
	}
	names, _ := dir.names()
	want := norm.NFC.String(name)
	for _, n := range names {
		if n != name && norm.NFC.String(n) == want {
			return n
		}
	}
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func (f *FS) lstat(p string) (fs.FileInfo, error) { return lstatIn(f.fs, p) }

func (f *FS) readlink(p string) (string, error) { return readlinkIn(f.fs, p) }

// lstatIn is an lstat of p in fsys, a stat where fsys has no lstat.
func lstatIn(fsys afero.Fs, p string) (fs.FileInfo, error) {
	if l, ok := fsys.(afero.Lstater); ok {
		fi, _, err := l.LstatIfPossible(p)
		return fi, err
	}
	return fsys.Stat(p)
}

func readlinkIn(fsys afero.Fs, p string) (string, error) {
	if l, ok := fsys.(afero.LinkReader); ok {
		return l.ReadlinkIfPossible(p)
	}
	return "", &fs.PathError{Op: "readlink", Path: p, Err: errors.ErrUnsupported}
}

// osError turns an OS error into an *errs.Error for the model.
func (f *FS) osError(p string, err error) error {
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	switch {
	case errors.Is(err, fs.ErrPermission):
		return errs.Wrap(errs.PermissionDenied, p, err, "Permission denied on %s.", p)
	case errors.Is(err, syscall.ENOTDIR):
		return errs.Wrap(errs.NotAFile, p, err, "A part of the folder path of %s is a file, not a folder.", p)
	case errors.Is(err, syscall.ELOOP):
		return errs.Wrap(errs.NotAFile, p, err, "%s goes through a symlink loop. Send the path of a regular file.", p).Stood(errs.FoundSymlinkLoop, "")
	case errors.Is(err, errSymlinkInPath):
		return errs.Wrap(errs.Conflict, p, err, "A folder in the path of %s was replaced by a symlink while this call ran; nothing was written through it. Check the folder, then retry.", p)
	case errors.Is(err, errFolderGone):
		return errs.Wrap(errs.Conflict, p, err, "A folder in the path of %s was removed or moved while this call ran; nothing was written. Retry the call.", p)
	case errors.Is(err, ErrSymlinkNow):
		return errs.Wrap(errs.Conflict, p, err, "%s was replaced by a symlink while this call ran; nothing was read or written through it. Check the file, then retry.", p)
	case errors.Is(err, errReservedInPath):
		return errs.Wrap(errs.PathReserved, p, err, "%s is inside a reserved folder, which the file tools do not touch. Edit files outside it.", p)
	case errors.Is(err, ErrNotRegular):
		return errs.Wrap(errs.NotAFile, p, err, "%s is not a regular file. The file tools read and edit regular files only.", p)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return errs.Wrap(errs.InvalidInput, p, err, "A name in %s is too long for the filesystem (names are at most 255 bytes). Send a shorter name.", p)
	case errors.Is(err, errBadName):
		return errs.Wrap(errs.InvalidInput, p, err, "%s cannot be a file's path on this system: %v. Send another name.", p, errors.Unwrap(err))
	case errors.Is(err, errEscapes):
		return errs.Wrap(errs.PathOutsideRoot, p, err, "%s leads outside the workspace. Send a path inside it.", p)
	case errors.Is(err, syscall.ENOSPC):
		return errs.Wrap(errs.IOError, p, err, "No space left on the device while writing %s; nothing was changed.", p)
	case outOfDescriptors(err):
		return errs.Wrap(errs.IOError, p, err, "No file descriptor was left to open %s (%v); nothing was changed. Change fewer files in one call, or raise the limit (ulimit -n).", p, err)
	}
	return errs.Wrap(errs.IOError, p, err, "I/O error on %s: %v.", p, err)
}

// File is a regular file read whole.
type File struct {
	*Resolved
	Data []byte
	ID   Identity // of the file as it was read
	// IDInfo is the stat ID was taken from; nil when ID is zero.
	IDInfo fs.FileInfo
}

// CheckFile refuses what is not a regular file: directories, FIFOs, devices, sockets,
// missing files (suggesting the nearest existing path) and dangling symlinks.
func (f *FS) CheckFile(r *Resolved) error {
	if !r.Exists {
		if r.Dangling() {
			return errs.New(errs.FileNotFound, r.Name, "%s", DanglingAdvice(r))
		}
		msg := fmt.Sprintf("%s does not exist.", r.Name)
		if t := r.Through(); t != "" {
			msg = fmt.Sprintf("%s does not exist: %s, which does not exist.", r.Name, t)
		}
		if twin := f.lookalike(r.Path); twin != "" && oddIn(r.Name) == "" {
			msg += fmt.Sprintf(" Its path holds compatibility characters (such as full-width letters); the file there is named %s. Send that path.", twin)
		} else if c := oddIn(r.Name); c != "" {
			if twin != "" {
				msg += fmt.Sprintf(" Its path holds %s; the file there is named %s. Send that path.", c, twin)
			} else {
				msg += fmt.Sprintf(" Its path holds %s, which is likely pasted by mistake. Send the path without it.", c)
			}
		} else if n := f.badName(r.Path); n != "" {
			msg += fmt.Sprintf(" The file there is named %q: a name that is not UTF-8, which no call can send (each of its bad bytes reads as U+FFFD). The file tools cannot reach it; ask the user to rename it.", n)
		} else if s, several := f.SuggestAll(r.Path); s != "" {
			msg += fmt.Sprintf(" Did you mean %s?", s)
		} else if len(several) > 0 {
			msg += " " + LookalikesAdvice(several)
		} else {
			msg += " Check the path; create_file makes a new file."
		}
		return errs.New(errs.FileNotFound, r.Name, "%s", msg)
	}
	m := r.Info.Mode()
	switch {
	case m.IsDir():
		return errs.New(errs.NotAFile, r.Name, "%s is a directory. Send the path of a file inside it.", r.Name).Stood(errs.FoundDir, "")
	case !m.IsRegular():
		return errs.New(errs.NotAFile, r.Name, "%s is not a regular file (%s). The file tools read and edit regular files only.", r.Name, kindOfMode(m)).Stood(kindOfMode(m), "")
	case r.Info.Size() > f.maxSize:
		return errs.New(errs.TooLarge, r.Name, "%s is %d bytes; files over %d bytes are not read or edited here. %s", r.Name, r.Info.Size(), f.maxSize, tooLargeAdvice)
	}
	return nil
}

// tooLargeAdvice is the next step for a file over the size bound: no tool here reads
// it (search_files skips it too), so a command is the way to its lines.
const tooLargeAdvice = "Read the lines you want with a command instead: `grep -n 'text'` on it to find them, `sed -n '100,200p'` on it for a range of lines."

// KindOfMode names a file that is not regular or a directory for a message: "a named pipe".
func KindOfMode(m fs.FileMode) string { return kindOfMode(m) }

func kindOfMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// Read resolves p and reads the regular file it names.
func (f *FS) Read(p string) (*File, error) { return f.ReadKnown(p, nil) }

// ReadKnown is Read, except that where known returns content for the file's identity
// (content the caller wrote there and holds unchanged), that content is used and the
// file is not read. known may be nil.
func (f *FS) ReadKnown(p string, known func(path string, id Identity) []byte) (*File, error) {
	r, err := f.Resolve(p)
	if err != nil {
		return nil, err
	}
	if err := f.CheckFile(r); err != nil {
		return nil, err
	}
	if id := identityOf(r.Info); known != nil && id.Known() {
		if data := known(r.Path, id); data != nil && int64(len(data)) == id.Size {
			return &File{Resolved: r, Data: data, ID: id, IDInfo: r.Info}, nil
		}
	}
	return f.read(r, p)
}

func (f *FS) read(r *Resolved, p string) (*File, error) {
	data, id, fi, err := f.readAll(r.Path)
	if err != nil {
		return nil, f.osError(p, err)
	}
	if int64(len(data)) > f.maxSize {
		return nil, errs.New(errs.TooLarge, p, "%s is over %d bytes; it is not read or edited here. %s", p, f.maxSize, tooLargeAdvice)
	}
	if !id.Known() {
		fi = nil
	}
	return &File{Resolved: r, Data: data, ID: id, IDInfo: fi}, nil
}

// SameContent reports whether the file at canonical path p holds exactly want. It
// compares as it reads, so checking a large file allocates nothing of its size.
func (f *FS) SameContent(p string, want []byte) (bool, error) {
	h, err := f.fs.Open(p)
	if err != nil {
		return false, err
	}
	defer h.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(h, buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false, nil
		}
		want = want[n:]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return len(want) == 0, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// ReadCanonical reads a canonical path (from Resolve) without resolving it again.
func (f *FS) ReadCanonical(p string) ([]byte, error) {
	data, _, _, err := f.readAll(p)
	return data, err
}

// ReadCanonicalID is ReadCanonical with the file's identity as read.
func (f *FS) ReadCanonicalID(p string) ([]byte, Identity, error) {
	data, id, _, err := f.readAll(p)
	return data, id, err
}

// readAll reads the file at canonical path p, with its identity and the stat that was
// taken from.
func (f *FS) readAll(p string) ([]byte, Identity, fs.FileInfo, error) {
	h, err := f.fs.Open(p)
	if err != nil {
		return nil, Identity{}, nil, err
	}
	defer h.Close()
	// Read exactly the size the file reports, then check that nothing follows: one
	// allocation of the file's size, where growing a buffer would copy it twice. The
	// identity is taken before reading: a change while reading changes it after.
	fi, err := h.Stat()
	if err != nil {
		return nil, Identity{}, nil, err
	}
	id := identityOf(fi)
	size := fi.Size()
	if size > f.maxSize {
		size = f.maxSize + 1
	}
	buf := make([]byte, size)
	n, err := io.ReadFull(h, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return buf[:n], Identity{}, nil, nil // the file shrank since Stat: its identity is stale
	}
	if err != nil {
		return nil, Identity{}, nil, err
	}
	// The file may have grown since Stat: read the rest, bounded.
	rest, err := io.ReadAll(io.LimitReader(h, f.maxSize+1-int64(n)))
	if len(rest) > 0 {
		id = Identity{}
	}
	return append(buf, rest...), id, fi, err
}

// Links returns the hard-link count of a file, 1 where the filesystem does not say.
func Links(fi fs.FileInfo) uint64 { return linksOf(fi) }
