package toolapi

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
	"github.com/vfsctl/vfsctl/vfs"
)

// The text editor tool of Anthropic's models, as its two names: the current one
// (text_editor_20250728 and text_editor_20250429) and the older str_replace_editor
// (text_editor_20250124), which still has undo_edit. Each command runs as the native
// tool it corresponds to, with that tool's rules:
//
//   - view of a file is read_file (numbered the same; the session has seen what was
//     shown), of a folder a listing two levels deep without hidden entries;
//   - create of a new file is create_file; of an existing one it is write_file's rule
//     (the session must have seen the whole current content), never a blind overwrite;
//   - str_replace is edit_file with one edit: the same tiers and fidelity;
//   - insert places new lines after a line, under the file's queue;
//   - undo_edit is undo_edit.

// Names of the text editor tool.
const (
	TextEditor    = "str_replace_based_edit_tool"
	TextEditorOld = "str_replace_editor"
)

// DefaultMaxCharacters bounds what one view shows when Options.MaxCharacters is 0.
const DefaultMaxCharacters = 64000

// Commands of the text editor tool.
const (
	cmdView       = "view"
	cmdCreate     = "create"
	cmdStrReplace = "str_replace"
	cmdInsert     = "insert"
	cmdUndo       = "undo_edit"
)

// editorArgs are the tool's arguments; which ones a command takes is checked by the
// handler (the schema cannot say it without oneOf, which function-calling APIs reject).
func editorArgs(commands []string, dropped map[string]string) objectDef {
	return objectDef{fields: []argDef{
		{name: "command", typ: tString, required: true, enum: commands, dropped: dropped,
			desc: "The command to run: " + orList(commands) + "."},
		pathArg("Absolute path of a file or folder inside the workspace, e.g. /repo/src/app.py (a path relative to the workspace root also works)."),
		{name: "view_range", typ: tArray, elem: tInteger, maxItems: 2,
			desc: "view of a file: [first, last] lines to show, 1-based; [first, -1] shows to the end. Default the whole file."},
		{name: "file_text", typ: tString, desc: "create: the whole content of the file."},
		{name: "old_str", typ: tString, desc: "str_replace: the exact text to replace; it must occur once in the file."},
		{name: "new_str", typ: tString, desc: "str_replace: the text to put in its place (left out: old_str is deleted). insert: the text to insert."},
		{name: "insert_line", typ: tInteger, desc: "insert: the line after which to insert; 0 inserts at the top of the file."},
		{name: "insert_text", typ: tString, desc: "insert: the text to insert (the same as new_str)."},
	}}
}

const editorShape = `{"command": "str_replace", "path": "/repo/src/app.py", "old_str": "exact old lines", "new_str": "new lines"}`

const editorDesc = "View, create and edit text files of the workspace. " +
	"view shows a file with line numbers (\"     1\\tcode\"; the number and tab are not part of the file) or lists a folder two levels deep. " +
	"create makes a new file; an existing file may be replaced whole only after this session has viewed all of it. " +
	"str_replace replaces old_str, which must occur exactly once (add surrounding lines to make it unique); small differences in quotes, dashes, spaces and indentation are forgiven, and what you did not change is written as the file has it. " +
	"insert adds new_str after line insert_line (0: at the top). Every change is journaled and can be undone."

var textEditorDef = &toolDef{
	name: TextEditor,
	desc: editorDesc,
	args: editorArgs([]string{cmdView, cmdCreate, cmdStrReplace, cmdInsert}, map[string]string{
		cmdUndo: "this version of the text editor has no undo_edit (text_editor_20250429 and later dropped it). To revert your change, str_replace the lines back.",
	}),
	shape: editorShape,
	op:    journal.OpEdit,
	needs: needs{write: true, planFirst: true, licence: true},
	sets:  []string{setAnthropic},
	run:   (*dispatcher).textEditor,
}

