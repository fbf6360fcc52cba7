package toolapi

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// An empty file read is a file seen whole: every tool that replaces a file whole
// after a read may then fill it, and edit_lines, which has no anchor to name in it,
// says to use write_file.
func TestEmptyFileReadThenWrite(t *testing.T) {
	cases := []struct {
		tools, read, write string
	}{
		{"native", `read_file {"path": "e.txt"}`, `write_file {"path": "e.txt", "content": "c\n"}`},
		{"native", `read_file {"path": "e.txt", "offset": 5, "limit": 1}`, `write_file {"path": "e.txt", "content": "c\n"}`},
		{"gemini", `read_file {"absolute_path": "e.txt"}`, `write_file {"file_path": "e.txt", "content": "c\n"}`},
		{"anthropic", `str_replace_based_edit_tool {"command": "view", "path": "e.txt"}`, `str_replace_based_edit_tool {"command": "create", "path": "e.txt", "file_text": "c\n"}`},
		{"anthropic", `str_replace_based_edit_tool {"command": "view", "path": "e.txt", "view_range": [1, -1]}`, `str_replace_based_edit_tool {"command": "create", "path": "e.txt", "file_text": "c\n"}`},
		{"hashline", `read_file {"path": "e.txt"}`, `write_file {"path": "e.txt", "content": "c\n"}`},
	}
	for _, c := range cases {
		t.Run(c.tools+" "+c.read, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteFile(t, filepath.Join(dir, "e.txt"), "")
			e, err := Open(dir, Options{Tools: c.tools})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			send := func(line string) Result {
				tool, args, _ := strings.Cut(line, " ")
				return hcall(t, e, "s", tool, args)
			}
			// Without a read the write is refused, so the read is what allows it.
			if r := send(c.write); r.OK {
				t.Fatalf("write before any read landed: %s", r.Text)
			}
			if r := send(c.read); !r.OK || !strings.Contains(r.Text, "empty") {
				t.Fatalf("read: %+v", r)
			}
			if r := send(c.write); !r.OK {
				t.Fatalf("write after reading the empty file: %s: %s", kindOf(r), r.Text)
			}
			if got := readBack(t, dir, "e.txt"); got != "c\n" {
				t.Fatalf("e.txt is %q, want %q", got, "c\n")
			}
		})
	}
}

func TestEmptyFileEditLinesSaysWriteFile(t *testing.T) {
	e, dir := openHashline(t, map[string]string{"e.txt": ""})
	hcall(t, e, "s", "read_file", `{"path": "e.txt"}`)
	r := hcall(t, e, "s", "edit_lines", `{"path": "e.txt", "edits": [{"op": "insert_before", "start": "1:00", "lines": ["c"]}]}`)
	if r.OK || kindOf(r) != "invalid_input" || !strings.Contains(r.Text, "e.txt is empty") || !strings.Contains(r.Text, "write_file") {
		t.Fatalf("edit_lines of an empty file: %+v", r)
	}
	if r := hcall(t, e, "s", "write_file", `{"path": "e.txt", "content": "c\n"}`); !r.OK {
		t.Fatalf("write_file after the advice: %s", r.Text)
	}
	if got := readBack(t, dir, "e.txt"); got != "c\n" {
		t.Fatalf("e.txt is %q", got)
	}
}
