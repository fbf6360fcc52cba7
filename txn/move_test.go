package txn

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/journal"
)

// A move is a deletion of the old path and a creation of the new one whose content is
// the old file's, read under its queue, with the move's own change applied.
func TestApplyMoveTakesContentFromItsSource(t *testing.T) {
	e, dir := diskEngine(t, map[string]string{"old.txt": "one\ntwo\n", "keep.txt": "k\n"})
	err := do(e, "s", func(c *Call) error {
		_, err := e.Apply(c, []Spec{
			{Path: "old.txt", Op: journal.OpDelete},
			{Path: "sub/new.txt", Op: journal.OpCreate, From: "old.txt", Locate: insertAt(4, "1.5\n")},
		}, false)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sub/new.txt")); string(b) != "one\n1.5\ntwo\n" {
		t.Errorf("sub/new.txt = %q", b)
	}
	err = do(e, "s", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Session: "s"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "old.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("after undo old.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub/new.txt")); !os.IsNotExist(err) {
		t.Errorf("after undo sub/new.txt still there: %v", err)
	}
}

func TestApplyMoveWithoutItsSourceIsRefused(t *testing.T) {
	e, dir := diskEngine(t, map[string]string{"old.txt": "one\n"})
	err := do(e, "s", func(c *Call) error {
		_, err := e.Apply(c, []Spec{{Path: "new.txt", Op: journal.OpCreate, From: "old.txt"}}, false)
		return err
	})
	if errs.KindOf(err) != errs.InvalidInput {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt was made by a refused call")
	}
}

func TestApplyMoveOntoExistingIsFileExists(t *testing.T) {
	e, dir := diskEngine(t, map[string]string{"old.txt": "one\n", "new.txt": "there\n"})
	err := do(e, "s", func(c *Call) error {
		_, err := e.Apply(c, []Spec{
			{Path: "old.txt", Op: journal.OpDelete},
			{Path: "new.txt", Op: journal.OpCreate, From: "old.txt"},
		}, false)
		return err
	})
	if errs.KindOf(err) != errs.FileExists {
		t.Fatalf("err = %v", err)
	}
	for name, want := range map[string]string{"old.txt": "one\n", "new.txt": "there\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
}

// A refusal of a call with several changes names the change by its Label when it has
// one (an edit dialect's own words for it).
func TestApplyRefusalNamesTheLabel(t *testing.T) {
	e, _ := diskEngine(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	err := do(e, "s", func(c *Call) error {
		_, err := e.Apply(c, []Spec{
			{Path: "a.txt", Op: journal.OpDelete},
			{Path: "b.txt", Op: journal.OpCreate, Label: "*** Add File: b.txt"},
		}, false)
		return err
	})
	if errs.KindOf(err) != errs.FileExists {
		t.Fatalf("err = %v", err)
	}
	if got, want := err.Error()[:len("*** Add File: b.txt: ")], "*** Add File: b.txt: "; got != want {
		t.Errorf("refusal starts %q, want %q", got, want)
	}
}
