package toolapi

import (
	"encoding/json"
	"sync"

	"github.com/vfsctl/vfsctl/journal"
)

// Tool is one tool definition as agent runtimes and MCP expect it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Tool names.
const (
	ReadFile     = "read_file"
	EditFile     = "edit_file"
	CreateFile   = "create_file"
	WriteFile    = "write_file"
	ApplyChanges = "apply_changes"
	UndoEdit     = "undo_edit"
	ListFiles    = "list_files"
	SearchFiles  = "search_files"
)

// Tools returns the definitions of the tools this package dispatches.
func Tools() []Tool { return append([]Tool(nil), nativeDefinitions()...) }

// nativeDefinitions are generated once: the table does not change.
var nativeDefinitions = sync.OnceValue(func() []Tool { return definitionsOf(nativeTools()) })

// definitionsOf generates the definitions of defs from the table.
func definitionsOf(defs []*toolDef) []Tool {
	out := make([]Tool, len(defs))
	for i, d := range defs {
		out[i] = Tool{Name: d.name, Description: d.desc, InputSchema: inputSchema(d, false)}
	}
	return out
}

var readFileDef = &toolDef{
	name: ReadFile,
	desc: "Read a text file of the workspace. Lines come back numbered (\"     1\\tcode\"); the number and tab are not part of the file, so leave them out of oldText. " +
		"Reads up to 2000 lines from offset (1-based; a negative offset reads the last lines, -20 the last 20); the reply says how to read on. write_file may replace a file only after its whole current content was read (in one read or several).",
	args: objectDef{fields: []argDef{
		pathArg("File path, relative to the workspace root (an absolute path inside the root also works)."),
		{name: "offset", typ: tInteger, signed: true, def: 1, desc: "First line to read, 1-based (0 reads from the first line too); negative counts from the end, as tail does: -20 reads the last 20 lines."},
		{name: "limit", typ: tInteger, min: 1, def: DefaultReadLimit, desc: "Most lines to read."},
		anchorsArg(false),
	}},
	shape: `{"path": "src/app.ts"}`,
	op:    journal.OpRead,
	sets:  readOnlySets,
	run:   (*dispatcher).read,
}

var editFileDef = &toolDef{
	name: EditFile,
	desc: "Edit a text file by replacing exact text. Send ONE call per file with all its changes as several edits. " +
		"Every edit is matched against the file as it is before this call, not after the other edits, so edits must not overlap or touch the same line. " +
		"Each oldText must occur exactly once: include enough surrounding lines to make it unique, or set replaceAll to change every occurrence. " +
		"Copy oldText from the file as read; small differences in quotes, dashes, spaces, trailing whitespace and indentation are forgiven, but nothing else. " +
		"The whole call is applied or nothing is. dryRun returns the diff without writing. " +
		"Bounds: replaceAll changes at most 10000 places, and all edits of a call together as many; a file over 4 MiB is matched exactly, nothing forgiven.",
	args: objectDef{fields: []argDef{
		pathArg("File path, relative to the workspace root."),
		editsArg(true),
		{name: "dryRun", typ: tBoolean, def: false, aliases: []string{"dry_run"}, desc: "Show the diff without writing."},
	}, lone: "edits"},
	shape: `{"path": "src/app.ts", "edits": [{"oldText": "exact old lines", "newText": "new lines"}]}`,
	op:    journal.OpEdit,
	needs: needs{write: true, planFirst: true},
	sets:  []string{setNative},
	run:   (*dispatcher).edit,
}

// contentArg is the whole content of create_file and write_file.
func contentArg(desc string) argDef {
	return argDef{name: "content", typ: tString, required: true, aliases: []string{"text", "contents"}, desc: desc}
}

var createFileDef = &toolDef{
	name: CreateFile,
	desc: "Create a NEW text file with the given content; missing parent folders are created. " +
		"Refused if the path exists in any form: use edit_file to change an existing file.",
	args: objectDef{fields: []argDef{
		pathArg("Path of the new file, relative to the workspace root."),
		contentArg("The whole content, written byte for byte."),
	}},
	shape: `{"path": "src/app.ts", "content": "..."}`,
	op:    journal.OpCreate,
	needs: needs{write: true, planFirst: true, addOnly: true},
	sets:  []string{setNative, setSearchReplace, setHashline}, // Cline's set makes and rewrites files with write_to_file
	run:   (*dispatcher).create,
}

var writeFileDef = &toolDef{
	name: WriteFile,
	desc: "Replace an EXISTING file's whole content. Allowed only after read_file of its current content in this session. " +
		"Prefer edit_file for changes to part of a file; use create_file for a new file.",
	args: objectDef{fields: []argDef{
		pathArg("Path of the existing file, relative to the workspace root."),
		contentArg("The whole new content, written as sent; except that a file whose line breaks are all CRLF keeps them when this content has no CR, and a file with a BOM keeps it when this content has none."),
	}},
	shape: `{"path": "src/app.ts", "content": "..."}`,
	op:    journal.OpWrite,
	needs: needs{write: true, planFirst: true, licence: true},
	sets:  []string{setNative, setSearchReplace, setHashline}, // Cline's set makes and rewrites files with write_to_file
	run:   (*dispatcher).write,
}

