package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Arguments too large to keep inline in a record are kept as a blob; export writes
// them as the object they are all the same.
func TestExportLargeArgs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	big := strings.Repeat("x", 40<<10)
	args, _ := json.Marshal(map[string]any{"path": "a.txt", "edits": []map[string]string{{"oldText": "one", "newText": big}}})
	call, _ := json.Marshal(map[string]json.RawMessage{"tool": json.RawMessage(`"edit_file"`), "args": args})
	var out, errb bytes.Buffer
	if code := run([]string{"call", "--root", dir}, bytes.NewReader(call), &out, &errb); code != exitOK {
		t.Fatalf("call: exit %d: %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run([]string{"export", "--root", dir}, nil, &out, &errb); code != exitOK {
		t.Fatalf("export: exit %d: %s", code, errb.String())
	}
	var line struct {
		Args struct {
			Path  string
			Edits []struct{ NewText string }
		}
		ArgsRaw *string `json:"args_raw"`
	}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line.Args.Path != "a.txt" || len(line.Args.Edits) != 1 || line.Args.Edits[0].NewText != big || line.ArgsRaw != nil {
		t.Errorf("export of a call with %d bytes of arguments: args.path %q, %d edits, args_raw %v; want the object as sent", len(args), line.Args.Path, len(line.Args.Edits), line.ArgsRaw)
	}
}
