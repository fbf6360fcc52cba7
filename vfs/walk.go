package vfs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/afero"
)

// The walk: the workspace below a folder as a model may see it. It stays inside the
// root, leaves out reserved folders and temporary files, does not follow symlinks,
// leaves out what .gitignore files and .git/info/exclude ignore unless asked, and says
// what it skipped.

// MaxIgnoreBytes bounds a .gitignore the walk reads: its rules cost every entry.
const MaxIgnoreBytes = 256 << 10

// SkipReason is why an entry was left out of a walk; a reply counts each.
type SkipReason int

// The reasons. NotSkipped is none: ReadRegular read the file.
const (
	NotSkipped        SkipReason = -1
	SkipIgnoreSpecial SkipReason = iota - 1 // a .gitignore that is not a regular file
	SkipIgnoreLarge                         // a .gitignore over MaxIgnoreBytes
	SkipLarge                               // a file over the caller's limit
	SkipSpecial                             // not a regular file
	SkipSymlink                             // a symlink, not followed
	SkipDeep                                // a folder past the walk's depth
	SkipUnreadable                          // a file that could not be read
	skipReasons
)

// maxSkipNames bounds the names a note shows per reason.
const maxSkipNames = 5

// Skipped gathers what a walk left out, so that a reply can say so.
type Skipped struct {
	// LargeOver and DeeperThan are the bounds SkipLarge and SkipDeep were for.
	LargeOver  int64
	DeeperThan int

	n     [skipReasons]int
	names [skipReasons][]string
}

// Add notes that p was skipped for why.
func (s *Skipped) Add(why SkipReason, p string) {
	s.n[why]++
	if len(s.names[why]) < maxSkipNames {
		s.names[why] = append(s.names[why], p)
	}
}

// Note is one line per reason, e.g. "(2 files over 4 MB not searched: a.bin, b.log)".
func (s *Skipped) Note() string {
	var b strings.Builder
	for why, n := range s.n {
		if n == 0 {
			continue
		}
		names := strings.Join(s.names[why], ", ")
		if n > len(s.names[why]) {
			names += fmt.Sprintf(" and %d more", n-len(s.names[why]))
		}
		fmt.Fprintf(&b, "\n(%d %s: %s)", n, s.what(SkipReason(why), n), names)
	}
	return b.String()
}

// what says, for one or for several, what was skipped and why.
func (s *Skipped) what(why SkipReason, n int) string {
	one, many := "", ""
	switch why {
	case SkipIgnoreSpecial:
		one, many = ".gitignore file not used (not a regular file)", ".gitignore files not used (not a regular file)"
	case SkipIgnoreLarge:
		one, many = ".gitignore file not used (over "+size(MaxIgnoreBytes)+")", ".gitignore files not used (over "+size(MaxIgnoreBytes)+")"
	case SkipLarge:
		one, many = "file over "+size(s.LargeOver)+" not searched", "files over "+size(s.LargeOver)+" not searched"
	case SkipSpecial:
		one, many = "entry that is not a regular file not searched", "entries that are not regular files not searched"
	case SkipSymlink:
		one, many = "symlink not followed", "symlinks not followed"
	case SkipDeep:
		one, many = fmt.Sprintf("folder deeper than %d levels not searched", s.DeeperThan), fmt.Sprintf("folders deeper than %d levels not searched", s.DeeperThan)
	case SkipUnreadable:
		one, many = "file could not be read", "files could not be read"
	}
	if n == 1 {
		return one
	}
	return many
}

// size is a bound as a note states it: 4 MB, 256 KB.
func size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// ReadRegular reads p only if it is a regular file of at most limit bytes: a FIFO
// blocks its reader until a writer comes, and a device can stream without end. info
// is how a walk saw p (without following a symlink); the opened handle is checked
// again, since p may have been replaced in between. It returns why p was not read,
// or NotSkipped.
func (f *FS) ReadRegular(p string, info fs.FileInfo, limit int64) ([]byte, SkipReason) {
	return readRegular(f.fs, p, info, limit)
}

// readRegular is ReadRegular in fsys.
func readRegular(fsys afero.Fs, p string, info fs.FileInfo, limit int64) ([]byte, SkipReason) {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, SkipSymlink
	case !info.Mode().IsRegular():
		return nil, SkipSpecial
	case info.Size() > limit:
		return nil, SkipLarge
	}
	// O_NONBLOCK: should p have become a FIFO since, the open returns at once.
	h, err := fsys.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, SkipUnreadable
	}
	defer h.Close()
	if fi, err := h.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, SkipSpecial
	}
	data, err := io.ReadAll(io.LimitReader(h, limit+1))
	switch {
	case err != nil:
		return nil, SkipUnreadable
	case int64(len(data)) > limit:
		return nil, SkipLarge
	}
	return data, NotSkipped
}

