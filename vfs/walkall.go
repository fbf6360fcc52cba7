package vfs

import (
	"io/fs"
	"runtime"
	"strings"
	"sync"
)

// WalkAll is Walk for a caller that takes every entry of the tree (the snapshot): its
// folders are listed and their entries stat'ed on up to GOMAXPROCS goroutines, as
// git spreads its stat pass over threads, and fn is then called, on the caller's
// goroutine, with the same entries in the same order as Walk calls it, and the same
// notes in Skipped. The rules are Walk's, by the same code: a subfolder is opened by
// its name in its folder held, without following a symlink; .gitignore files are
// read from the root. Limit and Depth are Walk's alone: with either set, WalkAll
// walks as Walk does.
func (w *Walker) WalkAll(root string, fn func(p string, fi fs.FileInfo)) {
	if w.Limit > 0 || w.Depth > 0 {
		w.Walk(root, func(p string, fi fs.FileInfo) bool { fn(p, fi); return true })
		return
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
	top := listing{dir: root}
	g := &forks{free: make(chan struct{}, runtime.GOMAXPROCS(0)-1)}
	w.collect(&top, root, d, w.ignores, g)
	g.wg.Wait()
	w.emit(&top, fn)
}

// testHookListed, when a test sets it, runs once WalkAll has listed a folder and
// before it opens the folder's subfolders.
var testHookListed func(dir string)

// listing is one folder as WalkAll lists it: its entries the walk keeps, in name
// order, the listing of each folder among them (nil for the others, and for one that
// is gone; unlisted for one that could not be read), and the notes its walk made, in
// order.
type listing struct {
	dir      string
	unlisted bool // dir is there but could not be listed
	paths    []string
	entries  []fs.FileInfo
	subs     []*listing
	skipped  []skipNote
	ignored  []string
}

type skipNote struct {
	why SkipReason
	p   string
}

// forks runs a subfolder's listing on another goroutine while one is free, else on
// the caller's: the walk never waits for a goroutine, and uses at most GOMAXPROCS.
type forks struct {
	free chan struct{}
	wg   sync.WaitGroup
}

func (g *forks) run(fn func()) {
	select {
	case g.free <- struct{}{}:
		g.wg.Add(1)
		go func() {
			defer func() { <-g.free; g.wg.Done() }()
			fn()
		}()
	default:
		fn()
	}
}

// collect lists dir, held as descriptor d (-1: by path, and closed here), into l,
// with ignores the rules of the folders above it.
func (w *Walker) collect(l *listing, dir string, d int, ignores []ignoreFile, g *forks) {
	if d >= 0 {
		defer closeFd(d)
	}
	entries, err := w.list(dir, d)
	l.unlisted = unlistable(err)
	if testHookListed != nil {
		testHookListed(dir)
	}
	if !w.IncludeIgnored {
		if rules, ok := w.readIgnore(dir, entries, func(why SkipReason, p string) { l.skipped = append(l.skipped, skipNote{why, p}) }); ok {
			// Its own copy: the folders beside it are listed with the rules above.
			ignores = append(ignores[:len(ignores):len(ignores)], rules)
		}
	}
	l.paths, l.entries, l.subs = make([]string, 0, len(entries)), make([]fs.FileInfo, 0, len(entries)), make([]*listing, 0, len(entries))
	paths, pre := joinNames(dir, entries), prefixLen(dir)
	for _, e := range entries {
		p := paths[:pre+len(e.Name())]
		paths = paths[len(p):]
		isDir := e.IsDir() && e.Mode()&fs.ModeSymlink == 0
		if w.hidden(ignores, p, e.Name(), isDir) {
			if w.ignored(ignores, p, isDir) {
				l.ignored = append(l.ignored, ignoredName(p, isDir))
			}
			continue
		}
		l.paths, l.entries, l.subs = append(l.paths, p), append(l.entries, e), append(l.subs, nil)
		if !isDir {
			continue
		}
		sub := -1
		if d >= 0 {
			var err error
			if sub, err = openSubfolder(d, e.Name()); err != nil {
				if unlistable(err) {
					l.subs[len(l.subs)-1] = &listing{dir: p, unlisted: true}
				}
				continue // else gone, or swapped for a symlink or a file since it was listed
			}
		}
		s := &listing{dir: p}
		l.subs[len(l.subs)-1] = s
		g.run(func() { w.collect(s, p, sub, ignores, g) })
	}
}

// joinName is the path of the entry name in folder dir (a canonical path, "." for the
// root): path.Join's result, without its cleaning, which a listed name never needs.
func joinName(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// joinNames is the paths of entries in folder dir, each joinName's, one after
// another in one string (one allocation for the folder rather than one an entry):
// each path is the string's prefix of its length, cut off before the next.
func joinNames(dir string, entries []fs.FileInfo) string {
	n := 0
	for _, e := range entries {
		n += prefixLen(dir) + len(e.Name())
	}
	var b strings.Builder
	b.Grow(n)
	for _, e := range entries {
		if dir != "." {
			b.WriteString(dir)
			b.WriteByte('/')
		}
		b.WriteString(e.Name())
	}
	return b.String()
}

// prefixLen is the length of what joinName puts before a name in folder dir.
func prefixLen(dir string) int {
	if dir == "." {
		return 0
	}
	return len(dir) + 1
}

// emit calls fn with l's entries, each folder's followed by its own, and notes what
// each walk skipped, in Walk's order.
func (w *Walker) emit(l *listing, fn func(p string, fi fs.FileInfo)) {
	if l.unlisted {
		w.Unlisted = append(w.Unlisted, l.dir)
	}
	for _, n := range l.skipped {
		w.Skipped.Add(n.why, n.p)
	}
	w.Ignored = append(w.Ignored, l.ignored...)
	for i, p := range l.paths {
		fn(p, l.entries[i])
		if l.subs[i] != nil {
			w.emit(l.subs[i], fn)
		}
	}
}