var textEditorOldDef = &toolDef{
	name:  TextEditorOld,
	desc:  editorDesc + " undo_edit reverts this session's latest change to the file.",
	args:  editorArgs([]string{cmdView, cmdCreate, cmdStrReplace, cmdInsert, cmdUndo}, nil),
	shape: editorShape,
	op:    journal.OpEdit,
	needs: needs{write: true, planFirst: true, licence: true},
	sets:  []string{setAnthropic},
	run:   (*dispatcher).textEditor,
}

// editorTakes says which arguments each command takes besides command and path.
var editorTakes = map[string][]string{
	cmdView:       {"view_range"},
	cmdCreate:     {"file_text"},
	cmdStrReplace: {"old_str", "new_str"},
	cmdInsert:     {"insert_line", "new_str", "insert_text"},
	cmdUndo:       {},
}

// editorWords rewrites the native tools' words in a message for a model that knows
// only the text editor's.
var editorWords = strings.NewReplacer(
	"edits[0].oldText", "old_str", "edits[0].newText", "new_str", "edits[0]: ", "", "edits[0]", "old_str",
	"oldText", "old_str", "newText", "new_str",
	", or set replaceAll", "", " or set replaceAll", "", " (unless replaceAll)", "",
	"read_file", "view", "edit_file", "str_replace", "create_file", "create",
	"write_file", "create (after viewing the whole file)",
)

// inEditorWords is err with its message in the text editor's words; its kind and
// structure are kept.
func inEditorWords(err error) error { return inWords(err, editorWords) }

// inWords is err with its message rewritten by words, for a model that knows another
// tool's; its kind and structure are kept.
func inWords(err error, words *strings.Replacer) error {
	var e *errs.Error
	if !errors.As(err, &e) {
		return err
	}
	e2 := *e
	e2.Message = words.Replace(e.Error())
	return &e2
}

func (a *dispatcher) textEditor(c *txn.Call, session string, in *input) (string, error) {
	cmd, path := in.str("command"), in.str("path")
	if cmd == cmdView && len(path) > 1 {
		path = strings.TrimRight(path, "/") // a folder, as the tool's own listing names one
	}
	if filepath.IsAbs(path) {
		// Anthropic's tool asks for absolute paths; replies, diffs and the journal
		// name files from the root, as every tool does.
		if rel, err := a.eng.FS().Clean(path); err == nil && rel != "." && rel != "" {
			path = rel
		}
	}
	for _, f := range []string{"view_range", "file_text", "old_str", "new_str", "insert_line", "insert_text"} {
		if in.sent(f) && !strings.Contains(" "+strings.Join(editorTakes[cmd], " ")+" ", " "+f+" ") {
			return "", errs.New(errs.InvalidInput, "", "%s does not take %s; it takes path%s. Send e.g. %s.",
				cmd, f, takesList(editorTakes[cmd]), editorShape)
		}
	}
	var text string
	var err error
	switch cmd {
	case cmdView:
		text, err = a.editorView(c, path, in)
	case cmdCreate:
		text, err = a.editorCreate(c, path, in)
	case cmdStrReplace:
		text, err = a.editorReplace(c, path, in)
	case cmdInsert:
		text, err = a.editorInsert(c, path, in)
	case cmdUndo:
		text, err = a.editorUndo(c, session, path)
	}
	if err != nil {
		return "", inEditorWords(err)
	}
	return text, nil
}

func takesList(l []string) string {
	if len(l) == 0 {
		return " only"
	}
	return " and " + andList(l)
}

// maxCharacters is what one view may show.
func (a *dispatcher) maxCharacters() int {
	if a.maxChars > 0 {
		return a.maxChars
	}
	return DefaultMaxCharacters
}

