package toolapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/txn"
)

// The tool table: each tool is defined once, here. Its JSON Schema (schema.go), its
// strict decoder (decode.go) and the index of the paths a call names all come from
// this definition, so that they cannot disagree. Adding a tool is one entry in
// toolTable and its handler.

// JSON types of arguments.
const (
	tString  = "string"
	tInteger = "integer"
	tBoolean = "boolean"
	tArray   = "array"
	tObject  = "object" // its fields are the argDef's items
)

// toolDef is one tool.
type toolDef struct {
	name  string
	desc  string
	args  objectDef
	shape string     // a minimal valid call, quoted by messages ("Send e.g. ...")
	op    journal.Op // what the journal calls its files when it is refused before it planned
	needs needs
	sets  []string // the tool sets it belongs to besides "all" (see selectTools)
	run   handler
	// bare names the field that arguments sent as a bare JSON string fill: a freeform
	// tool sends its whole input as text, not as an object.
	bare string
}

// handler runs a decoded call.
type handler func(a *dispatcher, c *txn.Call, session string, in *input) (string, error)

// needs says what a tool needs of the workspace, and so how a runtime may gate it.
type needs struct {
	write   bool // it changes files
	licence bool // it replaces content only this session has read (write_file)
	addOnly bool // what it writes never replaces what is there (create_file)
	// planFirst: it changes files through txn.Engine.Apply or Undo only (or takes the
	// journal itself first, txn.Call.Hold), so its call begins without the journal
	// and Apply takes it once the changes are planned (txn.Engine.BeginWrite).
	planFirst bool
	// command: it runs a command (run_command), which may change anything its rights
	// reach; it does not hold the journal while the command runs. Such a tool is
	// chosen only by name or by its set, never by "all".
	command bool
}

// hints are what runtimes show or gate calls by (MCP's annotations).
func (n needs) hints() Hints {
	return Hints{ReadOnly: !n.write, Destructive: n.write && !n.addOnly, Idempotent: !n.write, OpenWorld: n.command}
}

// objectDef is the arguments of a tool, or the fields of one item of an array.
type objectDef struct {
	fields []argDef
	// oneOf lists fields of which exactly one must be sent (an apply_changes change).
	oneOf []string
	// lone names an array field whose items' fields may instead be sent at the top
	// level, as its only item (a lone oldText/newText is one edit).
	lone string
	// build turns an item's decoded fields into what the handler takes.
	build func(v values) any
}

// argDef is one argument (or field of an item).
type argDef struct {
	name     string
	typ      string
	desc     string
	required bool
	def      any      // the value when it is left out (or null); stated in the schema
	defDoc   string   // how the schema states the default when def does not say it
	aliases  []string // other names the decoder accepts, each stated in the schema
	path     bool     // names a file or folder: indexed in the journal, shown in traces
	min      int      // minLength, minimum or minItems; 0: none
	items    *objectDef
	loose    bool     // array: also accepted as one item, or as JSON inside a string
	maxItems int      // array: the most items one call may send
	missing  string   // what a message calls the field when it is missing
	empty    string   // array: what to send instead, when it is sent empty
	enum     []string // string: the values accepted
	elem     string   // array of scalars: their JSON type (view_range's integers, read_files' paths)
	signed   bool     // integer: negative values are taken too (min is not checked)
	// dropped are values of an enum that a newer version of the tool no longer has,
	// each refused with the message saying so.
	dropped map[string]string
	// hidden: decoded but left out of the schema. For a shape a runtime forwards
	// (the Responses API's built-in apply_patch call), not one a model is offered.
	hidden bool
}

// names are the keys the decoder accepts for the argument, canonical first.
func (d *argDef) names() []string { return append([]string{d.name}, d.aliases...) }

