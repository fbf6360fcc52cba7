package toolapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"
)

func roundTrip(t *testing.T, format string) any {
	t.Helper()
	d, err := Definitions(format)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	var v any
	json.Unmarshal(b, &v)
	return v
}

// strictKeywords are the schema keywords OpenAI's strict mode accepts (its structured
// outputs guide): a schema that uses any other is refused by the API.
var strictKeywords = map[string]bool{"type": true, "description": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "enum": true, "anyOf": true, "const": true}

// strictProblems reads a schema as OpenAI's strict mode does and says what it would
// refuse: a keyword it does not take, an object that does not list every property as
// required or allows others. plain is the same schema as the json format states it:
// a property plain does not require must take null in strict, or a strict-mode model
// could not leave it out.
func strictProblems(where string, s, plain map[string]any) []string {
	var out []string
	for k := range s {
		if !strictKeywords[k] {
			out = append(out, fmt.Sprintf("%s: keyword %s is not accepted in strict mode", where, k))
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		out = append(out, objectProblems(where, s, plain, props)...)
	}
	if items, ok := s["items"].(map[string]any); ok {
		pi, _ := plain["items"].(map[string]any)
		out = append(out, strictProblems(where+"[]", items, pi)...)
	}
	return out
}

func objectProblems(where string, s, plain, props map[string]any) []string {
	var out []string
	if s["additionalProperties"] != false {
		out = append(out, where+": additionalProperties is not false")
	}
	var names, req []string
	for n := range props {
		names = append(names, n)
	}
	reqList, _ := s["required"].([]any)
	for _, r := range reqList {
		req = append(req, r.(string))
	}
	sort.Strings(names)
	sort.Strings(req)
	if !slices.Equal(names, req) {
		out = append(out, fmt.Sprintf("%s: required %v, properties %v", where, req, names))
	}
	plainReq, _ := plain["required"].([]any)
	plainProps, _ := plain["properties"].(map[string]any)
	for n, p := range props {
		ps, pp := p.(map[string]any), plainProps[n]
		if pp == nil {
			out = append(out, fmt.Sprintf("%s.%s: not in the plain schema", where, n))
			continue
		}
		if !slices.Contains(plainReq, any(n)) && !nullable(ps) {
			out = append(out, fmt.Sprintf("%s.%s: optional, yet strict mode cannot send null for it (type %v)", where, n, ps["type"]))
		}
		out = append(out, strictProblems(where+"."+n, ps, pp.(map[string]any))...)
	}
	return out
}

func nullable(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	return false
}

// plainSchemas are the json format's input schemas by tool name.
func plainSchemas(t *testing.T) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, x := range roundTrip(t, "json").([]any) {
		m := x.(map[string]any)
		out[m["name"].(string)] = m["inputSchema"].(map[string]any)
	}
	return out
}

// The strict check fails on a schema strict mode would refuse: each mutation of a
// good definition is caught.
func TestStrictCheckCatchesWrongShapes(t *testing.T) {
	good := func() map[string]any {
		for _, x := range roundTrip(t, "openai").([]any) {
			f := x.(map[string]any)["function"].(map[string]any)
			if f["name"] == EditFile {
				return f["parameters"].(map[string]any)
			}
		}
		t.Fatal("no edit_file")
		return nil
	}
	plain := plainSchemas(t)[EditFile]
	if p := strictProblems(EditFile, good(), plain); len(p) > 0 {
		t.Fatalf("the good definition fails: %v", p)
	}
	item := func(s map[string]any) map[string]any {
		return s["properties"].(map[string]any)["edits"].(map[string]any)["items"].(map[string]any)
	}
	mutations := map[string]func(s map[string]any){
		"a property not required": func(s map[string]any) { s["required"] = s["required"].([]any)[1:] },
		"a rejected keyword": func(s map[string]any) {
			item(s)["properties"].(map[string]any)["oldText"].(map[string]any)["minLength"] = 1
		},
		"additional properties allowed": func(s map[string]any) { delete(item(s), "additionalProperties") },
		"an optional field not nullable": func(s map[string]any) {
			s["properties"].(map[string]any)["dryRun"].(map[string]any)["type"] = "boolean"
		},
		"nested required missing": func(s map[string]any) { delete(item(s), "required") },
	}
	for what, mutate := range mutations {
		s := good()
		mutate(s)
		if p := strictProblems(EditFile, s, plain); len(p) == 0 {
			t.Errorf("%s: the strict check passed it", what)
		}
	}
}

