package toolapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"regexp/syntax"
	"strings"

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
	defaultDepth   = 6
	// RE2 runs in time linear in the text, times the size of the compiled pattern:
	// (.*){1000}x compiles to 4,000 instructions, and took minutes over one 4 MB file.
	// A pattern may compile to at most maxPatternInsts instructions, and a search may
	// take at most maxSearchWork steps, a step being one byte searched by one
	// instruction (a literal string: one step a byte). Either bound is too_large.
	maxPatternInsts = 1000
	maxSearchWork   = 200_000_000
	lineSteps       = 32 // what searching one line costs besides its bytes, in bytes
)

// walker is the workspace walk of a listing or a search (vfs.Walker): confined to
// the root, reserved folders left out, symlinks not followed, and files that
// .gitignore files ignore left out unless asked.
func (a *dispatcher) walker(includeIgnored bool, depth int) *vfs.Walker {
	w := a.eng.FS().Walker()
	w.IncludeIgnored, w.Depth = includeIgnored, depth
	return w
}

// folder resolves the path argument of list_files and search_files to a folder.
func (a *dispatcher) folder(p string) (string, error) {
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
		return "", errs.New(errs.NotAFile, p, "%s is a file, not a folder: read it with read_file.", p).Stood(errs.FoundFile, "")
	}
	return r.Path, nil
}

// findArgs are the arguments of list_files and search_files.
type findArgs struct {
	path, pattern, glob string
	depth               int
	literal, ignored    bool
}

func findArgsOf(in *input) *findArgs {
	return &findArgs{path: in.str("path"), pattern: in.str("pattern"), glob: in.str("glob"), depth: in.num("depth"),
		literal: in.flag("literal"), ignored: in.flag("includeIgnored")}
}

