package toolapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder move that meets another vfsctl's file being staged (a write until its
// rename) says another process is writing there and to send the move again, not to
// move the files one by one; a reserved name in the folder still says that.
func TestMoveFolderMeetingAStagedWrite(t *testing.T) {
	e, dir := openWorkspace(t, map[string]string{"src/a.txt": "x\n", "lib/a.txt": "y\n", "lib/.git": "z\n"})
	staged := filepath.Join(dir, "src", ".vfsctl-tmp-0123456789abcdef")
	os.WriteFile(staged, []byte("x1\n"), 0o644)
	text := refused(t, e, "move_file", `{"source": "src", "destination": "dst"}`, "busy")
	if !strings.Contains(text, "another process is writing there (src/.vfsctl-tmp-0123456789abcdef") || !strings.Contains(text, "send the move again") ||
		strings.Contains(text, "one by one") {
		t.Errorf("move over a staged write: %q", text)
	}
	fileIs(t, filepath.Join(dir, "src", "a.txt"), "x\n", 0o644)
	gone(t, filepath.Join(dir, "dst"))
	text = refused(t, e, "move_file", `{"source": "lib", "destination": "lib2"}`, "not_a_file")
	if !strings.Contains(text, "lib/.git is reserved") || !strings.Contains(text, "one by one") {
		t.Errorf("move over a reserved name: %q", text)
	}
	// Once the write is done, the same move goes through.
	os.Remove(staged)
	mustCall(t, e, "move_file", `{"source": "src", "destination": "dst"}`)
	fileIs(t, filepath.Join(dir, "dst", "a.txt"), "x\n", 0o644)
}
