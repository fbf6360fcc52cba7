//go:build !windows

package toolapi

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// create_file over a named pipe names it as one and says the file tools leave it
// alone: edit_file and write_file refuse it too, so advice to use them is a circle.
func TestCreateOverFIFONamesIt(t *testing.T) {
	e, dir := openWorkspace(t, nil)
	if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	text := refused(t, e, "create_file", `{"path": "p", "content": "x"}`, "file_exists")
	for _, w := range []string{"p exists and is a named pipe", "do not read, change or replace it"} {
		if !strings.Contains(text, w) {
			t.Errorf("%q lacks %q", text, w)
		}
	}
	for _, not := range []string{"Use edit_file", "(a file)"} {
		if strings.Contains(text, not) {
			t.Errorf("%q says %q", text, not)
		}
	}
	// The tools the old message pointed to do refuse it.
	refused(t, e, "edit_file", `{"path": "p", "edits": [{"oldText": "a", "newText": "b"}]}`, "not_a_file")
	refused(t, e, "write_file", `{"path": "p", "content": "x"}`, "not_a_file")
}
