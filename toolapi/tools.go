package toolapi

import "encoding/json"

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
func Tools() []Tool {
	return []Tool{
		{
			Name: ReadFile,
			Description: "Read a text file of the workspace. Lines come back numbered (\"     1\\tcode\"); the number and tab are not part of the file, so leave them out of oldText. " +
				"Reads up to 2000 lines from offset (1-based); the reply says how to read on. write_file may replace a file only after its whole current content was read (in one read or several).",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace root (an absolute path inside the root also works)."},
    "offset": {"type": "integer", "minimum": 1, "description": "First line to read, 1-based. Default 1."},
    "limit": {"type": "integer", "minimum": 1, "description": "Most lines to read. Default 2000."}
  },
  "required": ["path"],
  "additionalProperties": false
}`),
		},
		{
			Name: EditFile,
			Description: "Edit a text file by replacing exact text. Send ONE call per file with all its changes as several edits. " +
				"Every edit is matched against the file as it is before this call, not after the other edits, so edits must not overlap or touch the same line. " +
				"Each oldText must occur exactly once: include enough surrounding lines to make it unique, or set replaceAll to change every occurrence. " +
				"Copy oldText from the file as read; small differences in quotes, dashes, spaces, trailing whitespace and indentation are forgiven, but nothing else. " +
				"The whole call is applied or nothing is. dryRun returns the diff without writing.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace root."},
    "edits": {
      "type": "array",
      "minItems": 1,
      "description": "Replacements, each matched against the original file.",
      "items": {
        "type": "object",
        "properties": {
          "oldText": {"type": "string", "minLength": 1, "description": "Text to find: must match exactly one place (unless replaceAll)."},
          "newText": {"type": "string", "description": "Text to put in its place. Empty deletes it."},
          "replaceAll": {"type": "boolean", "description": "Replace every occurrence of oldText. Default false."}
        },
        "required": ["oldText", "newText"],
        "additionalProperties": false
      }
    },
    "dryRun": {"type": "boolean", "description": "Show the diff without writing. Default false."}
  },
  "required": ["path", "edits"],
  "additionalProperties": false
}`),
		},
		{
			Name: CreateFile,
			Description: "Create a NEW text file with the given content; missing parent folders are created. " +
				"Refused if the path exists in any form: use edit_file to change an existing file.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path of the new file, relative to the workspace root."},
    "content": {"type": "string", "description": "The whole content, written byte for byte."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`),
		},
		{
			Name: WriteFile,
			Description: "Replace an EXISTING file's whole content. Allowed only after read_file of its current content in this session. " +
				"Prefer edit_file for changes to part of a file; use create_file for a new file.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path of the existing file, relative to the workspace root."},
    "content": {"type": "string", "description": "The whole new content, written byte for byte."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`),
		},
		{
			Name: ApplyChanges,
			Description: "Change several files in ONE transaction: all are applied or none is. Each change names one file (each file at most once) and is " +
				"either {path, edits} (as edit_file), {path, create} (as create_file) or {path, write} (as write_file, after read_file). " +
				"A refusal names the change at fault, e.g. changes[1].",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "changes": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "path": {"type": "string"},
          "edits": {"type": "array", "items": {"type": "object", "properties": {
            "oldText": {"type": "string", "minLength": 1}, "newText": {"type": "string"}, "replaceAll": {"type": "boolean"}},
            "required": ["oldText", "newText"], "additionalProperties": false}},
          "create": {"type": "string", "description": "content of a new file"},
          "write": {"type": "string", "description": "whole new content of an existing, read file"}
        },
        "required": ["path"],
        "additionalProperties": false
      }
    }
  },
  "required": ["changes"],
  "additionalProperties": false
}`),
		},
		{
			Name: UndoEdit,
			Description: "Revert this session's latest change to a file (an edit, a write, a create, or one file's part of apply_changes: then all its files), as a new change. " +
				"Calling it again reverts the change before that. Changes made after it elsewhere in the file are kept; if a later change touched the same lines, " +
				"it is refused as a conflict that names that change, and nothing is written.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace root."}
  },
  "required": ["path"],
  "additionalProperties": false
}`),
		},
		{
			Name: ListFiles,
			Description: "List the files and folders of the workspace (folders end with /), below path, down to depth levels. " +
				"Files that .gitignore ignores are left out unless includeIgnored is set; .git and .vfsctl are never listed. At most 1000 entries; the reply says how to narrow it.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Folder to list, relative to the workspace root. Default the root."},
    "pattern": {"type": "string", "description": "Glob on names, e.g. *.go; with a slash, on paths, e.g. src/*.ts."},
    "depth": {"type": "integer", "minimum": 1, "description": "Folder levels to descend. Default 6."},
    "includeIgnored": {"type": "boolean", "description": "Also list what .gitignore ignores. Default false."}
  },
  "additionalProperties": false
}`),
		},
		{
			Name: SearchFiles,
			Description: "Search the text files of the workspace for a regular expression (RE2 syntax) or, with literal, a plain string; one line per match as path:line: text. " +
				"Files that .gitignore ignores are left out unless includeIgnored is set. At most 200 matches; the reply says how to narrow it.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "description": "RE2 regular expression, or a plain string with literal."},
    "path": {"type": "string", "description": "Folder to search, relative to the workspace root. Default the root."},
    "glob": {"type": "string", "description": "Only files whose name matches, e.g. *.py."},
    "literal": {"type": "boolean", "description": "Treat pattern as a plain string. Default false."},
    "includeIgnored": {"type": "boolean", "description": "Also search what .gitignore ignores. Default false."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`),
		},
	}
}
