package toolapi

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// A backslash in a name a tool would make is a Windows path a model sent: outside
// Windows it would make one file named `sub\x.txt` at the root. Every tool that makes
// a name refuses it, saying to use /, and leaves the workspace as it was; names with a
// backslash already on disk stay usable.
func TestBackslashInNewName(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a backslash separates folders on Windows")
	}
	cases := []struct{ tools, tool, args string }{
		{"all", "create_file", `{"path": "sub\\x.txt", "content": "x\n"}`},
		{"all", "create_file", `{"path": "a\\b/x.txt", "content": "x\n"}`},
		{"all", "apply_changes", `{"changes": [{"path": "sub\\x.txt", "create": "x\n"}]}`},
		{"all", "move_file", `{"source": "f.txt", "destination": "sub\\f.txt"}`},
		{"all", "move_file", `{"source": "d", "destination": "e\\d"}`},
		{"all", "create_directory", `{"path": "sub\\pkg"}`},
		{"all", "apply_patch", `{"input": "*** Begin Patch\n*** Add File: sub\\x.txt\n+x\n*** End Patch"}`},
		{"all", "apply_diff", `{"diff": "--- /dev/null\n+++ b/sub\\x.txt\n@@ -0,0 +1 @@\n+x\n"}`},
		{"all", "str_replace_based_edit_tool", `{"command": "create", "path": "sub\\x.txt", "file_text": "x\n"}`},
		{"all", "apply_patch", `{"input": "*** Begin Patch\n*** Update File: f.txt\n*** Move to: sub\\b.txt\n@@\n-f\n+F\n*** End Patch"}`},
		{"all", "apply_diff", `{"diff": "diff --git a/f.txt b/sub\\d.txt\nsimilarity index 100%\nrename from f.txt\nrename to sub\\d.txt\n"}`},
		{"gemini", "write_file", `{"file_path": "sub\\x.txt", "content": "x\n"}`},
		{"gemini", "replace", `{"file_path": "sub\\x.txt", "old_string": "", "new_string": "x\n"}`},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteFile(t, filepath.Join(dir, "f.txt"), "f\n")
			testutil.WriteFile(t, filepath.Join(dir, "d", "g.txt"), "g\n")
			e, err := Open(dir, Options{Tools: c.tools})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r := hcall(t, e, "s", c.tool, c.args)
			if r.OK || kindOf(r) != "invalid_input" || !strings.Contains(r.Text, "Use / between folders: ") {
				t.Fatalf("got %s: %s", kindOf(r), r.Text)
			}
			if got := names(t, dir); got != ".vfsctl d d/g.txt f.txt" {
				t.Fatalf("the workspace changed: %s", got)
			}
		})
	}
}

// Names with a backslash that are already there are the user's: they are edited,
// moved out of, and a folder holding one moves with it.
func TestBackslashInExistingName(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a backslash separates folders on Windows")
	}
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, `a\b.txt`), "a\n")
	testutil.WriteFile(t, filepath.Join(dir, "d", `x\y.txt`), "x\n")
	e, err := Open(dir, Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range [][2]string{
		{"edit_file", `{"path": "a\\b.txt", "edits": [{"oldText": "a", "newText": "b"}]}`},
		{"move_file", `{"source": "a\\b.txt", "destination": "ab.txt"}`},
		{"move_file", `{"source": "d", "destination": "e"}`},
	} {
		if r := hcall(t, e, "s", c[0], c[1]); !r.OK {
			t.Fatalf("%s %s: %s", c[0], c[1], r.Text)
		}
	}
	if got := names(t, dir); got != `.vfsctl ab.txt e e/x\y.txt` {
		t.Fatalf("workspace: %s", got)
	}
}

// names lists the workspace's paths (the journal's folder not entered), sorted.
func names(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		if d.IsDir() && d.Name() == ".vfsctl" {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}
