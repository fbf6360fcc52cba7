package toolapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder sent with a trailing slash ("src/", as a shell completes it) is the folder
// where a tool takes folders, and replies name it clean; a file sent with one is
// refused, saying which path to send; a move onto a folder that exists says which
// destination moves the file into it.
func TestFolderPathsWithATrailingSlash(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"src/a.txt": "a\n", "b.txt": "b\n"})
	at := func(p string) string { return filepath.Join(dir, p) }
	if r := mustCall(t, e, "move_file", `{"source": "src/", "destination": "pkg/"}`); strings.Contains(r, "//") {
		t.Errorf("move_file reply: %s", r)
	}
	if b, err := os.ReadFile(at("pkg/a.txt")); err != nil || string(b) != "a\n" {
		t.Fatalf("pkg/a.txt after the move: %q, %v", b, err)
	}
	gone(t, at("src"))
	if r := mustCall(t, e, "create_directory", `{"path": "nd3/"}`); r != "Made the folder nd3/." {
		t.Errorf("create_directory nd3/: %s", r)
	}
	if r := mustCall(t, e, "create_directory", `{"path": "./nd4"}`); r != "Made the folder nd4/." {
		t.Errorf("create_directory ./nd4: %s", r)
	}
	mustCall(t, e, "undo_edit", `{"path": "nd4/"}`)
	gone(t, at("nd4"))
	mustCall(t, e, "delete_file", `{"path": "nd3/"}`)
	gone(t, at("nd3"))

	r := call(e.api, "move_file", `{"source": "b.txt", "destination": "pkg"}`)
	if r.OK || kindOf(r) != "file_exists" || !strings.Contains(r.Text, "send destination pkg/b.txt") || strings.Contains(r.Text, "delete_file") {
		t.Errorf("move_file onto a folder: %s %s", kindOf(r), r.Text)
	}
	for _, c := range []struct{ tool, args string }{
		{"move_file", `{"source": "b.txt/", "destination": "c.txt"}`},
		{"delete_file", `{"path": "b.txt/"}`},
		{"edit_file", `{"path": "b.txt/", "edits": [{"oldText": "b", "newText": "c"}]}`},
	} {
		r := call(e.api, c.tool, c.args)
		if r.OK || !strings.Contains(r.Text, "b.txt/ ends with a slash") {
			t.Errorf("%s %s: %s %s", c.tool, c.args, kindOf(r), r.Text)
		}
	}
	if b, err := os.ReadFile(at("b.txt")); err != nil || string(b) != "b\n" {
		t.Errorf("b.txt after the refusals: %q, %v", b, err)
	}
}