var applyChangesDef = &toolDef{
	name: ApplyChanges,
	desc: "Change several files in ONE transaction: all are applied or none is. Each change names one file (each file at most once) and is " +
		"either {path, edits} (as edit_file), {path, create} (as create_file), {path, write} (as write_file, after read_file) or {path, delete: true} (removes the file). " +
		"A refusal names the change at fault, e.g. changes[1].",
	args: objectDef{fields: []argDef{
		{name: "changes", typ: tArray, required: true, min: 1, items: changeItem, maxItems: maxChanges,
			desc: "The changes, one per file."},
	}},
	shape: `{"changes": [{"path": "a.ts", "edits": [{"oldText": "...", "newText": "..."}]}, {"path": "b.ts", "create": "..."}]}`,
	op:    journal.OpEdit,
	needs: needs{write: true, planFirst: true, licence: true},
	sets:  []string{setNative},
	run:   (*dispatcher).apply,
}

var undoEditDef = &toolDef{
	name: UndoEdit,
	desc: "Revert this session's latest change to a file (an edit, a write, a create, or one file's part of apply_changes: then all its files), as a new change. " +
		"Calling it again reverts the change before that. Changes made after it elsewhere in the file are kept; if a later change touched the same lines, " +
		"it is refused as a conflict that names that change, and nothing is written. A run_command that changed other files too is refused unless wholeCall is set.",
	args: objectDef{fields: []argDef{
		pathArg("File path, relative to the workspace root."),
		{name: "wholeCall", typ: tBoolean, def: false, desc: "When the change is a run_command's that changed other files too: revert all of them."},
	}},
	shape: `{"path": "src/app.ts"}`,
	op:    journal.OpEdit,
	needs: needs{write: true},
	sets:  []string{setNative, setHashline},
	run:   (*dispatcher).undoEdit,
}

var listFilesDef = &toolDef{
	name: ListFiles,
	desc: "List the files and folders of the workspace (folders end with /), below path, down to depth levels; as a tree with format, with sizes with sizes. " +
		"Files that .gitignore ignores are left out unless includeIgnored is set; .git and .vfsctl are never listed. At most 1000 entries; the reply says how to narrow it.",
	args: objectDef{fields: []argDef{
		folderArg("Folder to list, relative to the workspace root."),
		{name: "pattern", typ: tString, aliases: []string{"query", "regex"}, desc: "Glob on names, e.g. *.go or *.{ts,tsx}; with a slash, on paths from the workspace root, e.g. src/**/*.ts."},
		{name: "depth", typ: tInteger, min: 1, def: defaultDepth, desc: "Folder levels to descend."},
		includeIgnoredArg("list"),
		{name: "sizes", typ: tBoolean, def: false, desc: "Show each file's size in bytes."},
		{name: "format", typ: tString, enum: []string{"list", "tree", "json"}, def: "list",
			desc: "list: one path per line; tree: names indented by folder; json: a nested array of {name, type, size?, children?}."},
	}},
	shape: `{"path": "src", "pattern": "*.ts"}`,
	op:    journal.OpRead,
	sets:  withHashline(readOnlySets),
	run:   (*dispatcher).listFiles,
}

var searchFilesDef = &toolDef{
	name: SearchFiles,
	desc: "Search the text files of the workspace for a regular expression (RE2 syntax) or, with literal, a plain string; one line per match as path:line: text. " +
		"Files that .gitignore ignores are left out unless includeIgnored is set. At most 200 matches; the reply says how to narrow it. " +
		"Bounds: a pattern may compile to at most 1000 RE2 instructions (a {1000} repetition is over), and a search may take at most 200000000 steps, a step being a byte searched by one instruction (a literal string: one a byte); narrow a larger search with path or glob.",
	args: objectDef{fields: []argDef{
		{name: "pattern", typ: tString, required: true, min: 1, aliases: []string{"query", "regex"}, desc: "RE2 regular expression, or a plain string with literal."},
		folderArg("Folder to search, relative to the workspace root."),
		{name: "glob", typ: tString, aliases: []string{"include"}, desc: "Only files whose name matches, e.g. *.py or *.{ts,tsx}; with a slash, whose path does, e.g. src/**/*.go."},
		{name: "literal", typ: tBoolean, def: false, desc: "Treat pattern as a plain string."},
		includeIgnoredArg("search"),
	}},
	shape: `{"pattern": "TODO", "glob": "*.ts"}`,
	op:    journal.OpRead,
	sets:  withHashline(readOnlySets),
	run:   (*dispatcher).searchFiles,
}
