package toolapi_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A call whose only change is curly quotes where the Python code has plain ones, the
// guard writes plain again: the file would stay as it is. Through every dialect it
// was answered as an edit made ("Edited", "Replaced"), ok, with nothing changed. It is
// refused no_change, naming the line, in the tool's words, and the file is untouched;
// with another change beside it, that change is made and the reply says the quotes
// were turned back.
func TestTypographyTurnedBackIsNoChangeInEveryDialect(t *testing.T) {
	py := "def f():\n    sep = '#'\n    return sep\n"
	ws := testutil.Workspace(t, map[string]string{"f.py": py})
	eng, err := toolapi.Open(ws, toolapi.Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	call(t, eng, "read_file", map[string]any{"path": "f.py"})
	if r := call(t, eng, "edit_file", edit("f.py", "    sep = '#'", "    sep = '#'\n    (")); r.OK {
		t.Skip("f.py is not guarded in this build")
	}
	cases := []struct {
		tool string
		args any
	}{
		{"edit_file", edit("f.py", "    sep = '#'", "    sep = ‘#’")},
		{"str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "f.py", "old_str": "    sep = '#'", "new_str": "    sep = ‘#’"}},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: f.py\n@@\n def f():\n-    sep = '#'\n+    sep = ‘#’\n     return sep\n*** End Patch"}},
		{"replace_in_file", map[string]any{"path": "f.py", "diff": "------- SEARCH\n    sep = '#'\n=======\n    sep = ‘#’\n+++++++ REPLACE\n"}},
	}
	for _, c := range cases {
		r := call(t, eng, c.tool, c.args)
		if r.OK || r.Kind == nil || *r.Kind != "no_change" {
			t.Errorf("%s: want no_change, got %+v", c.tool, r)
			continue
		}
		if !strings.Contains(r.Text, "at line 2") || !strings.Contains(r.Text, "'‘' and '’'") || c.tool != "edit_file" && strings.Contains(r.Text, "edits[") {
			t.Errorf("%s: the refusal does not name the quotes and line 2 in the tool's words:\n%s", c.tool, r.Text)
		}
	}
	if got := testutil.ReadFile(t, filepath.Join(ws, "f.py")); got != py {
		t.Fatalf("the file changed: %q", got)
	}

	r := call(t, eng, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: f.py\n@@\n def f():\n-    sep = '#'\n+    sep = ‘#’\n@@\n-    return sep\n+    return sep * 2\n*** End Patch"})
	if !r.OK || !strings.Contains(r.Text, "turned back") || !strings.Contains(r.Text, "at line 2") {
		t.Errorf("apply_patch with another hunk: want it made, saying the quotes at line 2 were turned back; got %+v", r)
	}
	if got, want := testutil.ReadFile(t, filepath.Join(ws, "f.py")), strings.Replace(py, "return sep\n", "return sep * 2\n", 1); got != want {
		t.Errorf("f.py is %q, want %q", got, want)
	}
}
