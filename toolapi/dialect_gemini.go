package toolapi

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// Gemini CLI's file tools (tool set "gemini"), with the arguments its function
// declarations name, on the same engine as the native tools: replace is edit_file's
// matching with an exact count, write_file and read_file keep the native rules (no
// blind overwrite), and the listing and searches walk the one workspace walker.
//
// Two of them share a name with a native tool and take other arguments (read_file
// {absolute_path}, write_file {file_path}, which also makes a new file): a set has one
// tool of a name, so the gemini set is not combined with the native set, and "all"
// keeps the native ones (see selectTools).

// Tool names of the gemini set that are not native tools' names.
const (
	GeminiReplace       = "replace"
	GeminiListDirectory = "list_directory"
	GeminiGlob          = "glob"
	GeminiSearch        = "search_file_content"
)

// maxGlobbed bounds what glob lists.
const maxGlobbed = 1000

// geminiWords are the native tools' words in a refusal of replace, in Gemini's terms.
var geminiWords = strings.NewReplacer(
	"edits[0].oldText", "old_string", "edits[0].newText", "new_string", "edits[0]: ", "", "edits[0]", "old_string",
	"oldText", "old_string", "newText", "new_string",
	", or set replaceAll", ", or set expected_replacements to the number of occurrences to replace them all",
	" or set replaceAll", " or set expected_replacements", " (unless replaceAll)", "",
	"edit_file", "replace", "create_file", "write_file",
)

var geminiReplaceDef = &toolDef{
	name: GeminiReplace,
	desc: "Replace text within a file. By default it replaces one occurrence; set expected_replacements to replace that many, and the call is refused unless exactly that many are found. " +
		"old_string must be the literal text as the file has it, with enough lines of context (3 or more) before and after to match one place; small differences in quotes, dashes, spaces, trailing whitespace and indentation are forgiven, nothing else. " +
		"An empty old_string creates a new file with new_string as its content. Nothing is written when the call is refused.",
	args: objectDef{fields: []argDef{
		{name: "file_path", typ: tString, required: true, path: true, aliases: []string{"path", "absolute_path"}, desc: "The path of the file to change, absolute (inside the workspace) or relative to the workspace root."},
		{name: "old_string", typ: tString, required: true, aliases: []string{"oldText", "old_str"}, desc: "The exact text to replace; empty to create a new file."},
		{name: "new_string", typ: tString, required: true, aliases: []string{"newText", "new_str"}, desc: "The text to put in its place."},
		{name: "expected_replacements", typ: tInteger, min: 1, def: 1, desc: "How many occurrences to replace; the call is refused unless exactly this many are found."},
	}},
	shape: `{"file_path": "src/app.ts", "old_string": "exact old lines", "new_string": "new lines"}`,
	op:    journal.OpEdit,
	needs: needs{write: true, planFirst: true},
	sets:  []string{setGemini},
	run:   (*dispatcher).geminiReplace,
}

var geminiWriteFileDef = &toolDef{
	name: WriteFile,
	desc: "Write content to a file: a new file is created (with its folders); an existing file is replaced whole only after read_file has shown its current content in this session. " +
		"Prefer replace for changes to part of a file.",
	args: objectDef{fields: []argDef{
		{name: "file_path", typ: tString, required: true, path: true, aliases: []string{"path", "absolute_path"}, desc: "The path of the file, absolute (inside the workspace) or relative to the workspace root."},
		contentArg("The whole content, written as sent; except that a file whose line breaks are all CRLF keeps them when this content has no CR, and a file with a BOM keeps it when this content has none."),
	}},
	shape: `{"file_path": "src/app.ts", "content": "..."}`,
	op:    journal.OpWrite,
	needs: needs{write: true, planFirst: true, licence: true},
	sets:  []string{setGemini},
	run:   (*dispatcher).geminiWrite,
}

var geminiReadFileDef = &toolDef{
	name: ReadFile,
	desc: "Read a text file. Lines come back numbered (\"     1\\tcode\"); the number and tab are not part of the file, so leave them out of old_string. " +
		"offset is the 0-based line to start from (a negative offset reads the last lines: -20 the last 20) and limit how many lines to read (default 2000); the reply says how to read on.",
	args: objectDef{fields: []argDef{
		{name: "absolute_path", typ: tString, required: true, path: true, aliases: []string{"file_path", "path"}, desc: "The path of the file, absolute (inside the workspace) or relative to the workspace root."},
		{name: "offset", typ: tInteger, signed: true, def: 0, desc: "The 0-based line number to start reading from; negative counts from the end."},
		{name: "limit", typ: tInteger, min: 1, def: DefaultReadLimit, desc: "The most lines to read."},
	}},
	shape: `{"absolute_path": "src/app.ts"}`,
	op:    journal.OpRead,
	sets:  []string{setGemini},
	run:   (*dispatcher).geminiRead,
}