// Walker walks the workspace below a folder; see Walk. Its fields are its options.
type Walker struct {
	// IncludeIgnored also walks what .gitignore files and .git/info/exclude ignore.
	IncludeIgnored bool
	// Depth bounds the folder levels entered below the root of the walk; 0 is none.
	Depth int
	// NoteDeep notes the folders not entered for Depth in Skipped.
	NoteDeep bool
	// Limit bounds the entries visited; 0 is none.
	Limit int
	// Skipped is what the walk left out; a caller adds what it skips in turn.
	Skipped Skipped
	// Unlisted are the folders the walk could not list (no permission to read or
	// enter them), in walk order: what they hold is unknown, not absent.
	Unlisted []string
	// Ignored are the entries .gitignore rules left out (a folder's path ends in a
	// slash; what it holds is not listed), each folder's in name order.
	Ignored []string
	// Exclude is the content of .git/info/exclude that the last walk applied; nil
	// when it applied none (ReadExclude).
	Exclude []byte
	// ExcludeUnused says why the last walk did not apply a .git/info/exclude that
	// stands there, "" when it applied it or there is none (ReadExclude).
	ExcludeUnused string

	fs      *FS
	ignores []ignoreFile
	seen    int
}

// Walker returns a walker of f's workspace.
func (f *FS) Walker() *Walker { return &Walker{fs: f} }

// Walk calls fn for every entry below root (a canonical folder, "." for the root),
// depth-first in name order, with the entry as it is (a symlink as itself). fn
// returns false to stop the walk.
//
// On the real filesystem the walk holds each folder open while it lists it and its
// subfolders, and opens a subfolder by its name in the folder held, with O_NOFOLLOW
// and O_DIRECTORY: a folder swapped for a symlink meanwhile is not entered, and no
// folder is resolved from the root again (which cost one openat per level for every
// folder). Contents (a .gitignore here, files for the callers) are still opened by
// their path from the root, so that no byte is read through a folder that was moved
// out of the root while the walk held it.
func (w *Walker) Walk(root string, fn func(p string, fi fs.FileInfo) bool) {
	if w.NoteDeep {
		w.Skipped.DeeperThan = w.Depth
	}
	if pop := w.pushExclude(); pop != nil {
		defer pop()
	}
	d, err := w.openFolder(root)
	if err != nil {
		if unlistable(err) {
			w.Unlisted = append(w.Unlisted, root)
		}
		return
	}
	if d >= 0 {
		defer closeFd(d)
	}
	w.visit(root, d, 1, fn)
}

// list lists one folder, held as descriptor d (-1: by path), in name order; nil and
// the error when it cannot be listed.
func (w *Walker) list(dir string, d int) ([]fs.FileInfo, error) {
	var entries []fs.FileInfo
	var err error
	if d >= 0 {
		entries, err = listAt(d, dir)
	} else {
		entries, err = afero.ReadDir(w.fs.fs, dir)
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.FileInfo) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// unlistable reports whether err, from opening or listing a folder, means that the
// folder is there but cannot be read (its permission bits): what it holds is then
// unknown. A folder gone, or swapped for a symlink or a file since its parent was
// listed, holds nothing the walk should see.
func unlistable(err error) bool {
	return err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, syscall.ELOOP)
}

// visit walks one folder at level, held as descriptor d (-1: by path); false stops
// the walk.
func (w *Walker) visit(dir string, d int, level int, fn func(p string, fi fs.FileInfo) bool) bool {
	entries, err := w.list(dir, d)
	if unlistable(err) {
		w.Unlisted = append(w.Unlisted, dir)
	}
	if !w.IncludeIgnored {
		if rules, ok := w.readIgnore(dir, entries, w.Skipped.Add); ok {
			w.ignores = append(w.ignores, rules)
			defer func() { w.ignores = w.ignores[:len(w.ignores)-1] }()
		}
	}
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		isDir := e.IsDir() && e.Mode()&fs.ModeSymlink == 0
		if w.hidden(w.ignores, p, e.Name(), isDir) {
			if w.ignored(w.ignores, p, isDir) {
				w.Ignored = append(w.Ignored, ignoredName(p, isDir))
			}
			continue
		}
		if w.seen++; w.Limit > 0 && w.seen > w.Limit || !fn(p, e) {
			return false
		}
		if !isDir {
			continue
		}
		if w.Depth > 0 && level >= w.Depth {
			if w.NoteDeep {
				w.Skipped.Add(SkipDeep, p)
			}
			continue
		}
		sub := -1
		if d >= 0 {
			var err error
			if sub, err = openSubfolder(d, e.Name()); err != nil {
				if unlistable(err) {
					w.Unlisted = append(w.Unlisted, p)
				}
				continue // else gone, or swapped for a symlink or a file since it was listed
			}
		}
		more := w.visit(p, sub, level+1, fn)
		if sub >= 0 {
			closeFd(sub)
		}
		if !more {
			return false
		}
	}
	return true
}

