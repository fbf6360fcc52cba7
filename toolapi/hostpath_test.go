package toolapi_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/toolapi"
)

// No reply shows a path of the host: an undo_edit of a file that became a folder, or
// a FIFO, is not_a_file, said in the workspace's own terms.
func TestRepliesShowNoHostPath(t *testing.T) {
	eng, ws := guardEngine(t, "", map[string]string{"keep.txt": "k\n"})
	for _, name := range []string{"a.txt", "b.txt"} {
		if r := call(t, eng, "create_file", map[string]any{"path": name, "content": "one\n"}); !r.OK {
			t.Fatal(r.Text)
		}
	}
	os.Remove(filepath.Join(ws, "a.txt"))
	os.Mkdir(filepath.Join(ws, "a.txt"), 0o755)
	testutil.WriteFile(t, filepath.Join(ws, "a.txt", "inner"), "x\n")
	os.Remove(filepath.Join(ws, "b.txt"))
	if err := mkfifo(filepath.Join(ws, "b.txt")); err != nil {
		t.Skip(err)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		r := call(t, eng, "undo_edit", map[string]any{"path": name})
		if r.OK {
			t.Errorf("undo_edit of %s: %s", name, r.Text)
			continue
		}
		if *r.Kind != "not_a_file" {
			t.Errorf("undo_edit of %s: kind %s, want not_a_file", name, *r.Kind)
		}
		if strings.Contains(r.Text, ws) || strings.Contains(r.Text, os.TempDir()) {
			t.Errorf("undo_edit of %s shows a host path: %s", name, r.Text)
		}
		t.Logf("%s: %s: %s", name, *r.Kind, r.Text)
	}
}

// A symlink that points outside the workspace is refused without naming where it
// points: a model that could plant links would otherwise map the host's folders.
func TestSymlinkOutsideIsNotNamed(t *testing.T) {
	winetest.NeedSymlinks(t)
	eng, ws := guardEngine(t, "", map[string]string{"keep.txt": "k\n"})
	outside := filepath.Join(t.TempDir(), "secret-place", "s.txt")
	testutil.WriteFile(t, outside, "s\n")
	if err := os.Symlink(outside, filepath.Join(ws, "l.txt")); err != nil {
		t.Skip(err)
	}
	for _, r := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "l.txt"}},
		{"edit_file", edit("l.txt", "s", "S")},
	} {
		res := call(t, eng, r.tool, r.args)
		if res.OK || *res.Kind != "path_outside_root" {
			t.Errorf("%s: %+v", r.tool, res)
		}
		if strings.Contains(res.Text, "secret-place") || strings.Contains(res.Text, os.TempDir()) {
			t.Errorf("%s names where the link points: %s", r.tool, res.Text)
		}
	}
}

// An undo of a file that is a symlink now says so: it said "a folder in the path is a
// symlink now" when no folder was.
func TestUndoOfAFileSwappedForASymlink(t *testing.T) {
	winetest.NeedSymlinks(t)
	eng, ws := guardEngine(t, "", map[string]string{"a.txt": "one\n"})
	if r := call(t, eng, "edit_file", edit("a.txt", "one", "two")); !r.OK {
		t.Fatal(r.Text)
	}
	outside := filepath.Join(t.TempDir(), "o.txt")
	testutil.WriteFile(t, outside, "outside\n")
	os.Remove(filepath.Join(ws, "a.txt"))
	if err := os.Symlink(outside, filepath.Join(ws, "a.txt")); err != nil {
		t.Skip(err)
	}
	rep := eng.Revert(context.Background(), toolapi.UndoRequest{})
	if rep.OK || rep.Kind != "not_a_file" || !strings.Contains(rep.Text, "a.txt is a symlink now") || strings.Contains(rep.Text, "folder") {
		t.Errorf("undo: %+v", rep)
	}
	if got := testutil.ReadFile(t, outside); got != "outside\n" {
		t.Errorf("the file outside was written: %q", got)
	}
}

// A path sent absolute, inside the workspace, is named from the root in every reply
// and diff header, as the journal names it: `--- a//repo/h.txt` is a header git
// reads as an absolute path, and the workspace's place on the host is no business of
// the reply.
func TestAbsolutePathsAreNamedFromTheRoot(t *testing.T) {
	ws := testutil.Workspace(t, map[string]string{"d/h.txt": "0\n"})
	eng, err := toolapi.Open(ws, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	abs := filepath.ToSlash(filepath.Join(ws, "d", "h.txt"))
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"edit_file", edit(abs, "0", "1")},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: " + abs + "\n@@\n-1\n+2\n*** End Patch"}},
		{"apply_diff", map[string]any{"diff": "--- a/" + abs + "\n+++ b/" + abs + "\n@@ -1 +1 @@\n-2\n+3\n"}},
		{"replace_in_file", map[string]any{"path": abs, "diff": "<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE\n"}},
		{"apply_changes", map[string]any{"changes": []any{edit(abs, "4", "5")}}},
		{"str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": abs, "old_str": "5", "new_str": "6"}},
	}
	for i, c := range calls {
		r := call(t, eng, c.tool, c.args)
		if !r.OK {
			t.Fatalf("%s: %s", c.tool, r.Text)
		}
		if strings.Contains(r.Text, ws) || strings.Contains(r.Text, "a//") {
			t.Errorf("%s names the file by its host path: %s", c.tool, r.Text)
		}
		if !strings.Contains(r.Text, "--- a/d/h.txt\n+++ b/d/h.txt\n") {
			t.Errorf("%s: no diff header naming d/h.txt from the root: %s", c.tool, r.Text)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "d", "h.txt")); string(b) != fmt.Sprintf("%d\n", i+1) {
			t.Errorf("after %s d/h.txt holds %q, want %q", c.tool, b, fmt.Sprintf("%d\n", i+1))
		}
	}
}
