package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vfsctl/vfsctl/toolapi"
)

// A server opened with a tool set serves exactly those tools, each with its schema,
// and runs the dialect tools like the native ones.
func TestServesTheChosenTools(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.py"), []byte("x = 1\ny = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := toolapi.Open(dir, toolapi.Options{Tools: "anthropic,replace_in_file"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	cs := serve(t, eng)
	ctx := context.Background()

	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		in, _ := tl.InputSchema.(map[string]any)
		if in["type"] != "object" || len(in["properties"].(map[string]any)) == 0 {
			t.Errorf("%s: input schema %v", tl.Name, tl.InputSchema)
		}
		if tl.Name == toolapi.TextEditor && (tl.Annotations == nil || tl.Annotations.ReadOnlyHint) {
			t.Errorf("the text editor is annotated read-only: %+v", tl.Annotations)
		}
	}
	want := []string{"read_file", "list_files", "search_files", "str_replace_based_edit_tool", "str_replace_editor", "replace_in_file"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: toolapi.TextEditor, Arguments: map[string]any{
		"command": "view", "path": filepath.Join(dir, "a.py"), "view_range": []int{2, -1}}})
	if err != nil || r.IsError || text(r) != "     2\ty = 2\n(lines 2-2 of 2)\n" {
		t.Fatalf("view: %v %q", err, text(r))
	}
	r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: toolapi.ReplaceInFile, Arguments: map[string]any{
		"path": "a.py", "diff": "<<<<<<< SEARCH\ny = 2\n=======\ny = 3\n>>>>>>> REPLACE\n"}})
	if err != nil || r.IsError {
		t.Fatalf("replace_in_file: %v %q", err, text(r))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.py")); string(b) != "x = 1\ny = 3\n" {
		t.Fatalf("disk %q", b)
	}
	// A tool outside the set is not served.
	r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: toolapi.EditFile, Arguments: map[string]any{"path": "a.py"}})
	if err == nil && !r.IsError {
		t.Fatalf("edit_file was served: %q", text(r))
	}
}

// The instructions a server sends speak only of the tools it serves: a codex or
// anthropic server never points the model to edit_file or undo_edit, which it
// would refuse as unknown.
func TestInstructionsNameOnlyServedTools(t *testing.T) {
	mentioned := []string{"read_file", "write_file", "edit_file", "undo_edit", "apply_patch", "replace_in_file", "str_replace"}
	for _, set := range []string{"native", "codex", "anthropic", "search-replace", "str_replace_based_edit_tool"} {
		eng, err := toolapi.Open(t.TempDir(), toolapi.Options{Tools: set})
		if err != nil {
			t.Fatal(err)
		}
		cs := serve(t, eng)
		served := map[string]bool{}
		for _, tl := range eng.Tools() {
			served[tl.Name] = true
		}
		text := cs.InitializeResult().Instructions
		for _, name := range mentioned {
			if !strings.Contains(text, name) {
				continue
			}
			ok := served[name]
			switch name {
			case "str_replace": // a command of the text editor tools
				ok = served[toolapi.TextEditor] || served[toolapi.TextEditorOld]
			case "undo_edit": // a tool of its own, or a command of the older text editor
				ok = ok || served[toolapi.TextEditorOld]
			}
			if !ok {
				t.Errorf("--tools %s: the instructions speak of %s, which is not served: %q", set, name, text)
			}
		}
		if !strings.Contains(text, "journaled") {
			t.Errorf("--tools %s: the instructions no longer say that changes are journaled: %q", set, text)
		}
		cs.Close()
		eng.Close()
	}
}
