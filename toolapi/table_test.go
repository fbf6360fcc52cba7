package toolapi

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Key names models send for the tools' arguments, from other tool ecosystems and
// from their usual slips; the decoder accepts some of them. Not taken from the table.
var candidateKeys = []string{
	"path", "file_path", "filePath", "filepath", "file", "filename", "target_file",
	"oldText", "old_string", "old_str", "oldString", "old_text", "search", "find", "old",
	"newText", "new_string", "new_str", "newString", "new_text", "replace", "replacement", "new",
	"replaceAll", "replace_all", "all", "dryRun", "dry_run", "preview",
	"content", "contents", "text", "body", "data", "file_text",
	"offset", "start_line", "line", "limit", "lines", "count",
	"pattern", "query", "regex", "glob", "include", "exclude", "literal", "fixed_strings",
	"depth", "max_depth", "recursive", "includeIgnored", "include_ignored", "hidden",
	"edits", "changes", "create", "write", "delete", "command",
	"source", "destination", "from", "to", "paths", "files",
}

// probeSites place a key in one object of a valid call of each tool, as "@".
var probeSites = map[string][]string{
	ReadFile:        {`{"path": "a.txt", "@": null}`},
	EditFile:        {`{"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}], "@": null}`, `{"path": "a.txt", "edits": [{"oldText": "x", "newText": "y", "@": null}]}`},
	CreateFile:      {`{"path": "a.txt", "content": "x", "@": null}`},
	WriteFile:       {`{"path": "a.txt", "content": "x", "@": null}`},
	ApplyChanges:    {`{"changes": [{"path": "a.txt", "create": "x"}], "@": null}`, `{"changes": [{"path": "a.txt", "create": "x", "@": null}]}`, `{"changes": [{"path": "a.txt", "edits": [{"oldText": "x", "newText": "y", "@": null}]}]}`},
	UndoEdit:        {`{"path": "a.txt", "@": null}`},
	ListFiles:       {`{"@": null}`},
	SearchFiles:     {`{"pattern": "x", "@": null}`},
	MoveFile:        {`{"source": "a.txt", "destination": "b.txt", "@": null}`},
	DeleteFile:      {`{"path": "a.txt", "@": null}`},
	CreateDirectory: {`{"path": "d", "@": null}`},
	ReadFiles:       {`{"paths": ["a.txt"], "@": null}`},
	FileInfo:        {`{"path": "a.txt", "@": null}`},
}

// Every key the decoder accepts is stated in the tool's schema, where a model and a
// runtime can read it.
func TestAcceptedKeysAreDocumented(t *testing.T) {
	if len(probeSites) != len(Tools()) {
		t.Fatalf("probe sites for %d tools, %d tools", len(probeSites), len(Tools()))
	}
	for _, tool := range Tools() {
		schema := string(tool.InputSchema)
		accepted := 0
		for _, site := range probeSites[tool.Name] {
			for _, k := range candidateKeys {
				call := strings.Replace(site, `"@"`, `"`+k+`"`, 1)
				_, _, err := decodeCall(toolTable, tool.Name, json.RawMessage(call))
				if err != nil && strings.Contains(err.Error(), "unknown field") {
					continue
				}
				if err != nil && strings.Contains(err.Error(), "twice") {
					continue // the site already holds k
				}
				accepted++
				if !regexp.MustCompile(`\b` + k + `\b`).MatchString(schema) {
					t.Errorf("%s accepts %q in %s, but its schema does not mention it", tool.Name, k, site)
				}
			}
		}
		if accepted == 0 {
			t.Errorf("%s: the probe accepted nothing", tool.Name)
		}
	}
}

// Every property a schema states decodes: sent with a value of its stated type, it
// is taken, not refused as unknown or mistyped.
func TestSchemaPropertiesDecode(t *testing.T) {
	for _, tool := range Tools() {
		var s map[string]any
		json.Unmarshal(tool.InputSchema, &s)
		valid := map[string]any{}
		json.Unmarshal([]byte(shape(tool.Name)), &valid)
		for name, p := range s["properties"].(map[string]any) {
			v := sample(p.(map[string]any))
			if v == nil {
				continue // an array: the shape sends one
			}
			args := map[string]any{}
			for k, x := range valid {
				args[k] = x
			}
			args[name] = v
			raw, _ := json.Marshal(args)
			_, in, err := decodeCall(toolTable, tool.Name, raw)
			if err != nil {
				t.Errorf("%s %s: %v", tool.Name, raw, err)
				continue
			}
			if got := in.m[name]; got != v {
				t.Errorf("%s %s: %s decoded as %v", tool.Name, raw, name, got)
			}
		}
	}
}

