package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// wantKept checks that kept says, of each folder of dirs and of no other, that it
// stays, with the mode it has on disk and why; and that each stands.
func wantKept(t *testing.T, dir string, kept []string, why string, dirs ...string) {
	t.Helper()
	if len(kept) != len(dirs) {
		t.Fatalf("kept folders %q, want %d, for %v", kept, len(dirs), dirs)
	}
	for _, d := range dirs {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil || !fi.IsDir() {
			t.Fatalf("%s/ is said to stay, but on disk: %v", d, err)
		}
		want := fmt.Sprintf("%s/ stays (mode %04o): %s", d, fi.Mode().Perm(), why)
		if !slices.Contains(kept, want) {
			t.Fatalf("kept folders %q do not say %q", kept, want)
		}
	}
}

// An undo of a create whose folders hold another's file by then leaves those folders
// standing, and says so, as a rewind does: before, it said only that the file was
// removed, and the folders it had made could be taken for gone.
func TestUndoSaysMadeFoldersStay(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
	defer e.Close()
	must(t, turnCreate(e, "s", "t1", "p/q/g.txt", "g\n"))
	must(t, turnCreate(e, "other", "", "p/q/o.txt", "o\n"))
	var res *UndoResult
	must(t, do(e, "op", func(c *Call) (err error) {
		res, err = e.Undo(c, UndoOptions{Seq: 1})
		return err
	}))
	if _, err := os.Lstat(filepath.Join(dir, "p", "q", "g.txt")); !os.IsNotExist(err) {
		t.Fatalf("the created file: %v, want it gone", err)
	}
	if len(res.Folders) != 0 {
		t.Fatalf("the undo says it removed %v", res.Folders)
	}
	wantKept(t, dir, res.Kept, "something the call did not make is in it", "p/q", "p")
}

// A redo that takes away again a file whose undo made its folders says which of them
// stay.
func TestRedoSaysMadeFoldersStay(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"x/y.txt": "y\n"}, Options{NoSync: true})
	defer e.Close()
	must(t, turnDelete(e, "s", "t1", "x/y.txt"))
	if err := os.Remove(filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	var undo *UndoResult
	must(t, do(e, "op", func(c *Call) (err error) {
		undo, err = e.Undo(c, UndoOptions{Seq: 1})
		return err
	}))
	if err := os.WriteFile(filepath.Join(dir, "x", "mine.txt"), []byte("m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res *UndoResult
	must(t, do(e, "op", func(c *Call) (err error) {
		res, err = e.Undo(c, UndoOptions{Seq: undo.Seq, Redo: true})
		return err
	}))
	if _, err := os.Lstat(filepath.Join(dir, "x", "y.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file the redo deletes: %v, want it gone", err)
	}
	wantKept(t, dir, res.Kept, "something the call did not make is in it", "x")
}

// A folder a command made that something is put in once the undo has checked it is
// empty stays, and the undo says so: before, only the record's notes did.
func TestUndoSaysCommandFolderStays(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
	defer e.Close()
	look := runExec(t, e, dir, "s", "mkdir -p a/b && echo x > a/b/f")
	testHookPending = func() error {
		testHookPending = nil // the undo's pending record only
		return os.WriteFile(filepath.Join(dir, "a", "b", "late.txt"), []byte("l\n"), 0o644)
	}
	defer func() { testHookPending = nil }()
	var res *UndoResult
	must(t, do(e, "op", func(c *Call) (err error) {
		res, err = e.Undo(c, UndoOptions{Seq: look.Seq})
		return err
	}))
	if _, err := os.Lstat(filepath.Join(dir, "a", "b", "f")); !os.IsNotExist(err) {
		t.Fatalf("the command's file: %v, want it gone", err)
	}
	wantKept(t, dir, res.Kept, "something the call did not make is in it", "a/b", "a")
	// The record keeps the steps that were done: a/b stands, so none for it.
	e.View(func(tx *journal.Tx) error {
		r, err := tx.Get(res.Seq)
		if err != nil || r == nil {
			t.Fatalf("the undo's record: %v", err)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), "a/b: the folder was left") {
			t.Errorf("the undo's record notes %q do not say a/b was left", r.Notes)
		}
		return nil
	})
}