var geminiListDirectoryDef = &toolDef{
	name: GeminiListDirectory,
	desc: "List the files and folders directly inside a folder, folders first (marked [DIR]). What .gitignore ignores is left out unless respect_git_ignore is false; .git and .vfsctl are never listed.",
	args: objectDef{fields: []argDef{
		{name: "path", typ: tString, required: true, path: true, aliases: []string{"dir_path"}, desc: "The folder to list, absolute (inside the workspace) or relative to the workspace root."},
		{name: "ignore", typ: tArray, elem: tString, maxItems: 100, desc: "Glob patterns of names to leave out, e.g. [\"*.log\", \"*.{tmp,bak}\"]."},
		{name: "respect_git_ignore", typ: tBoolean, def: true, desc: "Leave out what .gitignore ignores."},
	}},
	shape: `{"path": "src"}`,
	op:    journal.OpRead,
	sets:  []string{setGemini},
	run:   (*dispatcher).geminiListDirectory,
}

var geminiGlobDef = &toolDef{
	name: GeminiGlob,
	desc: "Find files whose path matches a glob pattern such as src/**/*.ts or *.{md,txt} (** crosses folders, {a,b} is either), newest first. " +
		"What .gitignore ignores is left out unless respect_git_ignore is false. At most 1000 paths.",
	args: objectDef{fields: []argDef{
		{name: "pattern", typ: tString, required: true, min: 1, desc: "The glob, matched against paths relative to path, e.g. **/*.py or src/**/*.{js,ts}."},
		{name: "path", typ: tString, path: true, aliases: []string{"dir_path"}, defDoc: "the workspace root", desc: "The folder to search in."},
		{name: "case_sensitive", typ: tBoolean, def: false, desc: "Match letter case exactly."},
		{name: "respect_git_ignore", typ: tBoolean, def: true, desc: "Leave out what .gitignore ignores."},
	}},
	shape: `{"pattern": "**/*.ts"}`,
	op:    journal.OpRead,
	sets:  []string{setGemini},
	run:   (*dispatcher).geminiGlob,
}

var geminiSearchDef = &toolDef{
	name: GeminiSearch,
	desc: "Search the text files below a folder for a regular expression (RE2 syntax); one line per match as path:line: text. " +
		"What .gitignore ignores is left out. At most 200 matches.",
	args: objectDef{fields: []argDef{
		{name: "pattern", typ: tString, required: true, min: 1, desc: "The regular expression, e.g. func\\s+main."},
		{name: "path", typ: tString, path: true, aliases: []string{"dir_path"}, defDoc: "the workspace root", desc: "The folder to search in."},
		{name: "include", typ: tString, desc: "Only files whose name matches this glob, e.g. *.js or *.{ts,tsx}."},
	}},
	shape: `{"pattern": "TODO", "include": "*.ts"}`,
	op:    journal.OpRead,
	sets:  []string{setGemini},
	run:   (*dispatcher).geminiSearch,
}

// relative turns a path Gemini sends (absolute, as its tools ask) into one from the
// root, so that replies, diffs and the journal name files as every tool does.
func (a *dispatcher) relative(p string) string {
	if path.IsAbs(p) {
		if rel, err := a.eng.FS().Clean(p); err == nil && rel != "" {
			return rel
		}
	}
	return p
}

