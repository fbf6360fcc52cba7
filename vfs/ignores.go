package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"syscall"
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
// ("." for the root). A nil content stands for a .gitignore whose rules are not
// known: everything below its folder counts as left out (the careful answer). A
// content over MaxIgnoreBytes is not used, as a walk does not use it.
func NewIgnores(files map[string][]byte) *Ignores {
	ig := &Ignores{}
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
	slices.SortFunc(ig.files, func(a, b ignoreFile) int { return depth(a.dir) - depth(b.dir) })
	return ig
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
