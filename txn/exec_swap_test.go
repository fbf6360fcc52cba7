package txn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An exec that swaps a folder for a file and a file for a folder is undone and
// redone whole; with a file added in the way since, the undo writes nothing.
func TestUndoOfAnExecThatSwappedFoldersAndFiles(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"d/a.txt": "a\n", "d/sub/b.txt": "b\n", "f": "f\n"}, Options{NoSync: true})
	defer e.Close()
	os.Chmod(filepath.Join(dir, "d"), 0o750)
	os.Chmod(filepath.Join(dir, "d/a.txt"), 0o600)
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	look := runExec(t, e, dir, "s", "rm -rf d && echo iamfile > d && rm f && mkdir f && echo x > f/x")
	after := tree(t, dir)
	undo, err := undoRedo(e, look.Seq, false)
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	if got := tree(t, dir); !same(got, before) {
		t.Fatalf("after the undo:\n got  %v\n want %v", got, before)
	}
	if _, err := undoRedo(e, undo, true); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if got := tree(t, dir); !same(got, after) {
		t.Fatalf("after the redo:\n got  %v\n want %v", got, after)
	}
	// Something else changed since: the undo is a conflict naming the path.
	if err := os.WriteFile(filepath.Join(dir, "f/y"), []byte("user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	blocked := tree(t, dir)
	_, err = undoRedo(e, look.Seq, false)
	if err == nil || !strings.Contains(err.Error(), "f/y") {
		t.Fatalf("undo with f/y in the way: %v, want a refusal naming f/y", err)
	}
	if got := tree(t, dir); !same(got, blocked) {
		t.Fatalf("a refused undo changed the tree:\n got  %v\n want %v", got, blocked)
	}
}