func (a *dispatcher) listFiles(c *txn.Call, _ string, in *input) (string, error) {
	args := findArgsOf(in)
	var g *glob
	if args.pattern != "" {
		var err error
		if g, err = globArg("list_files.pattern", args.pattern, `"*.go", "src/**/*.{ts,tsx}"`); err != nil {
			return "", err
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
	w := a.walker(args.ignored, depth)
	var out []listed
	more := 0
	w.Walk(dir, func(p string, d fs.FileInfo) bool {
		if g != nil && !g.match(p) {
			return true
		}
		if len(out) >= maxListed {
			more++
			return true
		}
		out = append(out, listed{p: p, fi: d})
		return true
	})
	for i, l := range out {
		if l.fi.Mode()&fs.ModeSymlink != 0 {
			out[i].link = a.linkTarget(l.p)
		}
	}
	if len(out) == 0 {
		return fmt.Sprintf("(nothing listed below %s%s)", shown(dir), patternNote(args.pattern)) + w.Skipped.Note(), nil
	}
	var text string
	switch in.str("format") {
	case "tree":
		text = listTree(dir, out, in.flag("sizes"))
	case "json":
		text = listJSON(dir, out, in.flag("sizes"))
	default:
		text = listLines(out, in.flag("sizes"))
	}
	if more > 0 {
		text += fmt.Sprintf("\n(%d more entries not shown: narrow with path, pattern or depth)", more)
	}
	return text + w.Skipped.Note(), nil
}

// listed is one entry list_files shows.
type listed struct {
	p    string
	fi   fs.FileInfo
	link *linkTarget // a symlink's
}

// linkTarget is where a listed symlink leads, as the tools would follow it.
type linkTarget struct {
	path     string // from the root, a folder's with a slash; "" when not followed or nowhere
	dangling bool
}

// linkTarget resolves the symlink at canonical path p as a tool would.
func (a *dispatcher) linkTarget(p string) *linkTarget {
	r, err := a.eng.FS().Resolve(p)
	switch {
	case errs.KindOf(err) == errs.FileNotFound:
		// Its target climbs out of a folder that does not exist: it leads nowhere.
		return &linkTarget{dangling: true}
	case err != nil:
		return &linkTarget{} // outside the root, a loop, a reserved folder
	case !r.Exists:
		return &linkTarget{path: r.Path, dangling: true}
	case r.Info.IsDir():
		return &linkTarget{path: r.Path + "/"}
	}
	return &linkTarget{path: r.Path}
}

func (l listed) isDir() bool { return l.fi.IsDir() && l.fi.Mode()&fs.ModeSymlink == 0 }

// note is what follows the entry's name: a folder's slash, where a symlink leads,
// a file's size with sizes.
func (l listed) note(sizes bool) string {
	switch {
	case l.isDir():
		return "/"
	case l.link != nil && l.link.dangling && l.link.path == "":
		return " -> (dangling: its target climbs out of a folder that does not exist)"
	case l.link != nil && l.link.path == "":
		return " -> (a symlink the file tools do not follow: it leads out of the workspace, into a reserved folder, or round in a loop)"
	case l.link != nil && l.link.dangling:
		return " -> " + l.link.path + " (dangling: nothing is there)"
	case l.link != nil:
		return " -> " + l.link.path
	case sizes:
		return fmt.Sprintf(" (%s)", plural(int(l.fi.Size()), "byte"))
	}
	return ""
}

// listLines is one path a line, folders ending with /, symlinks with where they lead.
func listLines(out []listed, sizes bool) string {
	lines := make([]string, len(out))
	for i, l := range out {
		lines[i] = l.p + l.note(sizes)
	}
	return strings.Join(lines, "\n")
}

// listTree shows the names indented two spaces per folder level below dir; the walk
// comes depth-first in name order, so each name follows its folder.
func listTree(dir string, out []listed, sizes bool) string {
	lines := make([]string, len(out))
	depth := map[string]int{".": -1} // the indentation of each folder shown
	for i, l := range out {
		rel := relTo(dir, l.p)
		name, level := path.Base(rel), 0
		if d, ok := depth[path.Dir(rel)]; ok {
			level = d + 1
		} else {
			name = rel // its folder was left out (a pattern): the path says where it is
		}
		if l.isDir() {
			depth[rel] = level
		}
		name += l.note(sizes)
		lines[i] = strings.Repeat("  ", level) + name
	}
	return strings.Join(lines, "\n")
}

// treeNode is one entry of list_files' json form.
type treeNode struct {
	Name     string      `json:"name"`
	Type     string      `json:"type"`
	Size     *int64      `json:"size,omitempty"`
	Target   string      `json:"target,omitempty"` // a symlink's, from the root
	Dangling bool        `json:"dangling,omitempty"`
	Children []*treeNode `json:"children,omitempty"`
}

// listJSON nests the entries under their folders, as a JSON array.
func listJSON(dir string, out []listed, sizes bool) string {
	root := &treeNode{}
	folders := map[string]*treeNode{"": root}
	for _, l := range out {
		rel := relTo(dir, l.p)
		n := &treeNode{Name: path.Base(rel), Type: "file"}
		if l.isDir() {
			n.Type = "directory"
			n.Children = []*treeNode{}
			folders[rel] = n
		} else if l.link != nil {
			n.Type, n.Target, n.Dangling = "symlink", l.link.path, l.link.dangling
		} else if sizes {
			sz := l.fi.Size()
			n.Size = &sz
		}
		parent := folders[path.Dir(rel)]
		switch {
		case path.Dir(rel) == ".":
			parent = root
		case parent == nil:
			parent, n.Name = root, rel // its folder was left out (a pattern): the path says where it is
		}
		parent.Children = append(parent.Children, n)
	}
	b, _ := json.MarshalIndent(root.Children, "", "  ")
	return string(b)
}

// relTo is canonical path p relative to folder dir ("." for the root).
func relTo(dir, p string) string {
	if dir == "." {
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}

func (a *dispatcher) searchFiles(c *txn.Call, _ string, in *input) (string, error) {
	args := findArgsOf(in)
	re, g, err := searchPattern(args)
	if err != nil {
		return "", err
	}
	dir, err := a.folder(args.path)
	if err != nil {
		return "", err
	}
	c.Looked(dir)
	s := &search{fs: a.eng.FS(), re: re, step: stepsPerByte(re), glob: g, w: a.walker(args.ignored, maxSearchDepth)}
	s.w.NoteDeep, s.w.Skipped.LargeOver = true, maxSearchBytes
	_, s.literal = re.LiteralPrefix()
	s.w.Walk(dir, s.file)
	if s.over {
		what := fmt.Sprintf("the pattern compiles to %s", plural(s.step, "instruction"))
		if s.literal {
			what = "the pattern is a plain string"
		}
		return "", errs.New(errs.TooLarge, "", "search_files was refused: a search may take at most %d steps (a step is one byte, or the start of a line, searched by one instruction of the pattern), and this one would take more: %s, and the files below %s hold over %s. Narrow it with path or glob, or send a simpler pattern (a plain string with literal: true takes one step a byte).",
			maxSearchWork, what, shown(dir), plural(s.bytes, "byte"))
	}
	if len(s.out) == 0 {
		return fmt.Sprintf("(no match in %s below %s)", plural(s.files, "file"), shown(dir)) + s.w.Skipped.Note(), nil
	}
	text := strings.Join(s.out, "\n")
	if s.more > 0 {
		text += fmt.Sprintf("\n(%d more matches not shown: narrow with path, glob or a more specific pattern)", s.more)
	}
	return text + s.w.Skipped.Note(), nil
}

// searchPattern compiles search_files' pattern and its glob (nil: every file).
func searchPattern(args *findArgs) (*regexp.Regexp, *glob, error) {
	expr := args.pattern
	if args.literal {
		expr = regexp.QuoteMeta(expr)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, nil, errs.New(errs.InvalidInput, "", "search_files.pattern is not a valid regular expression (RE2 syntax): %v. Escape special characters, or set literal: true.", err)
	}
	if n := patternInsts(expr); n > maxPatternInsts {
		return nil, nil, errs.New(errs.TooLarge, "", "search_files.pattern compiles to %d instructions; at most %d are searched with (repetitions such as {1000} and nested groups multiply them). Send a simpler pattern, or a plain string with literal: true.", n, maxPatternInsts)
	}
	if args.glob == "" {
		return re, nil, nil
	}
	g, err := globArg("search_files.glob", args.glob, `"*.go", "*.{ts,tsx}"`)
	if err != nil {
		return nil, nil, err
	}
	return re, g, nil
}

// globArg compiles the glob a tool's argument holds, or refuses it as invalid_input,
// saying what is wrong and what to send (examples: two globs, quoted).
func globArg(arg, pattern, examples string) (*glob, error) {
	g, err := parseGlob(pattern)
	if err != nil {
		return nil, errs.New(errs.InvalidInput, "", "%s %q is not a valid glob: %v. Send e.g. %s.", arg, pattern, err, examples)
	}
	return g, nil
}

// patternInsts is the size of expr's compiled program, as regexp compiles it.
func patternInsts(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 0
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0
	}
	return len(prog.Inst)
}

// stepsPerByte is what searching one byte costs re, in maxSearchWork's steps: one for
// a plain string (found by a string search), else one per instruction.
func stepsPerByte(re *regexp.Regexp) int {
	if _, complete := re.LiteralPrefix(); complete {
		return 1
	}
	return max(patternInsts(re.String()), 1)
}

// search is one search_files call as it walks.
type search struct {
	fs          *vfs.FS
	re          *regexp.Regexp
	step        int   // steps per byte searched
	glob        *glob // nil: every file
	w           *vfs.Walker
	out         []string // the matches shown
	more, files int      // the matches not shown; the files searched
	bytes       int      // the bytes searched
	work        int      // the steps they took, in maxSearchWork's units
	over        bool     // the next file would take the search past maxSearchWork
	literal     bool     // the pattern is a plain string
}

// file searches one entry of the walk, if it is a text file the glob takes.
func (s *search) file(p string, d fs.FileInfo) bool {
	if d.IsDir() || s.glob != nil && !s.glob.match(p) {
		return true
	}
	data, why := s.fs.ReadRegular(p, d, maxSearchBytes)
	if why != vfs.NotSkipped {
		s.w.Skipped.Add(why, p)
		return true
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return true // binary: not text to search, as grep -I
	}
	// Each line costs a call of the matcher as well: lineSteps more bytes' worth.
	work := (len(data) + lineSteps*bytes.Count(data, []byte{'\n'})) * s.step
	if s.work+work > maxSearchWork {
		s.over, s.bytes = true, s.bytes+len(data)
		return false
	}
	s.files++
	s.bytes += len(data)
	s.work += work
	matcher.EachLine(data, func(n int, line []byte) bool {
		if !s.re.Match(line) {
			return true
		}
		if len(s.out) >= maxMatches {
			s.more++
			return true
		}
		l := validText(line)
		if r := []rune(l); len(r) > maxMatchChars {
			l = string(r[:maxMatchChars]) + "..."
		}
		s.out = append(s.out, fmt.Sprintf("%s:%d: %s", p, n, l))
		return true
	})
	return true
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
