package txn

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
)

// makeFolders runs MakeFolders as its own call; it returns the call's number.
func makeFolders(e *Engine, p string) (uint64, error) {
	return doRecovering(e, "s", func(c *Call) error { _, err := e.MakeFolders(c, p); return err })
}

func removeFolder(e *Engine, p string) (uint64, error) {
	return doRecovering(e, "s", func(c *Call) error { return e.RemoveFolder(c, p) })
}

// journalAt keeps the journal's files (the folder of r.journal) as they stand when
// a folder call's (or an undo's) pending record is written; the returned func puts them back, as
// a kill of the process at that point would have left them.
func journalAt(t *testing.T, r *faultRig) (restore func()) {
	t.Helper()
	jdir := filepath.Dir(r.journal)
	var snap map[string][]byte
	keep := func() {
		if snap != nil {
			return
		}
		snap = map[string][]byte{}
		list, _ := os.ReadDir(jdir)
		for _, f := range list {
			if data, err := os.ReadFile(filepath.Join(jdir, f.Name())); err == nil {
				snap[f.Name()] = data
			}
		}
	}
	testHookFolderStep = func(journal.Record) { keep() }
	testHookJournaled = func(what string) { // an undo's, which commit writes
		if what == "pending" {
			keep()
		}
	}
	t.Cleanup(func() { testHookFolderStep, testHookJournaled = nil, nil })
	return func() {
		testHookFolderStep, testHookJournaled = nil, nil
		if snap == nil {
			t.Fatal("no folder call wrote a pending record")
		}
		list, _ := os.ReadDir(jdir)
		for _, f := range list {
			os.Remove(filepath.Join(jdir, f.Name())) // the killed process's files go; its locks stay on them
		}
		for name, data := range snap {
			os.WriteFile(filepath.Join(jdir, name), data, 0o644)
		}
	}
}

// TestRecoveryOfFolderCalls: a process killed after a folder call's pending record
// was written leaves the next open to settle it by what stands on disk: every folder
// made (or removed) rolls forward; a folder left to make (or not removed) rolls back
// what was done. The oracle is the tree on disk: either the whole call's folders or
// none of them, and a record that says which.
func TestRecoveryOfFolderCalls(t *testing.T) {
	t.Run("made, then killed", func(t *testing.T) {
		r := newFaultRig(t)
		restore := journalAt(t, r)
		seq, err := makeFolders(r.e, "x/y/z")
		if err != nil {
			t.Fatal(err)
		}
		restore()
		r.e = r.engine(t)
		rec := r.record(t, seq)
		if rec.State != journal.Committed {
			t.Errorf("state %s, notes %q; every folder was made", rec.State, rec.Notes)
		}
		for _, d := range []string{"x", "x/y", "x/y/z"} {
			if ok, _ := afero.DirExists(r.mem, d); !ok {
				t.Errorf("%s/ is gone after recovery", d)
			}
		}
		if len(rec.Entries) != 3 || rec.Entries[2].AfterMode == 0 {
			t.Errorf("entries %+v: want x, x/y, x/y/z with their bits", rec.Entries)
		}
	})
	t.Run("killed between two folders", func(t *testing.T) {
		r := newFaultRig(t)
		// x/ is made; x/y/ fails, and so does the call's own removal of x/: as a kill
		// between the two, the record stays pending with x/ on disk.
		r.ffs.SetHook(func(o testutil.Op, name string) error {
			name = strings.TrimPrefix(filepath.ToSlash(name), "/")
			if (o == testutil.OpMkdir && name == "x/y") || (o == testutil.OpRemove && name == "x") {
				return syscall.EIO
			}
			return nil
		})
		seq, err := makeFolders(r.e, "x/y/z")
		if err == nil {
			t.Fatal("the make succeeded; the test meant it to fail at x/y")
		}
		if ok, _ := afero.DirExists(r.mem, "x"); !ok {
			t.Fatal("the test meant x/ to stay before recovery")
		}
		r.ffs.SetHook(nil)
		r.e = r.engine(t)
		rec := r.record(t, seq)
		if rec.State != journal.RolledBack || !strings.Contains(strings.Join(rec.Notes, "\n"), "recovery: x/ removed") {
			t.Errorf("state %s, notes %q", rec.State, rec.Notes)
		}
		r.unchanged(t, "after recovery")
	})
	t.Run("removed, then killed", func(t *testing.T) {
		r := newFaultRig(t)
		r.mem.Mkdir("empty", 0o700)
		restore := journalAt(t, r)
		seq, err := removeFolder(r.e, "empty")
		if err != nil {
			t.Fatal(err)
		}
		restore()
		r.e = r.engine(t)
		if rec := r.record(t, seq); rec.State != journal.Committed {
			t.Errorf("state %s, notes %q; the folder was removed", rec.State, rec.Notes)
		}
		if ok, _ := afero.Exists(r.mem, "empty"); ok {
			t.Error("recovery brought empty/ back; the call had removed it")
		}
	})
	t.Run("killed before the removal", func(t *testing.T) {
		r := newFaultRig(t)
		r.mem.Mkdir("empty", 0o700)
		r.before = testutil.Nodes(t, r.dir)
		restore := journalAt(t, r)
		r.ffs.SetHook(func(o testutil.Op, name string) error {
			if o == testutil.OpRemove && strings.TrimPrefix(filepath.ToSlash(name), "/") == "empty" {
				return syscall.EIO
			}
			return nil
		})
		seq, err := removeFolder(r.e, "empty")
		r.ffs.SetHook(nil)
		if err == nil {
			t.Fatal("the removal succeeded; the test meant it to fail")
		}
		restore()
		r.e = r.engine(t)
		if rec := r.record(t, seq); rec.State != journal.RolledBack {
			t.Errorf("state %s, notes %q; the folder was never removed", rec.State, rec.Notes)
		}
		r.unchanged(t, "after recovery")
	})
}