// geminiReplace is edit_file with a count: without expected_replacements one
// occurrence, as edit_file; with it, every occurrence, refused unless there are
// exactly that many.
func (a *dispatcher) geminiReplace(c *txn.Call, session string, in *input) (string, error) {
	p := a.relative(in.str("file_path"))
	old, nw, want := in.str("old_string"), in.str("new_string"), in.num("expected_replacements")
	if old == "" {
		ch, err := a.eng.Create(c, p, []byte(nw))
		if err != nil {
			return "", inWords(err, geminiWords)
		}
		return renderWrite(p, ch), nil
	}
	edit := matcher.Edit{OldText: old, NewText: nw, ReplaceAll: want > 1}
	spec := txn.Spec{Path: p, Op: journal.OpEdit, Edits: []matcher.Edit{edit}}
	if want > 1 {
		spec.Locate = func(content []byte) (*matcher.Result, error) {
			res, err := matcher.Apply(content, spec.Edits, matcher.Options{Name: p})
			if err != nil {
				return nil, err
			}
			if n := len(res.Edits[0].Lines); n != want {
				return nil, countRefusal(p, want, n, res.Edits[0].Lines, res.Edits[0].AlsoFolded)
			}
			return res, nil
		}
	}
	ch, err := a.eng.Apply(c, []txn.Spec{spec}, false)
	if err != nil {
		if want > 1 && errs.KindOf(err) == errs.TextNotFound && !strings.HasPrefix(err.Error(), "Expected ") {
			err = errs.Prefixed(fmt.Sprintf("Expected %d occurrences of old_string in %s but found 0. ", want, p), err)
		}
		return "", inWords(err, geminiWords)
	}
	return inWordsText(renderEdit(p, 1, false, ch[0]), geminiWords), nil
}

// countRefusal refuses a replace that found another count than expected_replacements.
// Places that match old_string only after folding (folded) are named apart: the
// exact ones are what a replace takes, so a count that includes them cannot be met
// by changing expected_replacements alone.
func countRefusal(p string, want, found int, lines [][2]int, folded []int) error {
	at := make([]int, len(lines))
	for i, l := range lines {
		at[i] = l[0]
	}
	kind := errs.MultipleMatches
	if found < want {
		kind = errs.TextNotFound
	}
	if found < want && len(folded) > 0 {
		return errs.New(kind, p, "Expected %d occurrences of old_string in %s but found %d exactly (at %s); it also matches %s once quotes, dashes and spaces are folded, and replace takes only the exact matches when there are any. Replace those places in a separate call, with old_string as the file has it there; send expected_replacements: %d for the exact ones. Nothing was written.",
			want, p, found, linesWord(at), linesWord(folded), found)
	}
	return errs.New(kind, p, "Expected %d occurrences of old_string in %s but found %d (at %s). Send expected_replacements: %d to replace them all, or add context to old_string so that it matches only the occurrences you mean. Nothing was written.",
		want, p, found, linesWord(at), found)
}

func inWordsText(s string, words *strings.Replacer) string { return words.Replace(s) }

// geminiWrite creates a missing file, and replaces an existing one by write_file's
// rule: only after its current content was read in this session.
func (a *dispatcher) geminiWrite(c *txn.Call, _ string, in *input) (string, error) {
	p := a.relative(in.str("file_path"))
	content := []byte(in.str("content"))
	r, err := a.eng.FS().Resolve(p)
	if err != nil {
		return "", err
	}
	var ch *txn.Change
	if !r.Exists && !r.Link {
		if err := a.nearDuplicate(c, p); err != nil {
			return "", err
		}
		ch, err = a.eng.Create(c, p, content)
	} else {
		ch, err = a.eng.Write(c, p, content)
	}
	if err != nil {
		return "", err
	}
	return renderWrite(p, ch), nil
}

// geminiRead is read_file with a 0-based offset.
func (a *dispatcher) geminiRead(c *txn.Call, _ string, in *input) (string, error) {
	p := a.relative(in.str("absolute_path"))
	off := in.num("offset")
	args := &readArgs{path: p, offset: off, limit: in.num("limit"), zeroBased: true}
	if off >= 0 {
		args.offset = off + 1
	}
	r, err := a.eng.Read(c, p)
	if err != nil {
		return "", err
	}
	text, spans := renderRead(args, r)
	c.Shown(spans, r.TotalLines)
	return text, nil
}