func (a *dispatcher) editorView(c *txn.Call, path string, in *input) (string, error) {
	rng, _ := in.m["view_range"].([]int)
	r, err := a.eng.FS().Resolve(path)
	root := errors.Is(err, vfs.ErrRoot)
	if err != nil && !root {
		return "", err
	}
	if root || r.Exists && r.Info.IsDir() {
		if in.sent("view_range") {
			return "", errs.New(errs.InvalidInput, path, "%s is a folder; view_range applies to a file. View the folder without view_range.", path)
		}
		dir := "."
		if !root {
			dir = r.Path
		}
		return a.viewFolder(c, path, dir), nil
	}
	if in.sent("view_range") && len(rng) != 2 {
		return "", errs.New(errs.InvalidInput, path, "view_range must be two line numbers, [first, last] or [first, -1] to the end; it has %d.", len(rng))
	}
	f, err := a.eng.Read(c, path)
	if err != nil {
		return "", err
	}
	first, last := 1, f.TotalLines
	if in.sent("view_range") {
		first, last = rng[0], rng[1]
		switch {
		case f.TotalLines == 0:
			c.Shown(nil, 0)
			return fmt.Sprintf("(%s is empty)", path), nil
		case first < 1 || first > f.TotalLines:
			c.Shown([][2]int{}, f.TotalLines)
			return "", errs.New(errs.InvalidInput, path, "view_range [%d, %d]: %s has %s, so the first line must be 1 to %d.", first, last, path, plural(f.TotalLines, "line"), f.TotalLines)
		case last == -1 || last > f.TotalLines:
			last = f.TotalLines
		case last < first:
			c.Shown([][2]int{}, f.TotalLines)
			return "", errs.New(errs.InvalidInput, path, "view_range [%d, %d] ends before it starts. Send [%d, -1] to view from line %d to the end.", first, last, first, first)
		}
	}
	text, spans := renderView(path, f, first, last, a.maxCharacters())
	c.Shown(spans, f.TotalLines)
	return text, nil
}

// renderView numbers lines first to last as read_file does, up to maxChars
// characters; a cut says how to view the rest. spans are the lines shown whole.
func renderView(path string, f *txn.ReadResult, first, last, maxChars int) (string, [][2]int) {
	if f.TotalLines == 0 {
		return fmt.Sprintf("(%s is empty)", path), nil
	}
	var b strings.Builder
	var spans [][2]int
	chars, shown := 0, first-1
	cutLine := 0 // a line too long to show whole on its own
	matcher.EachLine(f.Data, func(ln int, line []byte) bool {
		if ln < first {
			return true
		}
		if ln > last {
			return false
		}
		row := fmt.Sprintf("%6d\t%s\n", ln, validText(line))
		n := utf8.RuneCountInString(row)
		if chars+n > maxChars {
			if ln == first {
				cutLine = ln
				b.WriteString(string([]rune(row)[:maxChars]) + "\n")
			}
			return false
		}
		chars += n
		b.WriteString(row)
		shown = ln
		if k := len(spans); k > 0 && spans[k-1][1] == ln-1 {
			spans[k-1][1] = ln
		} else {
			spans = append(spans, [2]int{ln, ln})
		}
		return true
	})
	rest := fmt.Sprint(last)
	if last == f.TotalLines {
		rest = "-1"
	}
	switch {
	case cutLine > 0:
		fmt.Fprintf(&b, "(line %d is longer than max_characters (%d): cut. str_replace inside it with old_str copied from the part shown.)\n", cutLine, maxChars)
		return b.String(), [][2]int{}
	case shown < last:
		fmt.Fprintf(&b, "(output truncated at max_characters (%d): lines %d-%d of %d shown. View the rest with view_range [%d, %s].)\n", maxChars, first, shown, f.TotalLines, shown+1, rest)
	case first > 1 || last < f.TotalLines:
		fmt.Fprintf(&b, "(lines %d-%d of %d)\n", first, last, f.TotalLines)
	}
	if spans == nil {
		spans = [][2]int{}
	}
	return b.String(), spans
}