// sample is a value of the schema's type; nil for an array.
func sample(p map[string]any) any {
	switch p["type"] {
	case "string":
		if e, ok := p["enum"].([]any); ok {
			return e[len(e)-1]
		}
		return "src/x.go"
	case "integer":
		return 3
	case "boolean":
		return true
	}
	return nil
}

// The paths a call names are found however malformed the rest of it is, under every
// name a path is accepted as.
func TestPathsOfMalformedCalls(t *testing.T) {
	cases := []struct {
		tool, args string
		want       []string
	}{
		{ApplyChanges, `{"changes": [{"path": "a.txt", "create": "x"}, {"file_path": "b.txt", "edits": 7}, 5]}`, []string{"a.txt", "b.txt"}},
		{EditFile, `{"filePath": "c.txt", "edits": "nonsense", "bogus": 1}`, []string{"c.txt"}},
		{ReadFile, `{"path": "d.txt", "path": "e.txt"}`, []string{"e.txt"}},
		{"remove_file", `{"path": "f.txt"}`, []string{"f.txt"}},
		{ReadFiles, `{"paths": ["g.txt", 5, "h.txt"]}`, []string{"g.txt", "h.txt"}},
		{MoveFile, `{"source": "i.txt", "to": "j.txt", "bogus": 1}`, []string{"i.txt", "j.txt"}},
		{ReadFile, `not json`, nil},
	}
	for _, c := range cases {
		_, in, err := decodeCall(toolTable, c.tool, json.RawMessage(c.args))
		if err == nil {
			t.Errorf("%s %s: accepted", c.tool, c.args)
		}
		if !slices.Equal(in.paths, c.want) {
			t.Errorf("%s %s: paths %q, want %q", c.tool, c.args, in.paths, c.want)
		}
	}
}

func TestSelectTools(t *testing.T) {
	native := []string{ReadFile, EditFile, CreateFile, WriteFile, ApplyChanges, UndoEdit, ListFiles, SearchFiles,
		MoveFile, DeleteFile, CreateDirectory, ReadFiles, FileInfo}
	for _, spec := range []string{"", "native", " native "} {
		got, err := selectTools(spec)
		if err != nil || !slices.Equal(toolNames(got), native) {
			t.Errorf("%q: %v, %v", spec, toolNames(got), err)
		}
	}
	all, _ := selectTools("all")
	for _, n := range native {
		if !slices.Contains(toolNames(all), n) {
			t.Errorf("all lacks %s", n)
		}
	}
	for _, spec := range []string{"codex", "anthropic", "search-replace"} {
		got, err := selectTools(spec)
		if err != nil || !slices.Contains(toolNames(got), ReadFile) {
			t.Errorf("%s: %v, %v (a dialect reads files too)", spec, toolNames(got), err)
		}
	}
	got, err := selectTools("search_files, read_file,read_file")
	if err != nil || !slices.Equal(toolNames(got), []string{ReadFile, SearchFiles}) {
		t.Errorf("a list: %v, %v", toolNames(got), err)
	}
	for _, bad := range []string{"bogus", "read_file,bogus", "read_file,", "Native"} {
		_, err := selectTools(bad)
		if err == nil || !strings.Contains(err.Error(), "native") || !strings.Contains(err.Error(), "edit_file") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// A tool outside the chosen set is unknown_tool, and the message lists the set.
func TestToolOutsideTheSetIsUnknown(t *testing.T) {
	a, _ := newAPI(t, map[string]string{"f.txt": "one\n"})
	a.tools, _ = selectTools("read_file,list_files")
	r := call(a, EditFile, `{"path": "f.txt", "edits": [{"oldText": "one", "newText": "1"}]}`)
	if kindOf(r) != "unknown_tool" || r.Text != `There is no tool named "edit_file". The tools are read_file, list_files.` {
		t.Errorf("edit_file outside the set: %+v", r)
	}
	if r := call(a, ReadFile, `{"path": "f.txt"}`); !r.OK {
		t.Errorf("read_file in the set: %s", r.Text)
	}
}