// geminiListDirectory lists one folder, folders first.
func (a *dispatcher) geminiListDirectory(c *txn.Call, _ string, in *input) (string, error) {
	p := a.relative(in.str("path"))
	dir, err := a.folder(p)
	if err != nil {
		return "", err
	}
	c.Looked(dir)
	var ignore []*glob
	for _, p := range in.strs("ignore") {
		g, err := globArg("list_directory.ignore", p, `"*.log", "*.{tmp,bak}"`)
		if err != nil {
			return "", err
		}
		ignore = append(ignore, g)
	}
	w := a.walker(!in.flag("respect_git_ignore"), 1)
	var dirs, files []string
	w.Walk(dir, func(q string, fi fs.FileInfo) bool {
		name := path.Base(q)
		if slices.ContainsFunc(ignore, func(g *glob) bool { return g.match(name) }) {
			return true
		}
		if fi.IsDir() {
			dirs = append(dirs, "[DIR] "+name)
		} else {
			files = append(files, name)
		}
		return true
	})
	if len(dirs)+len(files) == 0 {
		return fmt.Sprintf("Directory %s is empty.", shown(dir)), nil
	}
	if len(dirs)+len(files) > maxListed {
		more := len(dirs) + len(files) - maxListed
		all := append(dirs, files...)[:maxListed]
		return fmt.Sprintf("Directory listing for %s:\n%s\n(%d more entries not shown: narrow with ignore, or glob)", shown(dir), strings.Join(all, "\n"), more) + w.Skipped.Note(), nil
	}
	return fmt.Sprintf("Directory listing for %s:\n%s", shown(dir), strings.Join(append(dirs, files...), "\n")) + w.Skipped.Note(), nil
}

// geminiGlob lists the files below path whose relative path matches the pattern,
// newest first.
func (a *dispatcher) geminiGlob(c *txn.Call, _ string, in *input) (string, error) {
	pattern := in.str("pattern")
	fold := !in.flag("case_sensitive")
	if fold {
		pattern = strings.ToLower(pattern) // matched against the lowered paths
	}
	g, err := globArg("glob.pattern", pattern, `"**/*.ts", "src/**/*.{js,ts}"`)
	if err != nil {
		return "", err
	}
	dir, err := a.folder(a.relative(in.str("path")))
	if err != nil {
		return "", err
	}
	c.Looked(dir)
	w := a.walker(!in.flag("respect_git_ignore"), maxSearchDepth)
	w.NoteDeep = true
	type hit struct {
		p   string
		fi  fs.FileInfo
		key int64
	}
	var hits []hit
	more := 0
	w.Walk(dir, func(q string, fi fs.FileInfo) bool {
		if fi.IsDir() {
			return true
		}
		rel := q
		if dir != "." {
			rel = strings.TrimPrefix(q, dir+"/")
		}
		if fold {
			rel = strings.ToLower(rel)
		}
		if !g.match(rel) {
			return true
		}
		if len(hits) >= maxGlobbed {
			more++
			return true
		}
		hits = append(hits, hit{q, fi, fi.ModTime().UnixNano()})
		return true
	})
	if len(hits) == 0 {
		return fmt.Sprintf("No files found matching %s below %s.", in.str("pattern"), shown(dir)) + w.Skipped.Note(), nil
	}
	slices.SortStableFunc(hits, func(x, y hit) int {
		switch {
		case x.key > y.key:
			return -1
		case x.key < y.key:
			return 1
		}
		return strings.Compare(x.p, y.p)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "Found %s matching %s below %s, newest first:\n", plural(len(hits)+more, "file"), in.str("pattern"), shown(dir))
	for _, h := range hits {
		b.WriteString(h.p + "\n")
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more not shown: narrow the pattern or path)\n", more)
	}
	return strings.TrimRight(b.String(), "\n") + w.Skipped.Note(), nil
}

// geminiSearch is search_files with Gemini's argument names.
func (a *dispatcher) geminiSearch(c *txn.Call, _ string, in *input) (string, error) {
	args := &findArgs{path: a.relative(in.str("path")), pattern: in.str("pattern"), glob: in.str("include")}
	re, g, err := searchPattern(args)
	if err != nil {
		return "", inWords(err, strings.NewReplacer("search_files.glob", "search_file_content.include", "search_files", "search_file_content", ", or set literal: true", ""))
	}
	dir, err := a.folder(args.path)
	if err != nil {
		return "", err
	}
	c.Looked(dir)
	s := &search{fs: a.eng.FS(), re: re, glob: g, w: a.walker(false, maxSearchDepth)}
	s.w.NoteDeep, s.w.Skipped.LargeOver = true, maxSearchBytes
	s.w.Walk(dir, s.file)
	if len(s.out) == 0 {
		return fmt.Sprintf("No matches found for %s in %s below %s.", args.pattern, plural(s.files, "file"), shown(dir)) + s.w.Skipped.Note(), nil
	}
	text := strings.Join(s.out, "\n")
	if s.more > 0 {
		text += fmt.Sprintf("\n(%d more matches not shown: narrow with path, include or a more specific pattern)", s.more)
	}
	return text + s.w.Skipped.Note(), nil
}
