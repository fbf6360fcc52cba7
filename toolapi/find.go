package toolapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// Bounds on what list_files and search_files return.
const (
	maxListed      = 1000
	maxMatches     = 200
	maxMatchChars  = 240
	maxSearchBytes = 4 << 20 // a larger file is not searched
	maxSearchDepth = 64
	maxIgnoreBytes = 256 << 10 // a larger .gitignore is not read: its rules cost every entry
	defaultDepth   = 6
	maxSkipNames   = 5 // names shown per reason something was skipped
)

// Why an entry was left out of a listing or a search; the reply counts each.
const (
	skipIgnoreSpecial = iota
	skipIgnoreLarge
	skipLarge
	skipSpecial
	skipSymlink
	skipDeep
	skipUnreadable
	skipReasons
)

// skipWhat says, for one or for several, what was skipped and why.
var skipWhat = [skipReasons][2]string{
	skipIgnoreSpecial: {".gitignore file not used (not a regular file)", ".gitignore files not used (not a regular file)"},
	skipIgnoreLarge:   {".gitignore file not used (over 256 KB)", ".gitignore files not used (over 256 KB)"},
	skipLarge:         {"file over 4 MB not searched", "files over 4 MB not searched"},
	skipSpecial:       {"entry that is not a regular file not searched", "entries that are not regular files not searched"},
	skipSymlink:       {"symlink not followed", "symlinks not followed"},
	skipDeep:          {"folder deeper than 64 levels not searched", "folders deeper than 64 levels not searched"},
	skipUnreadable:    {"file could not be read", "files could not be read"},
}

// skipped gathers what a walk left out, so that the reply can say so.
type skipped struct {
	n     [skipReasons]int
	names [skipReasons][]string
}

func (s *skipped) add(why int, p string) {
	s.n[why]++
	if len(s.names[why]) < maxSkipNames {
		s.names[why] = append(s.names[why], p)
	}
}

// note is one line per reason, e.g. "(2 files over 4 MB not searched: a.bin, b.log)".
func (s *skipped) note() string {
	var b strings.Builder
	for why, n := range s.n {
		if n == 0 {
			continue
		}
		what := skipWhat[why][1]
		if n == 1 {
			what = skipWhat[why][0]
		}
		names := strings.Join(s.names[why], ", ")
		if n > len(s.names[why]) {
			names += fmt.Sprintf(" and %d more", n-len(s.names[why]))
		}
		fmt.Fprintf(&b, "\n(%d %s: %s)", n, what, names)
	}
	return b.String()
}

// readRegular reads p only if it is a regular file of at most limit bytes: a FIFO
// blocks its reader until a writer comes, and a device can stream without end. info
// is how a walk saw p (without following a symlink); the opened handle is checked
// again, since p may have been replaced in between. It returns the reason p was not
// read, or -1.
func readRegular(afs afero.Fs, p string, info fs.FileInfo, limit int64) ([]byte, int) {
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, skipSymlink
	}
	if !info.Mode().IsRegular() {
		return nil, skipSpecial
	}
	if info.Size() > limit {
		return nil, skipLarge
	}
	// O_NONBLOCK: should p have become a FIFO since, the open returns at once.
	f, err := afs.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, skipUnreadable
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, skipSpecial
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	switch {
	case err != nil:
		return nil, skipUnreadable
	case int64(len(data)) > limit:
		return nil, skipLarge
	}
	return data, -1
}

// lstat is how the walk sees p: a symlink as itself.
func lstat(afs afero.Fs, p string) (fs.FileInfo, error) {
	if l, ok := afs.(afero.Lstater); ok {
		fi, _, err := l.LstatIfPossible(p)
		return fi, err
	}
	return afs.Stat(p)
}

