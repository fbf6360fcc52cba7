package txn

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
)

// insertAt is a locator that inserts text before byte off.
func insertAt(off int, text string) func([]byte) (*matcher.Result, error) {
	return func(data []byte) (*matcher.Result, error) {
		return matcher.FromSplices(data, []matcher.Splice{{Start: off, End: off, Text: []byte(text)}}, nil)
	}
}

func TestApplyDeletesAndLocatesInOneTransaction(t *testing.T) {
	e, dir := diskEngine(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "gone\n"})
	err := do(e, "s", func(c *Call) error {
		_, err := e.Apply(c, []Spec{
			{Path: "a.txt", Op: journal.OpEdit, Locate: insertAt(4, "1.5\n")},
			{Path: "b.txt", Op: journal.OpDelete},
		}, false)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\n1.5\ntwo\n" {
		t.Errorf("a.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt still there: %v", err)
	}
	// The undo of that call puts both files back.
	err = do(e, "s", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Session: "s"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "one\ntwo\n", "b.txt": "gone\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("after undo %s = %q, want %q", name, b, want)
		}
	}
}

func TestLocatorRefusalChangesNothing(t *testing.T) {
	e, dir := diskEngine(t, map[string]string{"a.txt": "one\n", "b.txt": "keep\n"})
	refuse := func([]byte) (*matcher.Result, error) {
		return nil, errs.New(errs.TextNotFound, "a.txt", "chunk 1 not found")
	}
	err := do(e, "s", func(c *Call) error {
		_, err := e.Apply(c, []Spec{{Path: "b.txt", Op: journal.OpDelete}, {Path: "a.txt", Op: journal.OpEdit, Locate: refuse}}, false)
		return err
	})
	if errs.KindOf(err) != errs.TextNotFound {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != "keep\n" {
		t.Errorf("b.txt = %q after a refused call", b)
	}
}

// Deleting through a symlink is refused: it would remove the file the link points to,
// name the link in the reply, and leave the link dangling.
func TestDeleteThroughSymlinkRefused(t *testing.T) {
	winetest.NeedSymlinks(t)
	e, dir := diskEngine(t, map[string]string{"g.txt": "x\n"})
	if err := os.Symlink("g.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	err := do(e, "s", func(c *Call) error {
		_, err := e.Apply(c, []Spec{{Path: "link", Op: journal.OpDelete}}, false)
		return err
	})
	if errs.KindOf(err) != errs.NotAFile {
		t.Fatalf("err = %v, want not_a_file", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "g.txt")); string(b) != "x\n" {
		t.Errorf("g.txt = %q after a refused delete", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "link")); err != nil {
		t.Errorf("the link is gone: %v", err)
	}
}