// viewFolder lists a folder two levels deep, as the text editor tool does: hidden
// entries left out, and here also what .gitignore ignores.
func (a *dispatcher) viewFolder(c *txn.Call, path, dir string) string {
	c.Looked(dir)
	w := a.walker(false, 2)
	var out []string
	more := 0
	w.Walk(dir, func(p string, fi fs.FileInfo) bool {
		rel := p
		if dir != "." {
			rel = strings.TrimPrefix(p, dir+"/")
		}
		for _, part := range strings.Split(rel, "/") {
			if strings.HasPrefix(part, ".") {
				return true
			}
		}
		if len(out) >= maxListed {
			more++
			return true
		}
		if fi.IsDir() {
			p += "/"
		}
		out = append(out, p)
		return true
	})
	head := fmt.Sprintf("Files and folders in %s, two levels deep (paths relative to the workspace root; hidden entries and what .gitignore ignores left out):\n", path)
	if len(out) == 0 {
		return head + "(nothing)"
	}
	text := head + strings.Join(out, "\n")
	if more > 0 {
		text += fmt.Sprintf("\n(%d more entries not shown: view a subfolder)", more)
	}
	return text
}

func (a *dispatcher) editorCreate(c *txn.Call, path string, in *input) (string, error) {
	if !in.sent("file_text") {
		return "", errs.New(errs.InvalidInput, path, "create needs file_text, the whole content of the file (\"\" for an empty file).")
	}
	content := []byte(in.str("file_text"))
	r, err := a.eng.FS().Resolve(path)
	if err != nil {
		return "", err
	}
	if r.Exists && r.Info.IsDir() {
		return "", errs.New(errs.FileExists, path, "%s is an existing folder; create makes a file. Send the path of a new file, e.g. %s/new.py.", path, path)
	}
	if !r.Exists || r.Link {
		if err := a.nearDuplicate(c, path); err != nil {
			return "", err
		}
		ch, err := a.eng.Create(c, path, content)
		if err != nil {
			return "", err
		}
		return renderWrite(path, ch), nil
	}
	ch, err := a.eng.Write(c, path, content)
	switch errs.KindOf(err) {
	case "":
		return renderWrite(path, ch), nil
	case errs.NotRead:
		return "", errs.Wrap(errs.FileExists, path, err, "%s already exists, and create would replace it whole: %s To change part of it, use str_replace; to replace it whole, view the whole file first, then create again.",
			path, strings.TrimSuffix(firstSentence(err.Error()), ".")+".")
	case errs.NoChange:
		return "", errs.Wrap(errs.NoChange, path, err, "%s already has exactly this content; nothing was written.", path)
	}
	return "", err
}

// firstSentence is the first sentence of a message.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func (a *dispatcher) editorReplace(c *txn.Call, path string, in *input) (string, error) {
	if !in.sent("old_str") {
		return "", errs.New(errs.InvalidInput, path, "str_replace needs old_str, the exact text to replace, and new_str, the text to put instead (left out: old_str is deleted).")
	}
	edit := matcher.Edit{OldText: in.str("old_str"), NewText: in.str("new_str")}
	ch, err := a.eng.Edit(c, path, []matcher.Edit{edit}, false)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Replaced old_str in %s (%s).\n", path, changedLines(ch.Plan))
	if note := tierNote(0, ch.Plan.Edits[0]); note != "" {
		// Only the note is reworded: the diff is the file's own text.
		b.WriteString(editorWords.Replace(note) + "\n")
	}
	b.WriteString(boundedDiff(ch.Diff(), ch.Seq))
	return withWarnings(strings.TrimRight(b.String(), "\n"), ch), nil
}

