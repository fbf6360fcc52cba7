package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/vfsctl/vfsctl/toolapi"
)

type toolsCmd struct{}

func (c *toolsCmd) Name() string { return "tools" }
func (c *toolsCmd) Summary() string {
	return "print the tool definitions (JSON Schema and descriptions)"
}

const toolsUsage = `Usage: vfsctl tools

Prints the definitions of the tools (name, description, inputSchema) as a JSON array,
ready to hand to a model or an agent runtime.

Example:
  vfsctl tools | jq '.[].name'
`

func (c *toolsCmd) ParseFlags(args []string) error {
	return newFlagSet("tools", toolsUsage).parse(args)
}

func (c *toolsCmd) Run(_ io.Reader, stdout, stderr io.Writer) int {
	b, err := json.MarshalIndent(toolapi.Tools(), "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return exitOK
}
