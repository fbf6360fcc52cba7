package toolapi

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A new file whose path differs from an existing one only in typography or case
// (app’s.py, APP'S.PY beside app's.py) is refused, naming the file there, and nothing
// is written; the same call sent again unchanged as the session's next call creates
// it (Makefile beside makefile can be meant). Another call in between, or another
// content, is refused again.
func TestNewFileDifferingOnlyInTypographyOrCaseRefusedUntilSentAgain(t *testing.T) {
	files := map[string]string{"app's.py": "x = 1\n", "my-notes.md": "n\n", "Makefile": "all:\n", "src/main.txt": "m\n"}
	e, dir := openWorkspace(t, files)
	if _, err := os.Stat(filepath.Join(dir, "MAKEFILE")); err == nil {
		t.Skip("the filesystem does not tell names apart by case")
	}
	tree := func() (got []string) {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if d.Name() == ".vfsctl" {
				return filepath.SkipDir
			}
			rel, _ := filepath.Rel(dir, p)
			got = append(got, rel)
			return nil
		})
		return got
	}
	gem, err := Open(dir, Options{Tools: "gemini"}) // its write_file makes a missing file
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gem.Close() })
	call := func(tool, path, content string) Result {
		if tool == "gemini write_file" {
			args, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
			return gem.Call(context.Background(), "s", "write_file", args)
		}
		args, _ := json.Marshal(map[string]string{"path": path, "content": content})
		return e.Call(context.Background(), "s", tool, args)
	}
	// write_file makes no file: a missing path is refused as it was.
	if r := call("write_file", "APP'S.PY", "new\n"); r.OK || kindOf(r) != "file_not_found" {
		t.Errorf("write_file APP'S.PY: ok=%v %q, want file_not_found", r.OK, r.Text)
	}
	for _, c := range []struct{ tool, path, there string }{
		{"create_file", "app’s.py", "app's.py"},
		{"create_file", "APP'S.PY", "app's.py"},
		{"create_file", "my—notes.md", "my-notes.md"},
		{"create_file", "makefile", "Makefile"},
		{"gemini write_file", "SRC/Main.txt", "src/main.txt"},
	} {
		before := tree()
		r := call(c.tool, c.path, "new\n")
		if r.OK || kindOf(r) != "file_exists" || !strings.Contains(r.Text, c.there) || !strings.Contains(r.Text, "send this same call again") {
			t.Errorf("%s %s beside %s: ok=%v kind=%q %q, want file_exists naming %s and the resend", c.tool, c.path, c.there, r.OK, kindOf(r), r.Text, c.there)
		}
		if after := tree(); !slices.Equal(before, after) {
			t.Fatalf("%s %s was refused, and the workspace went from %q to %q", c.tool, c.path, before, after)
		}
		// Another call in between: the refusal stands.
		if r := e.Call(context.Background(), "s", "read_file", json.RawMessage(`{"path": "my-notes.md"}`)); !r.OK {
			t.Fatalf("read_file: %s", r.Text)
		}
		if r := call(c.tool, c.path, "new\n"); r.OK || kindOf(r) != "file_exists" {
			t.Errorf("%s %s after another call: ok=%v %q, want refused again", c.tool, c.path, r.OK, r.Text)
		}
		// Another content is another call.
		if r := call(c.tool, c.path, "other\n"); r.OK || kindOf(r) != "file_exists" {
			t.Errorf("%s %s with another content: ok=%v %q, want refused", c.tool, c.path, r.OK, r.Text)
		}
		if r := call(c.tool, c.path, "other\n"); !r.OK {
			t.Errorf("%s %s sent again unchanged: %q, want it created", c.tool, c.path, r.Text)
		}
		fileIs(t, filepath.Join(dir, c.path), "other\n", 0o644)
	}
	for p, c := range files {
		fileIs(t, filepath.Join(dir, p), c, 0o644)
	}
	// A new file the syntax guard refuses too: each refusal gives way in turn.
	if r := call("create_file", "App's.py", "def (\n"); kindOf(r) != "file_exists" {
		t.Errorf("create_file App's.py: %q, want file_exists", r.Text)
	}
	if r := call("create_file", "App's.py", "def (\n"); kindOf(r) != "syntax_error" {
		t.Errorf("create_file App's.py sent again: %q, want syntax_error", r.Text)
	}
	if r := call("create_file", "App's.py", "def (\n"); !r.OK {
		t.Errorf("create_file App's.py sent a third time: %q, want it created", r.Text)
	}
	// A new name that folds to no file there is created at once.
	if r := call("create_file", "apps.py", "y\n"); !r.OK {
		t.Errorf("create_file apps.py: %q", r.Text)
	}
}
