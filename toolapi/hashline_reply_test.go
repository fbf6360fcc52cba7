package toolapi

import (
	"strings"
	"testing"
)

// An edit that sends no lines is pointed to delete, which removes lines, and the file
// is left as it was.
func TestEditLinesEmptyLinesPointsToDelete(t *testing.T) {
	e, dir := openHashline(t, map[string]string{"f.txt": "x\ny\n"})
	hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
	for _, op := range []string{"replace", "insert_after"} {
		r := hcall(t, e, "s", "edit_lines", `{"path": "f.txt", "edits": [{"op": "`+op+`", "start": "`+anchorFor(1, "x")+`", "lines": []}]}`)
		if r.OK || r.Kind == nil || *r.Kind != "invalid_input" || !strings.Contains(r.Text, "edits[0].lines is empty") || !strings.Contains(r.Text, `"op": "delete"`) {
			t.Errorf("%s with lines []: %v %q", op, r.Kind, r.Text)
		}
	}
	if got := readBack(t, dir, "f.txt"); got != "x\ny\n" {
		t.Errorf("a refused call changed the file: %q", got)
	}
}

// The reply names the lines each edit took as the model named them: deleting the last
// line of a file without a final line break is "line 2 deleted" (its splice starts at
// the break that ends line 1), an insertion says where it went.
func TestEditLinesReplyNamesTheEditsLines(t *testing.T) {
	cases := []struct {
		file, edits, want, after string
	}{
		{"a\nb", `[{"op": "delete", "start": "` + anchorFor(2, "b") + `"}]`, "(line 2 deleted)", "a"},
		{"a\nb\nc\n", `[{"op": "insert_after", "start": "` + anchorFor(1, "a") + `", "lines": ["a2", "a3"]}, {"op": "replace", "start": "` + anchorFor(2, "b") + `", "end": "` + anchorFor(3, "c") + `", "lines": ["z"]}]`,
			"(2 lines added after line 1, lines 2-3 replaced)", "a\na2\na3\nz\n"},
		{"a\nb\n", `[{"op": "insert_before", "start": "` + anchorFor(1, "a") + `", "lines": ["top"]}]`, "(1 line added before line 1)", "top\na\nb\n"},
	}
	for _, c := range cases {
		e, dir := openHashline(t, map[string]string{"f.txt": c.file})
		hcall(t, e, "s", "read_file", `{"path": "f.txt"}`)
		r := hcall(t, e, "s", "edit_lines", `{"path": "f.txt", "edits": `+c.edits+`}`)
		if !r.OK || !strings.HasPrefix(r.Text, "Edited f.txt with ") || !strings.Contains(strings.SplitN(r.Text, "\n", 2)[0], c.want) {
			t.Errorf("%q: reply %q, want %s", c.file, r.Text, c.want)
		}
		if got := readBack(t, dir, "f.txt"); got != c.after {
			t.Errorf("%q: file %q, want %q", c.file, got, c.after)
		}
	}
}
