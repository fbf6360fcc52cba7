package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vfsctl/vfsctl/toolapi"
)

// connect serves a workspace holding files to an in-memory client, as a runtime
// connects to `vfsctl serve`.
func connect(t *testing.T, files map[string]string) (*sdk.ClientSession, string) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := toolapi.Open(dir, toolapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return serve(t, eng), dir
}

// serve serves eng to an in-memory client, as a runtime connects to `vfsctl serve`;
// both ends close with the test.
func serve(t *testing.T, eng *toolapi.Engine) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(eng, Options{}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-runtime", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// The server says who it is, and lists every tool with its input schema, the output
// schema and annotations that say which tools only read.
func TestToolsListed(t *testing.T) {
	cs, _ := connect(t, nil)
	info := cs.InitializeResult().ServerInfo
	if info.Name != "vfsctl" || info.Version != "dev" {
		t.Errorf("server %s %s", info.Name, info.Version)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// What a runtime must be able to rely on, written out here.
	readOnly := map[string]bool{"read_file": true, "list_files": true, "search_files": true, "read_files": true, "file_info": true}
	destructive := map[string]bool{"edit_file": true, "write_file": true, "apply_changes": true, "undo_edit": true, "move_file": true, "delete_file": true}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		a := tl.Annotations
		if a == nil || a.ReadOnlyHint != readOnly[tl.Name] || a.OpenWorldHint == nil || *a.OpenWorldHint ||
			!readOnly[tl.Name] && (a.DestructiveHint == nil || *a.DestructiveHint != destructive[tl.Name]) {
			t.Errorf("%s: annotations %+v", tl.Name, a)
		}
		in, _ := tl.InputSchema.(map[string]any)
		if in["type"] != "object" || in["additionalProperties"] != false || len(in["properties"].(map[string]any)) == 0 {
			t.Errorf("%s: input schema %v", tl.Name, tl.InputSchema)
		}
		out, _ := tl.OutputSchema.(map[string]any)
		req, _ := out["required"].([]any)
		if !reflect.DeepEqual(req, []any{"ok", "kind", "txn"}) {
			t.Errorf("%s: output schema %v", tl.Name, tl.OutputSchema)
		}
		if !strings.Contains(tl.Description, ".") {
			t.Errorf("%s: description %q", tl.Name, tl.Description)
		}
	}
	want := []string{"read_file", "edit_file", "create_file", "write_file", "apply_changes", "undo_edit", "list_files", "search_files",
		"move_file", "delete_file", "create_directory", "read_files", "file_info"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

// structured is a result's structuredContent, as a client decodes it.
func structured(t *testing.T, r *sdk.CallToolResult) map[string]any {
	t.Helper()
	b, _ := json.Marshal(r.StructuredContent)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return m
}

func text(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// A call that succeeds changes the file and says so; its structured output carries
// ok, no kind, and the journal's number for the call.
func TestCallSucceeds(t *testing.T) {
	cs, dir := connect(t, map[string]string{"src/a.go": "package a\n\nconst n = 1\n"})
	r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "edit_file", Arguments: map[string]any{
		"path": "src/a.go", "edits": []any{map[string]any{"oldText": "const n = 1", "newText": "const n = 2"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError || !strings.Contains(text(r), "Edited src/a.go") {
		t.Fatalf("edit: error %v: %s", r.IsError, text(r))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "src/a.go")); string(got) != "package a\n\nconst n = 2\n" {
		t.Errorf("file %q", got)
	}
	s := structured(t, r)
	if s["ok"] != true || s["kind"] != nil || s["txn"] == nil {
		t.Errorf("structured %v", s)
	}
	// The same session reads and undoes: undo_edit finds this connection's change.
	r, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "undo_edit", Arguments: map[string]any{"path": "src/a.go"}})
	if err != nil || r.IsError {
		t.Fatalf("undo: %v %s", err, text(r))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "src/a.go")); string(got) != "package a\n\nconst n = 1\n" {
		t.Errorf("after undo: %q", got)
	}
}

// A refused call is a tool result with isError, the text a model reads, and the
// stable kind in its structured output; nothing is written. An unknown tool is a
// protocol error.
func TestRefusals(t *testing.T) {
	cs, dir := connect(t, map[string]string{"a.txt": "alpha\n"})
	ctx := context.Background()
	cases := []struct {
		args map[string]any
		kind string
		says string
	}{
		{map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "gamma", "newText": "x"}}}, "text_not_found", "a.txt"},
		{map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "alpha", "newText": "x"}}, "force": true}, "invalid_input", `unknown field "force"`},
		{map[string]any{"path": "../out.txt", "edits": []any{map[string]any{"oldText": "a", "newText": "x"}}}, "path_outside_root", "outside"},
	}
	for _, c := range cases {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "edit_file", Arguments: c.args})
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		s := structured(t, r)
		if !r.IsError || s["ok"] != false || s["kind"] != c.kind || !strings.Contains(text(r), c.says) {
			t.Errorf("%v: isError %v, structured %v: %s", c.args, r.IsError, s, text(r))
		}
		if _, ok := s["txn"]; !ok {
			t.Errorf("%v: structured output lacks txn: %v", c.args, s)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "alpha\n" {
		t.Errorf("a refused call wrote: %q", got)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "remove_file", Arguments: map[string]any{"path": "a.txt"}}); err == nil {
		t.Error("an unknown tool was not a protocol error")
	}
}
