package toolapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every line of a dry run's reply, but the diff's, says what would happen: a reader
// who skims the line of one file or folder must not take it for done. The turn moves
// a file into a new folder, makes folders, edits and creates a file: each kind of line
// a rewind or an undo prints.
func TestDryRunSaysWould(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg"), 0o755)
	os.WriteFile(filepath.Join(dir, "pkg", "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "b.txt"), []byte("b\n"), 0o644)
	e, err := Open(dir, Options{Tools: "all"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := WithTurn(context.Background(), "t1")
	for _, c := range [][2]string{
		{"move_file", `{"source": "pkg/b.txt", "destination": "src/b.txt"}`},
		{"create_directory", `{"path": "new/d"}`},
		{"edit_file", `{"path": "pkg/a.txt", "edits": [{"oldText": "a", "newText": "A"}]}`},
		{"create_file", `{"path": "c.txt", "content": "c\n"}`},
	} {
		if r := e.Call(ctx, "s", c[0], json.RawMessage(c[1])); !r.OK {
			t.Fatalf("%s: %s", c[0], r.Text)
		}
	}
	check := func(what, text string, entries []string) {
		t.Helper()
		if !strings.HasPrefix(text, "Dry run, nothing written: ") {
			t.Errorf("%s: %q", what, text)
		}
		lines := append(strings.Split(text, "\n"), entries...)
		for _, l := range lines {
			if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "@@ ") ||
				strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") || strings.HasPrefix(l, " ") {
				continue // the diff
			}
			if !strings.Contains(l, "would") {
				t.Errorf("%s: the line %q does not say it would happen, in:\n%s", what, l, text)
			}
		}
	}
	rw := e.RewindTurns(context.Background(), RewindRequest{Session: "s", Turn: "t1", DryRun: true})
	if !rw.OK {
		t.Fatal(rw.Text)
	}
	check("rewind", rw.Text, nil)
	for seq := uint64(1); seq <= 4; seq++ {
		u := e.Revert(context.Background(), UndoRequest{Seq: seq, DryRun: true})
		if !u.OK {
			t.Fatalf("undo %d: %s", seq, u.Text)
		}
		check("undo", u.Text, u.Entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); err != nil {
		t.Error("a dry run removed c.txt")
	}
}