// schemaDesc is the description as the schema states it: the argument, its default
// and the other names it is accepted under.
func (d *argDef) schemaDesc() string {
	s := d.desc
	switch {
	case d.defDoc != "":
		s += " Default " + d.defDoc + "."
	case d.def != nil:
		s += fmt.Sprintf(" Default %v.", d.def)
	}
	if len(d.aliases) > 0 {
		s += " Also accepted as " + orList(d.aliases) + "."
	}
	return strings.TrimSpace(s)
}

// orList is "a", "a or b", "a, b or c".
func orList(l []string) string { return joinLast(l, " or ") }

// andList is "a", "a and b", "a, b and c".
func andList(l []string) string { return joinLast(l, " and ") }

func joinLast(l []string, last string) string {
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + last + l[len(l)-1]
}

// Names a path argument is sent under, and the edit keys of the other ecosystems.
var (
	pathAliases = []string{"file_path", "filePath"}
	oldAliases  = []string{"old_string", "old_str", "search", "oldString", "old_text"}
	newAliases  = []string{"new_string", "new_str", "replace", "newString", "new_text"}
)

// editItem is one {oldText, newText, replaceAll} of edit_file and apply_changes.
var editItem = &objectDef{
	fields: []argDef{
		{name: "oldText", typ: tString, required: true, min: 1, aliases: oldAliases, missing: "the exact text to replace",
			desc: "Text to find: must match exactly one place (unless replaceAll)."},
		{name: "newText", typ: tString, required: true, aliases: newAliases, missing: `send "" to delete oldText`,
			desc: "Text to put in its place. Empty deletes it."},
		{name: "replaceAll", typ: tBoolean, def: false, aliases: []string{"replace_all"},
			desc: "Replace every occurrence of oldText."},
	},
	build: func(v values) any {
		return matcher.Edit{OldText: v.str("oldText"), NewText: v.str("newText"), ReplaceAll: v.flag("replaceAll")}
	},
}

// editsArg is the edits array of edit_file and of an apply_changes change.
func editsArg(required bool) argDef {
	return argDef{name: "edits", typ: tArray, required: required, min: 1, items: editItem, loose: true, maxItems: maxEdits,
		desc: "Replacements, each matched against the original file."}
}

// changeItem is one file of apply_changes: {path, edits}, {path, create}, {path, write}
// or {path, delete: true}.
var changeItem = &objectDef{
	fields: []argDef{
		{name: "path", typ: tString, required: true, path: true, aliases: pathAliases, desc: "File path, relative to the workspace root."},
		editsArg(false),
		{name: "create", typ: tString, desc: "content of a new file"},
		{name: "write", typ: tString, desc: "whole new content of an existing, read file"},
		{name: "delete", typ: tBoolean, desc: "true removes the existing file"},
	},
	oneOf: []string{"edits", "create", "write", "delete"},
	build: buildChange,
}

// buildChange turns a decoded change into a transaction spec.
func buildChange(v values) any {
	s := txn.Spec{Path: v.str("path")}
	switch {
	case v.sent("edits"):
		s.Op, s.Edits = journal.OpEdit, v.edits("edits")
	case v.sent("create"):
		s.Op, s.Content = journal.OpCreate, []byte(v.str("create"))
	case v.sent("delete"):
		s.Op = journal.OpDelete
	default:
		s.Op, s.Content = journal.OpWrite, []byte(v.str("write"))
	}
	return s
}

// pathArg is the path argument of a tool that works on one file.
func pathArg(desc string) argDef {
	return argDef{name: "path", typ: tString, required: true, path: true, aliases: pathAliases, desc: desc}
}

// folderArg is the optional folder of list_files and search_files.
func folderArg(desc string) argDef {
	return argDef{name: "path", typ: tString, path: true, defDoc: "the root", desc: desc}
}

func includeIgnoredArg(what string) argDef {
	return argDef{name: "includeIgnored", typ: tBoolean, def: false, aliases: []string{"include_ignored"},
		desc: "Also " + what + " what .gitignore ignores."}
}

// Tool sets a runtime may choose from (see selectTools).
const (
	setNative        = "native"
	setCodex         = "codex"
	setAnthropic     = "anthropic"
	setSearchReplace = "search-replace"
	setGemini        = "gemini"
	setShell         = "shell"
	setAll           = "all"
)

