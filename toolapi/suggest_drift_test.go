package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// A path whose quotes, dashes or case drifted from the one file it names gets that
// file suggested, not the advice to create a new one (which would make a
// near-duplicate); when several files match so, none is guessed and all are named.
func TestMissingPathSuggestsFileDifferingInTypographyOrCase(t *testing.T) {
	files := map[string]string{"app's.py": "x = 1\n", "my-notes.md": "n\n", "README.md": "r\n", "Readme.md": "s\n"}
	e, dir := openWorkspace(t, files)
	before, _ := os.ReadDir(dir)
	if len(before) < len(files) {
		t.Skip("the filesystem does not tell names apart by case")
	}
	for _, c := range []struct{ path, want string }{
		{"app’s.py", "Did you mean app's.py?"},
		{"APP'S.PY", "Did you mean app's.py?"},
		{"App‘s.Py", "Did you mean app's.py?"},
		{"my—notes.md", "Did you mean my-notes.md?"},
		{"MY–NOTES.MD", "Did you mean my-notes.md?"},
	} {
		args, _ := json.Marshal(map[string]any{"path": c.path, "edits": []map[string]string{{"oldText": "x = 1", "newText": "x = 2"}}})
		text := refused(t, e, "edit_file", string(args), "file_not_found")
		if !strings.Contains(text, c.want) || strings.Contains(text, "create_file") {
			t.Errorf("edit_file %s: %q, want %q and no advice to create a file", c.path, text, c.want)
		}
	}
	r := e.Call(context.Background(), "s", "read_file", json.RawMessage(`{"path": "readme.md"}`))
	if r.OK || strings.Contains(r.Text, "Did you mean") || strings.Contains(r.Text, "create_file") ||
		!strings.Contains(r.Text, "README.md") || !strings.Contains(r.Text, "Readme.md") {
		t.Errorf("read_file readme.md, with README.md and Readme.md there: %q, want both named and neither guessed", r.Text)
	}
	after, _ := os.ReadDir(dir)
	names := func(es []os.DirEntry) (n []string) {
		for _, e := range es {
			if e.Name() != ".vfsctl" { // the journal's, made by the first call
				n = append(n, e.Name())
			}
		}
		return n
	}
	if !slices.Equal(names(before), names(after)) {
		t.Errorf("the workspace held %q, and after the refused calls %q", names(before), names(after))
	}
	for p, c := range files {
		fileIs(t, dir+"/"+p, c, 0o644)
	}
}
