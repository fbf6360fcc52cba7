//go:build !windows

package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A folder a command made and a later command chmodded refuses the undo or rewind of
// the first, naming the later call to undo first, as a file's conflict does: a chmod
// back by hand would take that call's change away outside the journal. A chmod by
// hand is journaled by no call (an outside look records no folder's bits, though its
// record holds another file): the refusal then still says which chmod to run.
func TestFolderBitsConflictNamesTheLaterCall(t *testing.T) {
	for _, how := range []string{"undo", "rewind"} {
		for _, by := range []string{"exec", "outside"} {
			t.Run(how+" "+by, func(t *testing.T) {
				e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
				defer e.Close()
				if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
					t.Fatal(err)
				}
				first := execAs(t, e, dir, "s", "t1", "mkdir -p a/b/c && echo x > a/b/c/f")
				var later uint64
				if by == "exec" {
					later = execAs(t, e, dir, "other", "", "chmod 700 a/b").Seq
				} else {
					if err := os.Chmod(filepath.Join(dir, "a", "b"), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, "o.txt"), []byte("o\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					look, err := e.CheckpointOutside(LookOptions{})
					if err != nil || look == nil || look.Seq == 0 {
						t.Fatalf("the outside record: %v %v", look, err)
					}
					later = look.Seq
				}
				want := tree(t, dir)
				var err error
				if how == "undo" {
					err = do(e, "op", func(c *Call) error {
						_, err := e.Undo(c, UndoOptions{Seq: first.Seq})
						return err
					})
				} else {
					err = rewindTo(e, "s", "t1", false)
				}
				b := errs.Blocked(err)
				past := map[string]string{"undo": "undone", "rewind": "rewound"}[how]
				if by == "outside" {
					if errs.KindOf(err) != errs.Conflict || b != nil || !strings.Contains(err.Error(), "run `chmod 755 a/b` first, then "+how+" again") {
						t.Fatalf("the %s of a folder chmodded by hand: %v (blocker %v); want a conflict naming the chmod to run", how, err, b)
					}
				} else if errs.KindOf(err) != errs.Conflict || b == nil || b.Blocker != later || strings.Contains(err.Error(), "chmod") ||
					!strings.Contains(err.Error(), fmt.Sprintf("Call %d changed a/b", later)) || !strings.Contains(err.Error(), "nothing was "+past) {
					t.Fatalf("the %s of a folder call %d chmodded since: %v (blocker %v); want a conflict naming call %d to undo first, not a chmod", how, later, err, b, later)
				}
				if got := tree(t, dir); !same(got, want) {
					t.Fatalf("the refused %s changed the tree:\n got  %v\n want %v", how, got, want)
				}
			})
		}
	}
}

// A symlink a command made and someone changed since refuses the rewind of the
// command, and the refusal says nothing was rewound (not "undone").
func TestEntryConflictSaysTheVerb(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	execAs(t, e, dir, "s", "t1", "ln -s keep.txt l")
	l := filepath.Join(dir, "l")
	if err := os.Remove(l); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other.txt", l); err != nil {
		t.Fatal(err)
	}
	err := rewindTo(e, "s", "t1", false)
	if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "Nothing was rewound") {
		t.Fatalf("the rewind of a symlink changed since: %s %v; want a conflict saying nothing was rewound", errs.KindOf(err), err)
	}
}
