package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/afero"
)

// Ignores are the rules of a set of .gitignore files, as a snapshot of the workspace
// kept them: they tell which paths a walk under those rules left out. A look uses
// them when a .gitignore changed between two walks: a path the earlier walk left out
// was not seen then, so its appearing now is no proof that it was made.
type Ignores struct {
	files   []ignoreFile // the shallowest first, as a walk stacks them
	unknown []string     // folders whose .gitignore could not be read
}

// NewIgnores makes the rules of the .gitignore files given by the folder each is in
// ("." for the root), and of exclude, the .git/info/exclude the walk applied (nil:
// none). A nil content stands for a .gitignore whose rules are not known: everything
// below its folder counts as left out (the careful answer). A content over
// MaxIgnoreBytes is not used, as a walk does not use it.
func NewIgnores(files map[string][]byte, exclude []byte) *Ignores {
	ig := &Ignores{}
	if exclude != nil && len(exclude) <= MaxIgnoreBytes {
		// The stable sort below keeps it first: under the root's .gitignore.
		ig.files = append(ig.files, parseIgnore(".", exclude))
	}
	for dir, data := range files {
		switch {
		case data == nil:
			ig.unknown = append(ig.unknown, dir)
		case len(data) <= MaxIgnoreBytes:
			ig.files = append(ig.files, parseIgnore(dir, data))
		}
	}
	depth := func(d string) int {
		if d == "." {
			return 0
		}
		return strings.Count(d, "/") + 1
	}
	slices.SortStableFunc(ig.files, func(a, b ignoreFile) int { return depth(a.dir) - depth(b.dir) })
	return ig
}

// ExcludePath is git's list of what to leave out of the repository at the root,
// beside its .gitignore files and under them (a rule of any .gitignore wins).
const ExcludePath = ".git/info/exclude"

// ReadExclude reads the root's .git/info/exclude, the rules git applies with those
// of the .gitignore files; nil when there is none to use. Only a .git that is a
// folder at the root counts: a symlink, or a file naming a repository elsewhere (a
// worktree's or a submodule's), is not followed out of the root. The file is opened
// as every content is, confined to the root without following a symlink, and only
// when it is a regular file of at most MaxIgnoreBytes. git's core.excludesFile, in
// the user's own configuration outside the workspace, is not read.
//
// unused says why an exclude file that stands in such a .git is not used (".git/info/
// exclude is a folder"), "" when it is used or there is none: a look says so, as it
// says that a .gitignore could not be read, since what the file lists is then walked.
func (f *FS) ReadExclude() (data []byte, unused string) {
	// The workspace's filesystem refuses every path through .git; this one admits
	// it, and is confined and follows no symlink as that one does.
	fsys := f.fs
	if rf, ok := fsys.(rootFs); ok {
		fsys = rootFs{root: rf.root}
	}
	lstat := func(p string) (fs.FileInfo, error) {
		if l, ok := fsys.(afero.Lstater); ok {
			fi, _, err := l.LstatIfPossible(p)
			return fi, err
		}
		return fsys.Stat(p)
	}
	if fi, err := lstat(".git"); err != nil || !fi.IsDir() {
		return nil, ""
	}
	// What stands at .git/info and at the file itself is git's, and so is meant.
	fi, err := lstat(".git/info")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ""
	case err != nil:
		return nil, ".git/info could not be read"
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, ".git/info is a symlink, which is not followed"
	case !fi.IsDir():
		return nil, ".git/info is not a folder"
	}
	fi, err = lstat(ExcludePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ""
	case err != nil:
		return nil, ExcludePath + " could not be read"
	}
	data, why := readRegular(fsys, ExcludePath, fi, MaxIgnoreBytes)
	switch why {
	case NotSkipped:
	case SkipSymlink:
		return nil, ExcludePath + " is a symlink, which is not followed"
	case SkipSpecial:
		if fi.IsDir() {
			return nil, ExcludePath + " is a folder"
		}
		return nil, ExcludePath + " is not a regular file"
	case SkipLarge:
		return nil, ExcludePath + " is over " + size(MaxIgnoreBytes)
	default:
		return nil, ExcludePath + " could not be read"
	}
	if data == nil {
		data = []byte{} // read, and empty: not none
	}
	return data, ""
}

// Hid reports whether a walk under these rules leaves out p (a path from the root; dir
// when it is a folder): p or one of the folders above it is ignored.
func (ig *Ignores) Hid(p string, dir bool) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && ig.hides(p[:i], true) {
			return true
		}
	}
	return ig.hides(p, dir)
}

func (ig *Ignores) hides(p string, dir bool) bool {
	for _, u := range ig.unknown {
		if _, ok := below(p, u); ok {
			return true
		}
	}
	return ignoredBy(ig.files, p, dir)
}

// Lstat is what stands at canonical path p, as a snapshot entry without a content
// hash or a symlink's target; ok is false when nothing does (p or a folder above it
// is gone, or is a file).
func (f *FS) Lstat(p string) (e Entry, ok bool, err error) {
	fi, err := f.lstat(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, err
	}
	e = Entry{Path: p, Kind: entryKind(fi.Mode()), Mode: PermBits(fi.Mode()), ID: identityOf(fi)}
	if e.Kind == KindFile {
		e.Size = fi.Size()
	}
	return e, true, nil
}

// IgnoreFolder is the folder whose .gitignore p is, if p names one.
func IgnoreFolder(p string) (string, bool) {
	if path.Base(p) != ".gitignore" {
		return "", false
	}
	return path.Dir(p), true
}

// ReadSnapFile reads the regular file at canonical path p as a snapshot walk reads
// one (a FIFO put in its place is not waited on), if it holds at most limit bytes.
func (f *FS) ReadSnapFile(p string, limit int64) ([]byte, error) {
	fi, err := f.lstat(p)
	if err != nil {
		return nil, err
	}
	data, why := f.ReadRegular(p, fi, limit)
	if why != NotSkipped {
		return nil, fmt.Errorf("%s: %s", p, (&Skipped{LargeOver: limit}).what(why, 1))
	}
	return data, nil
}
