package toolapi

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Hints say how a tool touches the workspace, for runtimes that show or gate calls
// (MCP's tool annotations).
type Hints struct {
	ReadOnly    bool // changes nothing
	Destructive bool // may change or replace what is there (create_file only adds)
	Idempotent  bool // calling it again with the same arguments changes nothing more
}

// HintsFor returns the hints of tool name.
func HintsFor(name string) Hints {
	switch name {
	case ReadFile, ListFiles, SearchFiles:
		return Hints{ReadOnly: true, Idempotent: true}
	case CreateFile:
		return Hints{}
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
func Definitions(format string) (any, error) {
	tools := Tools()
	switch format {
	case "json":
		return tools, nil
	case "mcp":
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
		for _, t := range tools {
			h := HintsFor(t.Name)
			out.Tools = append(out.Tools, mcpTool{t.Name, t.Description, t.InputSchema, OutputSchema,
				ann{h.ReadOnly, h.Destructive, h.Idempotent, false}})
		}
		return out, nil
	case "openai":
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
		for _, t := range tools {
			var schema map[string]any
			if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
				return nil, err
			}
			out = append(out, tool{"function", fn{t.Name, t.Description, strictSchema(schema), true}})
		}
		return out, nil
	case "anthropic":
		type tool struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		var out []tool
		for _, t := range tools {
			out = append(out, tool{t.Name, t.Description, t.InputSchema})
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown format %q: use one of %v", format, Formats)
}

// unsupportedInStrict are keywords OpenAI's strict mode rejects; the decoder checks
// what they said.
var unsupportedInStrict = []string{"minLength", "maxLength", "pattern", "format", "minimum", "maximum",
	"multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties"}

// strictSchema rewrites a JSON Schema for OpenAI's strict mode: every object lists all
// its properties as required and allows no others, a property that was optional may
// be null instead (the decoder reads null as left out), and rejected keywords go.
func strictSchema(s map[string]any) map[string]any {
	for _, k := range unsupportedInStrict {
		delete(s, k)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				required[r.(string)] = true
			}
		}
		var all []string
		for name, p := range props {
			ps := strictSchema(p.(map[string]any))
			if !required[name] {
				switch t := ps["type"].(type) {
				case string:
					ps["type"] = []any{t, "null"}
				case nil:
					ps = map[string]any{"anyOf": []any{ps, map[string]any{"type": "null"}}}
				}
			}
			props[name] = ps
			all = append(all, name)
		}
		sort.Strings(all)
		req := make([]any, len(all))
		for i, n := range all {
			req[i] = n
		}
		s["required"] = req
		s["additionalProperties"] = false
	}
	if items, ok := s["items"].(map[string]any); ok {
		s["items"] = strictSchema(items)
	}
	return s
}
