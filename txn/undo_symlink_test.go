package txn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A command that replaced a file by a symlink (ln -sf t.txt a.txt) is taken back
// while the symlink is as it left it: the symlink goes, the file comes back with its
// content and bits; the redo makes the symlink again. A symlink retargeted since
// refuses the undo, naming what is there, and nothing is written.
func TestUndoOfAFileReplacedByASymlink(t *testing.T) {
	for _, how := range []string{"undo", "rewind"} {
		t.Run(how, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"t.txt": "target\n", "a.txt": "content\n"}, Options{NoSync: true})
			defer e.Close()
			os.Chmod(filepath.Join(dir, "a.txt"), 0o640)
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			before := tree(t, dir)
			look := runExec(t, e, dir, "s", "ln -sf t.txt a.txt")
			after := tree(t, dir)
			var seq uint64
			if err := do(e, "op", func(c *Call) error {
				var err error
				if how == "undo" {
					_, err = e.Undo(c, UndoOptions{Seq: look.Seq})
				} else {
					_, err = e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
				}
				seq = c.Seq()
				return err
			}); err != nil {
				t.Fatalf("the %s: %v", how, err)
			}
			if got := tree(t, dir); !same(got, before) {
				t.Fatalf("after the %s:\n got  %v\n want %v", how, got, before)
			}
			if next, err := e.CheckpointOutside(LookOptions{}); err != nil || next.Seq != 0 {
				t.Errorf("the look after the %s recorded %+v (%v), want nothing", how, next, err)
			}
			// A redo of the undo, an undo of the rewind: the command's work again.
			if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: seq, Redo: how == "undo"}); return err }); err != nil {
				t.Fatalf("taking the %s back: %v", how, err)
			}
			if got := tree(t, dir); !same(got, after) {
				t.Fatalf("after taking the %s back:\n got  %v\n want %v", how, got, after)
			}
		})
	}
	t.Run("retargeted since", func(t *testing.T) {
		e, dir := diskEngineWith(t, map[string]string{"t.txt": "target\n", "a.txt": "content\n"}, Options{NoSync: true})
		defer e.Close()
		if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
			t.Fatal(err)
		}
		look := runExec(t, e, dir, "s", "ln -sf t.txt a.txt")
		os.Remove(filepath.Join(dir, "a.txt"))
		os.Symlink("other", filepath.Join(dir, "a.txt"))
		found := tree(t, dir)
		err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: look.Seq}); return err })
		if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "a symlink to other") {
			t.Fatalf("the undo: %v, want a conflict naming the symlink to other", err)
		}
		if got := tree(t, dir); !same(got, found) {
			t.Errorf("the refused undo wrote:\n got  %v\n want %v", got, found)
		}
	})
}