func TestFormats(t *testing.T) {
	n := len(Tools())
	// OpenAI: [{type: function, function: {name, description, parameters, strict}}].
	oa := roundTrip(t, "openai").([]any)
	plain := plainSchemas(t)
	for _, x := range oa {
		m := x.(map[string]any)
		f := m["function"].(map[string]any)
		if m["type"] != "function" || f["name"] == "" || f["strict"] != true {
			t.Errorf("openai tool %v", m)
		}
		p := f["parameters"].(map[string]any)
		if p["type"] != "object" {
			t.Errorf("%s: parameters type %v", f["name"], p["type"])
		}
		for _, problem := range strictProblems(f["name"].(string), p, plain[f["name"].(string)]) {
			t.Error(problem)
		}
	}
	// Anthropic: [{name, description, input_schema}] and nothing else.
	for _, x := range roundTrip(t, "anthropic").([]any) {
		m := x.(map[string]any)
		if len(m) != 3 || m["name"] == nil || m["description"] == nil || m["input_schema"].(map[string]any)["type"] != "object" {
			t.Errorf("anthropic tool %v", m)
		}
	}
	// MCP: the tools/list result.
	mcp := roundTrip(t, "mcp").(map[string]any)["tools"].([]any)
	for _, x := range mcp {
		m := x.(map[string]any)
		ann := m["annotations"].(map[string]any)
		if m["inputSchema"].(map[string]any)["type"] != "object" || m["outputSchema"] == nil || ann["openWorldHint"] != false {
			t.Errorf("mcp tool %v", m)
		}
		if m["name"] == ReadFile && ann["readOnlyHint"] != true || m["name"] == CreateFile && ann["destructiveHint"] != false {
			t.Errorf("mcp annotations of %s: %v", m["name"], ann)
		}
	}
	if len(oa) != n || len(mcp) != n {
		t.Errorf("formats list %d and %d tools, want %d", len(oa), len(mcp), n)
	}
	if _, err := Definitions("yaml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// A strict-mode model sends every optional field, null when unset: that is read as
// left out.
func TestStrictModeNulls(t *testing.T) {
	a, _ := newAPI(t, map[string]string{"f.txt": "one\ntwo\n"})
	for _, c := range []struct{ tool, args string }{
		{ReadFile, `{"path": "f.txt", "offset": null, "limit": null}`},
		{EditFile, `{"path": "f.txt", "edits": [{"oldText": "one", "newText": "ONE", "replaceAll": null}], "dryRun": null}`},
		{ApplyChanges, `{"changes": [{"path": "f.txt", "edits": [{"oldText": "two", "newText": "TWO", "replaceAll": null}], "create": null, "write": null}]}`},
	} {
		if r := call(a, c.tool, c.args); !r.OK {
			t.Errorf("%s %s: %s", c.tool, c.args, r.Text)
		}
	}
}

// Every tool of every set is defined in each JSON Schema format with a name, a
// description and an object schema; the strict ones pass strict mode's rules.
func TestFormatsOfAllTools(t *testing.T) {
	all, err := DefinitionsFor("json", "all", 0)
	if err != nil {
		t.Fatal(err)
	}
	plain := map[string]map[string]any{}
	b, _ := json.Marshal(all)
	var js []map[string]any
	json.Unmarshal(b, &js)
	for _, m := range js {
		plain[m["name"].(string)] = m["inputSchema"].(map[string]any)
	}
	for _, name := range []string{TextEditor, TextEditorOld, ReplaceInFile, EditFile} {
		if plain[name] == nil {
			t.Errorf("json of all lacks %s", name)
		}
	}
	for _, format := range []string{"mcp", "openai", "anthropic"} {
		d, err := DefinitionsFor(format, "all", 0)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(d)
		var v any
		json.Unmarshal(b, &v)
		list, _ := v.([]any)
		if format == "mcp" {
			list = v.(map[string]any)["tools"].([]any)
		}
		if len(list) != len(plain) {
			t.Errorf("%s lists %d tools, json %d", format, len(list), len(plain))
		}
		for _, x := range list {
			m := x.(map[string]any)
			if format == "openai" {
				m = m["function"].(map[string]any)
			}
			var schema map[string]any
			for _, k := range []string{"inputSchema", "input_schema", "parameters"} {
				if s, ok := m[k].(map[string]any); ok {
					schema = s
				}
			}
			name, _ := m["name"].(string)
			if name == "" || m["description"] == "" || schema["type"] != "object" {
				t.Errorf("%s: %v", format, m)
			}
			if format == "openai" {
				for _, p := range strictProblems(name, schema, plain[name]) {
					t.Error(p)
				}
			}
		}
	}
	// The editor's schema as a runtime reads it: command an enum, view_range integers.
	props := plain[TextEditor]["properties"].(map[string]any)
	if got := fmt.Sprint(props["command"].(map[string]any)["enum"]); got != "[view create str_replace insert]" {
		t.Errorf("command enum %s", got)
	}
	if got := fmt.Sprint(plain[TextEditorOld]["properties"].(map[string]any)["command"].(map[string]any)["enum"]); got != "[view create str_replace insert undo_edit]" {
		t.Errorf("str_replace_editor command enum %s", got)
	}
	if vr := props["view_range"].(map[string]any); vr["type"] != "array" || fmt.Sprint(vr["items"]) != "map[type:integer]" {
		t.Errorf("view_range %v", vr)
	}
}

func TestNativeFormats(t *testing.T) {
	for _, c := range []struct{ format, spec, want string }{
		{FormatAnthropicNative, "anthropic", `[{"type":"text_editor_20250728","name":"str_replace_based_edit_tool","max_characters":64000}]`},
		{FormatAnthropicNative, "", `[{"type":"text_editor_20250728","name":"str_replace_based_edit_tool","max_characters":64000}]`},
		{FormatAnthropicNative, "str_replace_editor,read_file", `[{"type":"text_editor_20250124","name":"str_replace_editor"}]`},
	} {
		d, err := DefinitionsFor(c.format, c.spec, 0)
		if err != nil {
			t.Fatalf("%s %q: %v", c.format, c.spec, err)
		}
		if b, _ := json.Marshal(d); string(b) != c.want {
			t.Errorf("%s %q: %s, want %s", c.format, c.spec, b, c.want)
		}
	}
	d, _ := DefinitionsFor(FormatAnthropicNative, "anthropic", 9000)
	if b, _ := json.Marshal(d); string(b) != `[{"type":"text_editor_20250728","name":"str_replace_based_edit_tool","max_characters":9000}]` {
		t.Errorf("max_characters 9000: %s", b)
	}
	if _, err := DefinitionsFor(FormatAnthropicNative, "native", 0); err == nil {
		t.Error("the native set declared a text editor")
	}
	if _, err := DefinitionsFor(FormatOpenAINative, "search-replace", 0); err == nil {
		t.Error("the search-replace set declared apply_patch")
	}
}