func (a *dispatcher) editorInsert(c *txn.Call, path string, in *input) (string, error) {
	text, field := in.str("insert_text"), "insert_text"
	if in.sent("new_str") {
		if in.sent("insert_text") {
			return "", errs.New(errs.InvalidInput, path, "insert has both new_str and insert_text; send the text once, as insert_text.")
		}
		text, field = in.str("new_str"), "new_str"
	}
	switch {
	case !in.sent("insert_line"):
		return "", errs.New(errs.InvalidInput, path, "insert needs insert_line, the line after which to insert (0: at the top of the file).")
	case in.num("insert_line") < 0:
		return "", errs.New(errs.InvalidInput, path, "insert_line must be 0 (the top of the file) or a line number, not %d.", in.num("insert_line"))
	case text == "":
		return "", errs.New(errs.InvalidInput, path, "insert needs the text to insert, as insert_text (or new_str); %s was empty or left out.", field)
	}
	after := in.num("insert_line")
	spec := txn.Spec{Path: path, Op: journal.OpEdit, Locate: func(content []byte) (*matcher.Result, error) {
		return insertAt(path, content, after, text)
	}, Adds: len(text)}
	chs, err := a.eng.Apply(c, []txn.Spec{spec}, false)
	if err != nil {
		return "", err
	}
	n := txn.CountLines([]byte(strings.ReplaceAll(text, "\r\n", "\n")))
	where := "at the top"
	if after > 0 {
		where = fmt.Sprintf("after line %d", after)
	}
	head := fmt.Sprintf("Inserted %s into %s %s (now lines %d-%d).\n", plural(n, "line"), path, where, after+1, after+n)
	if n == 1 {
		head = fmt.Sprintf("Inserted 1 line into %s %s (now line %d).\n", path, where, after+1)
	}
	return withWarnings(strings.TrimRight(head+boundedDiff(chs[0].Diff(), chs[0].Seq), "\n"), chs[0]), nil
}

// insertAt plans text as whole new lines after line after of content (0: before the
// first line, after a BOM). The new lines take the line ending of the line before
// them (else of the line after, else LF); a file without a final line break keeps
// that: the break goes before the new lines instead.
func insertAt(path string, content []byte, after int, text string) (*matcher.Result, error) {
	if bytes.IndexByte(content, 0) >= 0 {
		return nil, errs.New(errs.BinaryFile, path, "%s", matcher.BinaryMessage(path, content))
	}
	starts, ends := lineBounds(content)
	total := len(starts)
	if after > total {
		return nil, errs.New(errs.InvalidInput, path, "insert_line %d is past the end of %s, which has %s: send 0 to %d (0 inserts at the top, %d after the last line).", after, path, plural(total, "line"), total, total)
	}
	eol := "\n"
	switch {
	case after > 0 && ends[after-1] != "":
		eol = ends[after-1]
	case after < total && ends[after] != "":
		eol = ends[after]
	case total > 1:
		eol = ends[total-2]
	}
	lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	body := strings.Join(lines, eol)
	var at int
	var ins string
	switch {
	case after == 0:
		at = len(content) - len(bytes.TrimPrefix(content, []byte("\ufeff")))
		ins = body + eol
	case ends[after-1] == "": // the last line, without a line break
		at, ins = len(content), eol+body
	default:
		at = starts[after-1] + lineLen(content[starts[after-1]:]) + len(ends[after-1])
		ins = body + eol
	}
	return matcher.FromSplices(content, []matcher.Splice{{Start: at, End: at, Text: []byte(ins)}}, nil)
}

// lineBounds gives each line's start offset and its line ending ("" for a last line
// without one), lines ended by LF, CRLF or a lone CR, after a BOM.
func lineBounds(content []byte) (starts []int, ends []string) {
	i := len(content) - len(bytes.TrimPrefix(content, []byte("\ufeff")))
	for i < len(content) {
		starts = append(starts, i)
		n := lineLen(content[i:])
		j := i + n
		switch {
		case j >= len(content):
			ends = append(ends, "")
		case content[j] == '\r' && j+1 < len(content) && content[j+1] == '\n':
			ends = append(ends, "\r\n")
		default:
			ends = append(ends, string(content[j]))
		}
		i = j + len(ends[len(ends)-1])
	}
	return starts, ends
}

// lineLen is the length of the first line of b without its line ending.
func lineLen(b []byte) int {
	if k := bytes.IndexAny(b, "\r\n"); k >= 0 {
		return k
	}
	return len(b)
}

func (a *dispatcher) editorUndo(c *txn.Call, session, path string) (string, error) {
	return a.undoLast(c, session, path, fmt.Sprintf("view %s and str_replace the lines back", path), nil)
}