// walker walks the workspace below a folder as the model may see it: confined to the
// root, reserved folders left out, symlinks not followed, and files that .gitignore
// files ignore left out unless asked.
type walker struct {
	api            *API
	includeIgnored bool
	ignores        []ignoreFile
	skipped        skipped
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
		l := strings.TrimRight(sc.Text(), " \t\r")
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

// ignored applies the .gitignore files above p (a path from the root), the nearest
// last, as git does (the last matching rule wins).
func (w *walker) ignored(p string, dir bool) bool {
	if w.includeIgnored {
		return false
	}
	out := false
	for _, f := range w.ignores {
		rel := p
		if f.dir != "." {
			if !strings.HasPrefix(p, f.dir+"/") {
				continue
			}
			rel = p[len(f.dir)+1:]
		}
		for _, r := range f.rules {
			if r.dirOnly && !dir {
				continue
			}
			var hit bool
			if r.anchored {
				hit, _ = path.Match(r.pattern, rel)
			} else {
				hit, _ = path.Match(r.pattern, path.Base(rel))
			}
			if hit {
				out = !r.negate
			}
		}
	}
	return out
}

// walk calls fn for every entry below root (a canonical folder), depth-first in name
// order, down to depth levels. fn returns false to stop. With noteDeep, folders it did
// not enter for depth are noted as skipped.
func (w *walker) walk(root string, depth int, noteDeep bool, fn func(p string, d fs.FileInfo) bool) error {
	afs := w.api.eng.FS().Afero()
	var visit func(dir string, level int) bool
	visit = func(dir string, level int) bool {
		if !w.includeIgnored {
			name := path.Join(dir, ".gitignore")
			if info, err := lstat(afs, name); err == nil {
				data, why := readRegular(afs, name, info, maxIgnoreBytes)
				switch why {
				case -1:
					w.ignores = append(w.ignores, parseIgnore(dir, data))
					defer func() { w.ignores = w.ignores[:len(w.ignores)-1] }()
				case skipLarge:
					w.skipped.add(skipIgnoreLarge, name)
				case skipSpecial, skipSymlink:
					w.skipped.add(skipIgnoreSpecial, name)
				default:
					w.skipped.add(skipUnreadable, name)
				}
			}
		}
		entries, err := afero.ReadDir(afs, dir)
		if err != nil {
			return true
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			if dir == "." {
				p = e.Name()
			}
			isDir := e.IsDir() && e.Mode()&fs.ModeSymlink == 0
			if w.api.eng.FS().Reserved(e.Name()) || strings.HasPrefix(e.Name(), ".vfsctl-tmp-") || w.ignored(p, isDir) {
				continue
			}
			if !fn(p, e) {
				return false
			}
			if isDir && level >= depth && noteDeep {
				w.skipped.add(skipDeep, p)
			}
			if isDir && level < depth && !visit(p, level+1) {
				return false
			}
		}
		return true
	}
	visit(root, 1)
	return nil
}

// folder resolves the path argument of list_files and search_files to a folder.
func (a *API) folder(p string) (string, error) {
	if p == "" || p == "." || p == "/" {
		return ".", nil
	}
	r, err := a.eng.FS().Resolve(strings.TrimSuffix(p, "/"))
	if err != nil {
		if errors.Is(err, vfs.ErrRoot) {
			return ".", nil
		}
		return "", err
	}
	if !r.Exists {
		return "", errs.New(errs.FileNotFound, p, "%s does not exist. Call list_files without a path to see the workspace.", p)
	}
	if !r.Info.IsDir() {
		return "", errs.New(errs.NotAFile, p, "%s is a file, not a folder: read it with read_file.", p)
	}
	return r.Path, nil
}

type findArgs struct {
	path, pattern, glob string
	depth               int
	literal, ignored    bool
}

func decodeFind(tool string, raw json.RawMessage) (*findArgs, error) {
	a, err := parseArgs(tool, raw)
	if err != nil {
		return nil, err
	}
	out := &findArgs{}
	get := func(names ...string) (json.RawMessage, error) {
		v, _, err := a.take(tool, a.m, names...)
		return v, err
	}
	str := func(field string, required bool, names ...string) (string, error) {
		v, err := get(names...)
		if err != nil {
			return "", err
		}
		if absent(v) && !required {
			return "", nil
		}
		s, _, err := a.str(tool, field, v, required)
		return s, err
	}
	if out.path, err = str("path", false, "path"); err != nil {
		return nil, err
	}
	if out.pattern, err = str("pattern", tool == SearchFiles, "pattern", "query", "regex"); err != nil {
		return nil, err
	}
	if tool == SearchFiles {
		if out.glob, err = str("glob", false, "glob", "include"); err != nil {
			return nil, err
		}
		v, err := get("literal")
		if err != nil {
			return nil, err
		}
		if out.literal, err = a.boolean(tool, "literal", v); err != nil {
			return nil, err
		}
	} else {
		v, err := get("depth")
		if err != nil {
			return nil, err
		}
		if out.depth, err = a.positive("depth", v); err != nil {
			return nil, err
		}
	}
	v, err := get("includeIgnored", "include_ignored")
	if err != nil {
		return nil, err
	}
	if out.ignored, err = a.boolean(tool, "includeIgnored", v); err != nil {
		return nil, err
	}
	allowed := "path, pattern, depth and includeIgnored"
	if tool == SearchFiles {
		allowed = "pattern, path, glob, literal and includeIgnored"
	}
	if err := a.rest(tool, a.m, allowed); err != nil {
		return nil, err
	}
	return out, nil
}

func (a *API) listFiles(c *txn.Call, raw json.RawMessage) (string, error) {
	args, err := decodeFind(ListFiles, raw)
	if err != nil {
		return "", err
	}
	if args.pattern != "" {
		if _, err := path.Match(args.pattern, ""); err != nil {
			return "", errs.New(errs.InvalidInput, "", "list_files.pattern %q is not a valid glob (%v). Send e.g. \"*.go\" or \"src/*.ts\".", args.pattern, err)
		}
	}
	dir, err := a.folder(args.path)
	if err != nil {
		return "", err
	}
	c.Looked(dir)
	depth := args.depth
	if depth == 0 {
		depth = defaultDepth
	}
	w := &walker{api: a, includeIgnored: args.ignored}
	var out []string
	more := 0
	w.walk(dir, depth, false, func(p string, d fs.FileInfo) bool {
		if args.pattern != "" && !globMatch(args.pattern, p) {
			return true
		}
		if len(out) >= maxListed {
			more++
			return true
		}
		if d.IsDir() {
			p += "/"
		}
		out = append(out, p)
		return true
	})
	if len(out) == 0 {
		return fmt.Sprintf("(nothing listed below %s%s)", shown(dir), patternNote(args.pattern)) + w.skipped.note(), nil
	}
	text := strings.Join(out, "\n")
	if more > 0 {
		text += fmt.Sprintf("\n(%d more entries not shown: narrow with path, pattern or depth)", more)
	}
	return text + w.skipped.note(), nil
}

func (a *API) searchFiles(c *txn.Call, raw json.RawMessage) (string, error) {
	args, err := decodeFind(SearchFiles, raw)
	if err != nil {
		return "", err
	}
	expr := args.pattern
	if args.literal {
		expr = regexp.QuoteMeta(expr)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", errs.New(errs.InvalidInput, "", "search_files.pattern is not a valid regular expression (RE2 syntax): %v. Escape special characters, or set literal: true.", err)
	}
	if args.glob != "" {
		if _, err := path.Match(args.glob, ""); err != nil {
			return "", errs.New(errs.InvalidInput, "", "search_files.glob %q is not a valid glob (%v). Send e.g. \"*.go\".", args.glob, err)
		}
	}
	dir, err := a.folder(args.path)
	if err != nil {
		return "", err
	}
	c.Looked(dir)
	afs := a.eng.FS().Afero()
	w := &walker{api: a, includeIgnored: args.ignored}
	var out []string
	more, files := 0, 0
	w.walk(dir, maxSearchDepth, true, func(p string, d fs.FileInfo) bool {
		if d.IsDir() || args.glob != "" && !globMatch(args.glob, p) {
			return true
		}
		data, why := readRegular(afs, p, d, maxSearchBytes)
		if why >= 0 {
			w.skipped.add(why, p)
			return true
		}
		if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			return true // binary: not text to search, as grep -I
		}
		files++
		matcher.EachLine(data, func(n int, line []byte) bool {
			if !re.Match(line) {
				return true
			}
			if len(out) >= maxMatches {
				more++
				return true
			}
			l := validText(line)
			if r := []rune(l); len(r) > maxMatchChars {
				l = string(r[:maxMatchChars]) + "..."
			}
			out = append(out, fmt.Sprintf("%s:%d: %s", p, n, l))
			return true
		})
		return true
	})
	if len(out) == 0 {
		return fmt.Sprintf("(no match in %s below %s)", plural(files, "file"), shown(dir)) + w.skipped.note(), nil
	}
	text := strings.Join(out, "\n")
	if more > 0 {
		text += fmt.Sprintf("\n(%d more matches not shown: narrow with path, glob or a more specific pattern)", more)
	}
	return text + w.skipped.note(), nil
}

// globMatch matches a glob against a path's base name, or against the whole path when
// the glob names folders.
func globMatch(glob, p string) bool {
	if strings.Contains(glob, "/") {
		ok, _ := path.Match(strings.TrimPrefix(glob, "**/"), p)
		return ok
	}
	ok, _ := path.Match(glob, path.Base(p))
	return ok
}

func shown(dir string) string {
	if dir == "." {
		return "the workspace root"
	}
	return dir
}

func patternNote(p string) string {
	if p == "" {
		return ""
	}
	return " matching " + p
}
