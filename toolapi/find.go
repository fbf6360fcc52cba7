package toolapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// Bounds on what list_files and search_files return.
const (
	maxListed      = 1000
	maxMatches     = 200
	maxMatchChars  = 240
	maxSearchBytes = 4 << 20 // a larger file is not searched
	defaultDepth   = 6
)

// walker walks the workspace below a folder as the model may see it: confined to the
// root, reserved folders left out, symlinks not followed, and files that .gitignore
// files ignore left out unless asked.
type walker struct {
	api            *API
	includeIgnored bool
	ignores        []ignoreFile
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
// order, down to depth levels. fn returns false to stop.
func (w *walker) walk(root string, depth int, fn func(p string, d fs.FileInfo) bool) error {
	afs := w.api.eng.FS().Afero()
	var visit func(dir string, level int) bool
	visit = func(dir string, level int) bool {
		if data, err := afero.ReadFile(afs, path.Join(dir, ".gitignore")); err == nil && !w.includeIgnored {
			w.ignores = append(w.ignores, parseIgnore(dir, data))
			defer func() { w.ignores = w.ignores[:len(w.ignores)-1] }()
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
		if errs.KindOf(err) == errs.NotAFile && strings.Contains(err.Error(), "workspace root") {
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
	w.walk(dir, depth, func(p string, d fs.FileInfo) bool {
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
		return fmt.Sprintf("(nothing listed below %s%s)", shown(dir), patternNote(args.pattern)), nil
	}
	text := strings.Join(out, "\n")
	if more > 0 {
		text += fmt.Sprintf("\n(%d more entries not shown: narrow with path, pattern or depth)", more)
	}
	return text, nil
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
	w.walk(dir, 64, func(p string, d fs.FileInfo) bool {
		if d.IsDir() || !d.Mode().IsRegular() || d.Size() > maxSearchBytes {
			return true
		}
		if args.glob != "" && !globMatch(args.glob, p) {
			return true
		}
		data, err := afero.ReadFile(afs, p)
		if err != nil || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			return true // unreadable or binary
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
		return fmt.Sprintf("(no match in %s below %s)", plural(files, "file"), shown(dir)), nil
	}
	text := strings.Join(out, "\n")
	if more > 0 {
		text += fmt.Sprintf("\n(%d more matches not shown: narrow with path, glob or a more specific pattern)", more)
	}
	return text, nil
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
