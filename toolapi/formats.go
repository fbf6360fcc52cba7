package toolapi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Hints say how a tool touches the workspace, for runtimes that show or gate calls
// (MCP's tool annotations).
type Hints struct {
	ReadOnly    bool // changes nothing
	Destructive bool // may change or replace what is there (create_file only adds)
	Idempotent  bool // calling it again with the same arguments changes nothing more
	OpenWorld   bool // it reaches beyond the workspace (run_command's command may)
}

// HintsFor returns the hints of tool name; a name that is no tool's gets the most
// cautious ones.
func HintsFor(name string) Hints {
	if d := lookupTool(toolTable, name); d != nil {
		return d.needs.hints()
	}
	return Hints{Destructive: true}
}

// OutputSchema is the structured result of every tool: {ok, kind, txn}, and over MCP
// the journal session of the call.
var OutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "ok": {"type": "boolean", "description": "the call succeeded"},
    "kind": {"type": ["string", "null"], "description": "the stable error kind of a refusal, e.g. text_not_found"},
    "txn": {"type": ["integer", "null"], "description": "the call's number in the workspace journal"},
    "session": {"type": ["string", "null"], "description": "the journal session of the call (vfsctl serve), which vfsctl rewind --session takes"}
  },
  "required": ["ok", "kind", "txn"]
}`)

// Formats lists the shapes Definitions can produce: the JSON Schema ones, then the
// vendors' native declarations.
var Formats = []string{"json", "mcp", "openai", "anthropic", "gemini", "anthropic-native", "openai-native"}

// The vendors' native declarations: a tool their API defines, declared by its type.
const (
	FormatAnthropicNative = "anthropic-native"
	FormatOpenAINative    = "openai-native"
)

// Definitions returns the tool definitions in the function-calling shape of one
// ecosystem, ready to marshal:
//   - json: [{name, description, inputSchema}];
//   - mcp: the result of tools/list, {tools: [{name, description, inputSchema,
//     outputSchema, annotations}]};
//   - openai: the tools array of the Chat Completions and Responses APIs, each
//     {type: "function", function: {name, description, parameters, strict: true}}
//     with a schema strict mode accepts (every property required, optional ones
//     nullable, no additional properties, no keywords strict mode rejects);
//   - anthropic: the tools array of the Messages API, [{name, description,
//     input_schema}];
//   - gemini: the tools array of the Gemini API, [{functionDeclarations: [{name,
//     description, parameters}]}], parameters in its Schema (upper-case types).
//
// The native formats declare the tools whose vendor defines them (see
// DefinitionsFor); the native tool set has none.
func Definitions(format string) (any, error) { return definitions(format, nativeTools()) }

// DefinitionsFor returns the definitions of the tools a tool-set spec chooses (as
// Options.Tools), in format's shape. The native formats are the vendors' own
// declarations of the chosen tools that have one:
//   - anthropic-native: the Messages API's text editor, [{"type":
//     "text_editor_20250728", "name": "str_replace_based_edit_tool",
//     "max_characters": N}] (or text_editor_20250124 for str_replace_editor; one text
//     editor, the newest chosen); maxChars 0 is DefaultMaxCharacters;
//   - openai-native: the Responses API's built-in tool, [{"type": "apply_patch"}].
//
// For them, spec "" means the vendor's set (anthropic, codex) instead of native.
func DefinitionsFor(format, spec string, maxChars int) (any, error) {
	if strings.TrimSpace(spec) == "" {
		switch format {
		case FormatAnthropicNative:
			spec = setAnthropic
		case FormatOpenAINative:
			spec = setCodex
		}
	}
	defs, err := selectTools(spec)
	if err != nil {
		return nil, err
	}
	if maxChars <= 0 {
		maxChars = DefaultMaxCharacters
	}
	switch format {
	case FormatAnthropicNative:
		return anthropicNative(defs, spec, maxChars)
	case FormatOpenAINative:
		return openaiNative(defs, spec)
	}
	return definitions(format, defs)
}

// anthropicNative declares the text editor of defs; the API takes one.
func anthropicNative(defs []*toolDef, spec string, maxChars int) (any, error) {
	type editor struct {
		Type          string `json:"type"`
		Name          string `json:"name"`
		MaxCharacters int    `json:"max_characters,omitempty"`
	}
	switch {
	case lookupTool(defs, TextEditor) != nil:
		return []editor{{"text_editor_20250728", TextEditor, maxChars}}, nil
	case lookupTool(defs, TextEditorOld) != nil:
		return []editor{{Type: "text_editor_20250124", Name: TextEditorOld}}, nil
	}
	return nil, fmt.Errorf("the tools %q have no Anthropic native declaration: choose %s or %s (or the set %s)", spec, TextEditor, TextEditorOld, setAnthropic)
}

// openaiNative declares the Responses API's apply_patch tool, when defs have it.
func openaiNative(defs []*toolDef, spec string) (any, error) {
	if lookupTool(defs, "apply_patch") == nil {
		return nil, fmt.Errorf("the tools %q have no OpenAI native declaration: choose apply_patch (or the set %s)", spec, setCodex)
	}
	return []map[string]string{{"type": "apply_patch"}}, nil
}

// definitions returns the definitions of defs in format's shape.
func definitions(format string, defs []*toolDef) (any, error) {
	switch format {
	case "json":
		return definitionsOf(defs), nil
	case "mcp":
		return mcpDefinitions(defs), nil
	case "openai":
		return openaiDefinitions(defs), nil
	case "anthropic":
		return anthropicDefinitions(defs), nil
	case "gemini":
		return geminiDefinitions(defs), nil
	case FormatAnthropicNative:
		return anthropicNative(defs, "native", DefaultMaxCharacters)
	case FormatOpenAINative:
		return openaiNative(defs, "native")
	}
	return nil, fmt.Errorf("unknown format %q: use one of %v", format, Formats)
}

// mcpDefinitions is the result of MCP's tools/list.
func mcpDefinitions(defs []*toolDef) any {
	type ann struct {
		ReadOnlyHint    bool `json:"readOnlyHint"`
		DestructiveHint bool `json:"destructiveHint"`
		IdempotentHint  bool `json:"idempotentHint"`
		OpenWorldHint   bool `json:"openWorldHint"`
	}
	type mcpTool struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  ann             `json:"annotations"`
	}
	out := struct {
		Tools []mcpTool `json:"tools"`
	}{}
	for _, d := range defs {
		h := d.needs.hints()
		out.Tools = append(out.Tools, mcpTool{d.name, d.desc, inputSchema(d, false), OutputSchema,
			ann{h.ReadOnly, h.Destructive, h.Idempotent, h.OpenWorld}})
	}
	return out
}

// openaiDefinitions is the tools array of OpenAI's APIs, with strict-mode schemas.
// A schema goes out as a map, so that its keys print sorted, as they always have.
func openaiDefinitions(defs []*toolDef) any {
	type fn struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
		Strict      bool           `json:"strict"`
	}
	type tool struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	var out []tool
	for _, d := range defs {
		var params map[string]any
		json.Unmarshal(inputSchema(d, true), &params) // generated: it is valid JSON
		out = append(out, tool{"function", fn{d.name, d.desc, params, true}})
	}
	return out
}

// geminiDefinitions is the tools array of the Gemini API's generateContent request:
// one Tool holding a functionDeclarations entry per tool, each {name, description,
// parameters}, parameters in the API's Schema (its OpenAPI subset: upper-case types,
// no additionalProperties).
func geminiDefinitions(defs []*toolDef) any {
	type decl struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	}
	type tool struct {
		FunctionDeclarations []decl `json:"functionDeclarations"`
	}
	var t tool
	for _, d := range defs {
		var params map[string]any
		json.Unmarshal(inputSchema(d, false), &params) // generated: it is valid JSON
		t.FunctionDeclarations = append(t.FunctionDeclarations, decl{d.name, d.desc, geminiSchema(params)})
	}
	return []tool{t}
}

// geminiSchema rewrites a JSON Schema the table generates into the Gemini API's
// Schema, in place.
func geminiSchema(s map[string]any) map[string]any {
	delete(s, "additionalProperties")
	if t, ok := s["type"].(string); ok {
		s["type"] = strings.ToUpper(t)
	}
	if p, ok := s["properties"].(map[string]any); ok {
		for _, v := range p {
			geminiSchema(v.(map[string]any))
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		geminiSchema(it)
	}
	return s
}

// anthropicDefinitions is the tools array of Anthropic's Messages API.
func anthropicDefinitions(defs []*toolDef) any {
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	var out []tool
	for _, d := range defs {
		out = append(out, tool{d.name, d.desc, inputSchema(d, false)})
	}
	return out
}
