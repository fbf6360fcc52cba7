//go:build !windows

package txn

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// A create_directory killed after its pending record, whose last folder is a symlink
// when the next open recovers it, is rolled forward with that folder's bits never
// learnt (the pending record has none, and recovery does not look through a
// symlink). Once the folder is put back as it was, its undo removes the folders: it
// was refused before, the folder's "mode 0755 now, the command left it 0000", with
// advice to chmod it 0.
func TestUndoOfAFolderWhoseBitsRecoveryNeverLearnt(t *testing.T) {
	r := newFaultRig(t)
	before := tree(t, r.dir)
	restore := journalAt(t, r)
	seq, err := makeFolders(r.e, "x/y/z")
	if err != nil {
		t.Fatal(err)
	}
	restore()
	z, aside := filepath.Join(r.dir, "x", "y", "z"), filepath.Join(r.dir, "x", "y", "real")
	must(t, os.Rename(z, aside))
	must(t, os.Symlink("real", z))
	r.e = r.engine(t)
	rec := r.record(t, seq)
	if rec.State != journal.Committed || len(rec.Entries) != 3 || rec.Entries[2].Path != "x/y/z" || rec.Entries[2].AfterMode != 0 {
		t.Fatalf("the case is not built: state %s, entries %+v, notes %q", rec.State, rec.Entries, rec.Notes)
	}
	// Put back as the call left it.
	must(t, os.Remove(z))
	must(t, os.Rename(aside, z))
	var undo *UndoResult
	must(t, do(r.e, "op", func(c *Call) (err error) {
		undo, err = r.e.Undo(c, UndoOptions{Seq: seq})
		return err
	}))
	if got := tree(t, r.dir); !same(got, before) {
		t.Fatalf("after the undo:\n got  %v\n want %v", got, before)
	}
	// Its redo makes the folders again with the bits they had, not 0000.
	must(t, do(r.e, "op", func(c *Call) error {
		_, err := r.e.Undo(c, UndoOptions{Seq: undo.Seq, Redo: true})
		return err
	}))
	for _, d := range []string{"x", "x/y", "x/y/z"} {
		fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(d)))
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o700 != 0o700 {
			t.Fatalf("%s/ after the redo: %v %v", d, fi, err)
		}
	}
}
