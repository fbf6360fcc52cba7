package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The hashline set over MCP: read_file shows anchors, edit_lines takes them back,
// with the hints a client gates calls by; a refusal is a tool error that changes
// nothing.
func TestMCPHashline(t *testing.T) {
	ctx, cs, dir, lt := serveE2E(t, "--tools", "hashline")
	tools := map[string]*sdk.Tool{}
	var names []string
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "create_file,edit_lines,list_files,read_file,search_files,undo_edit,write_file" {
		t.Errorf("tools %s", got)
	}
	if a := tools["read_file"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("read_file hints %+v", a)
	}
	if a := tools["edit_lines"].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("edit_lines hints %+v", a)
	}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: json.RawMessage(`{"path": "app.py"}`)})
	if err != nil || r.IsError {
		t.Fatalf("read: %v %s", err, textOf(r))
	}
	anchors := regexp.MustCompile(`(?m)^(\d+:[0-9a-f]{2})\|`).FindAllStringSubmatch(textOf(r), -1)
	if len(anchors) != 2 {
		t.Fatalf("read shows no anchors: %s", textOf(r))
	}
	r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "edit_lines", Arguments: json.RawMessage(`{"path": "app.py", "edits": [{"op": "replace", "start": "2:00", "lines": ["x = 2"]}]}`)})
	if err != nil || !r.IsError || !strings.Contains(textOf(r), "that line's anchor is "+anchors[1][1]) {
		t.Fatalf("a wrong hash: %v %s", err, textOf(r))
	}
	r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "edit_lines", Arguments: json.RawMessage(`{"path": "app.py", "edits": [{"op": "replace", "start": "` + anchors[1][1] + `", "lines": ["x = 2"]}]}`)})
	if err != nil || r.IsError || !strings.Contains(textOf(r), "|x = 2") {
		t.Fatalf("edit: %v %s", err, textOf(r))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "app.py")); string(got) != "print(\"hi\")\nx = 2\n" {
		t.Errorf("app.py: %q", got)
	}
}