// ignoredName is an ignored entry as Walker.Ignored lists it.
func ignoredName(p string, isDir bool) string {
	if isDir {
		return p + "/"
	}
	return p
}

// hidden reports whether the walk leaves an entry out: a reserved folder, a
// temporary file of a write, a deleted file set aside until its call's commit point
// (names of vfsctl's own shape, IsStaging), or what a .gitignore ignores.
func (w *Walker) hidden(ignores []ignoreFile, p, name string, isDir bool) bool {
	return w.fs.Reserved(name) || IsStaging(name) || w.ignored(ignores, p, isDir)
}

// pushExclude puts the rules of .git/info/exclude under those of every .gitignore
// the walk will read (the nearest of which come last, and win), as git ranks them;
// pop takes them off again (nil when there are none). It is read once a walk, and
// applies to a walk below a subfolder too, its patterns being from the root.
func (w *Walker) pushExclude() (pop func()) {
	w.Exclude, w.ExcludeUnused = nil, ""
	if w.IncludeIgnored {
		return nil
	}
	data, unused := w.fs.ReadExclude()
	if data == nil {
		w.ExcludeUnused = unused
		return nil
	}
	w.Exclude = data
	n := len(w.ignores)
	w.ignores = append(w.ignores[:n:n], parseIgnore(".", data))
	return func() { w.ignores = w.ignores[:n] }
}

// readIgnore reads dir's .gitignore, if its listing has one, and returns its rules;
// false if there is none to use, noting why through skip. The file is read by its
// path from the root.
func (w *Walker) readIgnore(dir string, entries []fs.FileInfo, skip func(SkipReason, string)) (ignoreFile, bool) {
	i, found := slices.BinarySearchFunc(entries, ".gitignore", func(e fs.FileInfo, name string) int { return strings.Compare(e.Name(), name) })
	if !found {
		return ignoreFile{}, false
	}
	name, info := path.Join(dir, ".gitignore"), entries[i]
	data, why := w.fs.ReadRegular(name, info, MaxIgnoreBytes)
	switch why {
	case NotSkipped:
		return parseIgnore(dir, data), true
	case SkipLarge:
		skip(SkipIgnoreLarge, name)
	case SkipSpecial, SkipSymlink:
		skip(SkipIgnoreSpecial, name)
	default:
		skip(SkipUnreadable, name)
	}
	return ignoreFile{}, false
}

// ignoreFile is one .gitignore: its folder and its rules, in order.
type ignoreFile struct {
	dir   string
	rules []ignoreRule
}

type ignoreRule struct {
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool // contains a slash: matched against the path below dir
}

func parseIgnore(dir string, data []byte) ignoreFile {
	f := ignoreFile{dir: dir}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := trimIgnoreLine(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		r := ignoreRule{}
		if strings.HasPrefix(l, "!") {
			r.negate, l = true, l[1:]
		}
		if strings.HasSuffix(l, "/") {
			r.dirOnly, l = true, strings.TrimSuffix(l, "/")
		}
		l = strings.TrimPrefix(l, "**/")
		if strings.Contains(l, "/") {
			r.anchored, l = true, strings.TrimPrefix(l, "/")
		}
		r.pattern = l
		f.rules = append(f.rules, r)
	}
	return f
}

// trimIgnoreLine is a .gitignore line as git reads it: a CR at its end dropped, then
// its trailing spaces, but not a space quoted with a backslash (`a\ ` matches "a "),
// nor tabs.
func trimIgnoreLine(l string) string {
	l = strings.TrimSuffix(l, "\r")
	end := len(l)
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			if end == len(l) {
				end = i
			}
			continue
		case '\\':
			i++ // the next byte is quoted
		}
		end = len(l)
	}
	return l[:end]
}

// ignored applies the .gitignore files above p (a path from the root), the nearest
// last, as git does (the last matching rule wins).
func (w *Walker) ignored(ignores []ignoreFile, p string, dir bool) bool {
	return !w.IncludeIgnored && ignoredBy(ignores, p, dir)
}

// ignoredBy applies files, the shallowest first, to p.
func ignoredBy(files []ignoreFile, p string, dir bool) bool {
	out := false
	for _, f := range files {
		rel, ok := below(p, f.dir)
		if !ok {
			continue
		}
		for _, r := range f.rules {
			if hit := r.match(rel, dir); hit {
				out = !r.negate
			}
		}
	}
	return out
}

// below is p relative to dir, if p is inside it.
func below(p, dir string) (string, bool) {
	if dir == "." {
		return p, true
	}
	if !strings.HasPrefix(p, dir+"/") {
		return "", false
	}
	return p[len(dir)+1:], true
}

func (r ignoreRule) match(rel string, dir bool) bool {
	if r.dirOnly && !dir {
		return false
	}
	if !r.anchored {
		rel = path.Base(rel)
	}
	hit, _ := path.Match(r.pattern, rel)
	return hit
}
