package txn

import (
	"os"
	"path/filepath"
	"testing"
)

// A redo refused after its pending record (a file it puts back appeared meanwhile)
// takes back what its steps did, and only that: the folders it was to make, made by
// someone else while it ran, stay (its rollback removed them, being empty).
func TestFailedRedoLeavesFoldersItDidNotMake(t *testing.T) {
	for _, theirs := range []bool{true, false} {
		t.Run(map[bool]string{true: "folders theirs", false: "folders its own"}[theirs], func(t *testing.T) { failedRedo(t, theirs) })
	}
}

// failedRedo: with theirs, someone makes the folders the redo makes, as it runs.
// Made by the redo, its rollback removes them.
func failedRedo(t *testing.T, theirs bool) {
	e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
	defer e.Close()
	_, err := e.CheckpointOutside(LookOptions{})
	must(t, err)
	x, err := e.BeginExec("S", "1", ExecArgs{Argv: []string{"sh", "-c", "mkdir -p a/b/c/d; echo x > f.txt"}, Cwd: "."}, LookOptions{})
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(dir, "a/b/c/d"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644))
	_, err = x.End("exit 0")
	must(t, err)
	_, back, err := undoWith(e, UndoOptions{Seq: x.Seq()})
	must(t, err)
	if _, err := os.Stat(filepath.Join(dir, "a")); !os.IsNotExist(err) {
		t.Fatalf("the undo left a/: %v", err)
	}

	// Once the redo's pending record is written, someone makes the folders and the
	// file: the redo makes no folder, and its write of f.txt is refused.
	testHookJournaled = func(what string) {
		if what != "pending" {
			return
		}
		testHookJournaled = nil
		if theirs {
			os.MkdirAll(filepath.Join(dir, "a/b/c/d"), 0o755)
		}
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte("theirs\n"), 0o644)
	}
	t.Cleanup(func() { testHookJournaled = nil })
	if _, _, err := undoWith(e, UndoOptions{Seq: back, Redo: true}); err == nil {
		t.Fatal("the redo went through over a file made meanwhile")
	}
	fi, err := os.Stat(filepath.Join(dir, "a/b/c/d"))
	if theirs && (err != nil || !fi.IsDir()) {
		t.Errorf("a/b/c/d, made by someone else while the redo ran, is gone after its refusal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !theirs && !os.IsNotExist(err) {
		t.Errorf("a/, made by the refused redo, stands after its refusal: %v", err)
	}
	if got := contentOf(t, dir, "f.txt"); got != "theirs\n" {
		t.Errorf("f.txt: %q", got)
	}
}
