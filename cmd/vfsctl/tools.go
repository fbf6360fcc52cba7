package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/vfsctl/vfsctl/toolapi"
)

type toolsCmd struct{ format, tools string }

func (c *toolsCmd) Name() string { return "tools" }
func (c *toolsCmd) Summary() string {
	return "print the tool definitions (JSON Schema and descriptions)"
}

const toolsUsage = `Usage: vfsctl tools [--format FORMAT] [--tools SET]

Prints the tool definitions in the function-calling shape of a runtime, ready to paste
into one that dispatches tool calls itself (and sends them to vfsctl call):
  json              [{name, description, inputSchema}] (the default)
  mcp               the result of MCP's tools/list: schemas, output schema and annotations
  openai            the tools array of OpenAI's APIs: {type: "function", function: {...}},
                    strict-mode schemas (optional fields nullable; null means left out)
  anthropic         the tools array of Anthropic's Messages API: {name, description, input_schema}
  gemini            the tools array of the Gemini API: [{functionDeclarations: [{name, description,
                    parameters}]}], parameters in its Schema (upper-case types)
  anthropic-native  the text editor tool as the Messages API declares it:
                    {type: "text_editor_20250728", name: "str_replace_based_edit_tool", max_characters}
  openai-native     the Responses API's built-in tool: {type: "apply_patch"}

--tools chooses the tools, as for vfsctl call and serve: native (the default), codex,
anthropic, search-replace, gemini, hashline, udiff, shell (run_command, which runs
commands: only had by naming it, e.g. native,shell), all (every file tool), or a
comma-separated list of tool and set names. For the native formats it defaults to the
vendor's set (anthropic, codex). vfsctl version names the guards this build runs.

Examples:
  vfsctl tools --format openai | jq '.[].function.name'
  vfsctl tools --tools anthropic --format anthropic-native
  vfsctl tools --tools gemini --format gemini
`

func (c *toolsCmd) ParseFlags(args []string) error {
	fs := newFlagSet("tools", toolsUsage)
	fs.StringVar(&c.format, "format", "json", "json, mcp, openai, anthropic, gemini, anthropic-native or openai-native")
	fs.StringVar(&c.tools, "tools", "", "the tools to define: native, codex, anthropic, search-replace, gemini, hashline, udiff, shell, all, or a comma-separated list (default native; for a native format, the vendor's set)")
	return fs.parse(args)
}

func (c *toolsCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	defs, err := toolapi.DefinitionsFor(c.format, c.tools, 0)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl tools: %v\n", err)
		return exitUsage
	}
	// Descriptions quote code: < and & as they are, not as \u003c and \u0026.
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(defs); err != nil {
		fmt.Fprintf(stderr, "vfsctl tools: %v\n", err)
		return exitRefused
	}
	return exitOK
}
