package toolapi

import (
	"encoding/json"
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

// checkStrict walks a schema as OpenAI's strict mode reads it: every object lists all
// its properties as required and sets additionalProperties false, and no keyword it
// rejects appears.
func checkStrict(t *testing.T, where string, s map[string]any) {
	t.Helper()
	for _, k := range unsupportedInStrict {
		if _, ok := s[k]; ok {
			t.Errorf("%s: keyword %s is not accepted in strict mode", where, k)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		if s["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", where)
		}
		var names, req []string
		for n, p := range props {
			names = append(names, n)
			checkStrict(t, where+"."+n, p.(map[string]any))
		}
		for _, r := range s["required"].([]any) {
			req = append(req, r.(string))
		}
		sort.Strings(names)
		sort.Strings(req)
		if len(names) != len(req) {
			t.Errorf("%s: required %v, properties %v", where, req, names)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		checkStrict(t, where+"[]", items)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			checkStrict(t, where+"|", a.(map[string]any))
		}
	}
}

func TestFormats(t *testing.T) {
	n := len(Tools())
	// OpenAI: [{type: function, function: {name, description, parameters, strict}}].
	oa := roundTrip(t, "openai").([]any)
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
		checkStrict(t, f["name"].(string), p)
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
