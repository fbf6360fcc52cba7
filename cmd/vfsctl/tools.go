package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/vfsctl/vfsctl/toolapi"
)

type toolsCmd struct{ format string }

func (c *toolsCmd) Name() string { return "tools" }
func (c *toolsCmd) Summary() string {
	return "print the tool definitions (JSON Schema and descriptions)"
}

const toolsUsage = `Usage: vfsctl tools [--format json|mcp|openai|anthropic]

Prints the tool definitions in the function-calling shape of a runtime, ready to paste
into one that dispatches tool calls itself (and sends them to vfsctl call):
  json       [{name, description, inputSchema}] (the default)
  mcp        the result of MCP's tools/list: schemas, output schema and annotations
  openai     the tools array of OpenAI's APIs: {type: "function", function: {...}},
             strict-mode schemas (optional fields nullable; null means left out)
  anthropic  the tools array of Anthropic's Messages API: {name, description, input_schema}

Example:
  vfsctl tools --format openai | jq '.[].function.name'
`

func (c *toolsCmd) ParseFlags(args []string) error {
	fs := newFlagSet("tools", toolsUsage)
	fs.StringVar(&c.format, "format", "json", "json, mcp, openai or anthropic")
	return fs.parse(args)
}

func (c *toolsCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	defs, err := toolapi.Definitions(c.format)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl tools: %v\n", err)
		return exitUsage
	}
	b, err := json.MarshalIndent(defs, "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s\n", b)
	fmt.Fprintf(stderr, "vfsctl tools: %s\n", toolapi.GuardsActive())
	return exitOK
}