// TestRecoveryOfAFolderRemovalsUndo: an undo of a folder's removal is killed after
// its pending record: with the folder made, it rolls forward; with the folder made
// but not yet given its bits (MakeDir makes it 0700, then sets them), it rolls
// forward and recovery gives them; with no folder made yet, it rolls back, and the
// folder stays away.
func TestRecoveryOfAFolderRemovalsUndo(t *testing.T) {
	winetest.NeedPOSIXModes(t, "folder permission bits (the test checks 0750 is put back)")
	for _, killed := range []string{"after", "before its bits", "before"} {
		r := newFaultRig(t)
		r.mem.Mkdir("empty", 0o750)
		r.mem.Chmod("empty", 0o750)
		if _, err := removeFolder(r.e, "empty"); err != nil {
			t.Fatal(err)
		}
		restore := journalAt(t, r)
		seq, err := doRecovering(r.e, "s", func(c *Call) error { _, err := r.e.Undo(c, UndoOptions{Session: "s"}); return err })
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := r.mem.Stat("empty"); err != nil || fi.Mode().Perm() != 0o750 {
			t.Fatalf("the undo made empty/ with %v (%v), want 0750", fi.Mode().Perm(), err)
		}
		switch killed {
		case "before its bits":
			r.mem.Chmod("empty", 0o700)
		case "before":
			r.mem.Remove("empty")
		}
		restore()
		r.e = r.engine(t)
		rec := r.record(t, seq)
		fi, err := r.mem.Stat("empty")
		want, there := journal.Committed, err == nil && fi.IsDir()
		if killed == "before" {
			want = journal.RolledBack
		}
		if rec.State != want || there != (killed != "before") {
			t.Errorf("killed %s: state %s (want %s), folder there %v, notes %q", killed, rec.State, want, there, rec.Notes)
		}
		if there && fi.Mode().Perm() != 0o750 {
			t.Errorf("killed %s: empty/ has %v after recovery, want 0750", killed, fi.Mode().Perm())
		}
	}
}