// toolSets are the named sets, in the order messages list them.
var toolSets = []string{setNative, setCodex, setAnthropic, setSearchReplace, setGemini, setHashline, setUdiff, setShell, setAll}

// readOnlySets: the tools that only look belong to every dialect, since every
// dialect's model must be able to find and read files.
var readOnlySets = []string{setNative, setCodex, setAnthropic, setSearchReplace, setUdiff}

// toolTable defines every tool, in the order they are listed.
var toolTable = []*toolDef{readFileDef, editFileDef, createFileDef, writeFileDef, applyChangesDef, undoEditDef, listFilesDef, searchFilesDef,
	moveFileDef, deleteFileDef, createDirectoryDef, readFilesDef, fileInfoDef,
	textEditorDef, textEditorOldDef, replaceInFileDef, applyPatchDef,
	geminiReplaceDef, geminiWriteFileDef, geminiReadFileDef, geminiListDirectoryDef, geminiGlobDef, geminiSearchDef,
	hashlineReadFileDef, editLinesDef,
	applyDiffDef,
	runCommandDef}

// lookupTool returns the tool of defs named name, or nil; of two tools of one name
// (a dialect's read_file beside the native one), the first.
func lookupTool(defs []*toolDef, name string) *toolDef {
	for _, d := range defs {
		if d.name == name {
			return d
		}
	}
	return nil
}

// nativeTools are the tools a runtime gets by default.
func nativeTools() []*toolDef {
	defs, _ := selectTools(setNative)
	return defs
}

// selectTools returns the tools a tool-set spec chooses, in table order: "" or
// "native" (the default), "codex", "anthropic", "search-replace", "gemini", "udiff", "all", or
// a comma-separated list of tool and set names. A name it does not know is an error
// that lists the valid ones. A runtime calls tools by name, so a selection holds one
// tool of a name: "all" keeps the first in table order (the native read_file and
// write_file), and a list that chooses two tools of one name (native,gemini) is an
// error.
func selectTools(spec string) ([]*toolDef, error) {
	if strings.TrimSpace(spec) == "" {
		spec = setNative
	}
	chosen := map[*toolDef]bool{}
	withAll := false // "all" among others (all,glob): its rule, the first of a name, holds
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		withAll = withAll || name == setAll
		got := toolsNamed(name)
		if len(got) == 0 && !slices.Contains(toolSets, name) {
			return nil, fmt.Errorf("unknown tool or tool set %q in %q: use %s, or a comma-separated list of the tools %s",
				name, spec, orList(toolSets), andList(slices.Compact(slices.Sorted(slices.Values(toolNames(toolTable))))))
		}
		for _, d := range got {
			chosen[d] = true
		}
	}
	var out []*toolDef
	for _, d := range toolTable {
		if !chosen[d] {
			continue
		}
		if o := lookupTool(out, d.name); o != nil {
			if withAll {
				continue
			}
			return nil, fmt.Errorf("%q chooses two tools named %s (the %s set's and the %s set's), which take different arguments: choose one of those sets", spec, d.name, o.sets[0], d.sets[0])
		}
		out = append(out, d)
	}
	return out, nil
}

// toolsNamed returns the tools of set name, or the tool name itself.
func toolsNamed(name string) []*toolDef {
	if name == setAll {
		// Every file tool: a tool that runs commands is only had by asking for it.
		return slices.DeleteFunc(slices.Clone(toolTable), func(d *toolDef) bool { return d.needs.command })
	}
	var out []*toolDef
	if d := lookupTool(toolTable, name); d != nil {
		return []*toolDef{d} // a tool by its name is the first of that name
	}
	for _, d := range toolTable {
		if slices.Contains(d.sets, name) {
			out = append(out, d)
		}
	}
	return out
}

func toolNames(defs []*toolDef) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.name
	}
	return names
}
