package toolapi

import (
	"encoding/json"
	"fmt"
)

// Hints say how a tool touches the workspace, for runtimes that show or gate calls
// (MCP's tool annotations).
type Hints struct {
	ReadOnly    bool // changes nothing
	Destructive bool // may change or replace what is there (create_file only adds)
	Idempotent  bool // calling it again with the same arguments changes nothing more
}

// HintsFor returns the hints of tool name; a name that is no tool's gets the most
// cautious ones.
func HintsFor(name string) Hints {
	if d := lookupTool(toolTable, name); d != nil {
		return d.needs.hints()
	}
	return Hints{Destructive: true}
}

// OutputSchema is the structured result of every tool: {ok, kind, txn}.
var OutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "ok": {"type": "boolean", "description": "the call succeeded"},
    "kind": {"type": ["string", "null"], "description": "the stable error kind of a refusal, e.g. text_not_found"},
    "txn": {"type": ["integer", "null"], "description": "the call's number in the workspace journal"}
  },
  "required": ["ok", "kind", "txn"]
}`)

// Formats lists the shapes Definitions can produce.
var Formats = []string{"json", "mcp", "openai", "anthropic"}

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
//     input_schema}].
func Definitions(format string) (any, error) { return definitions(format, nativeTools()) }

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
			ann{h.ReadOnly, h.Destructive, h.Idempotent, false}})
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
