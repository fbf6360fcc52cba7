package txn

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

var faultFiles = map[string]string{
	"a.txt":     "alpha\nbeta\n",
	"b.txt":     "one\ntwo\n",
	"c.txt":     "whole file\n",
	"gone.txt":  "deleted\n",
	"old/m.txt": "moved\n",
}

// faultSpecs is a transaction over four files and a deletion and a move: two edits, a
// write, a create in a new folder, the deletion of gone.txt and the move of old/m.txt
// to moved/m.txt.
func faultSpecs() []Spec {
	return []Spec{
		{Path: "a.txt", Op: journal.OpEdit, Edits: []matcher.Edit{{OldText: "beta", NewText: "BETA"}}},
		{Path: "gone.txt", Op: journal.OpDelete},
		{Path: "old/m.txt", Op: journal.OpDelete},
		{Path: "moved/m.txt", Op: journal.OpCreate, From: "old/m.txt"},
		{Path: "b.txt", Op: journal.OpEdit, Edits: []matcher.Edit{{OldText: "one", NewText: "ONE"}}},
		{Path: "c.txt", Op: journal.OpWrite, Content: []byte("new whole file\n")},
		{Path: "new/d.txt", Op: journal.OpCreate, Content: []byte("created\n")},
	}
}

// faultReplaced are the files faultSpecs replaces: a replace makes a new inode, and
// so does its rollback, which keeps the content, mode and owner.
var faultReplaced = []string{"a.txt", "b.txt", "c.txt"}

// faultDurability is the durability mode of the fault rig's engines; the
// journal-durable variant checkpoints after every call, so that its syncs are there
// to break.
var faultDurability Durability

type faultRig struct {
	mem     afero.Fs // the workspace's folder on disk
	dir     string
	ffs     *testutil.FaultFs
	e       *Engine
	journal string
	before  map[string]testutil.Node
}

// newFaultRig is a workspace on disk holding faultFiles, reached through a FaultFs.
// gone.txt is a setuid program of another user (where the test runs as root) with a
// second hard link, gone.link, and old/m.txt another user's file: what a rollback
// must put back as the same files.
func newFaultRig(t *testing.T) *faultRig {
	dir := t.TempDir()
	for p, c := range faultFiles {
		testutil.WriteFile(t, filepath.Join(dir, p), c)
	}
	for _, p := range []string{"gone", "old/m"} {
		if err := os.Link(filepath.Join(dir, p+".txt"), filepath.Join(dir, p+".link")); err != nil {
			t.Fatal(err)
		}
	}
	giveAway(t, filepath.Join(dir, "gone.txt"), 0o755|os.ModeSetuid)
	giveAway(t, filepath.Join(dir, "old/m.txt"), 0o640)
	mem := afero.NewBasePathFs(afero.NewOsFs(), dir)
	r := &faultRig{mem: mem, dir: dir, ffs: &testutil.FaultFs{Fs: mem}, journal: t.TempDir() + "/journal.db"}
	r.e = r.engine(t)
	// write_file needs the session to have read c.txt.
	if err := read(r.e, "s", "c.txt"); err != nil {
		t.Fatal(err)
	}
	r.before = testutil.Nodes(t, dir)
	return r
}

func (r *faultRig) engine(t *testing.T) *Engine {
	e, err := Open(vfs.New(r.ffs, vfs.Options{}), Options{JournalPath: r.journal, Durability: faultDurability,
		CheckpointEvery: 1, CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// failRenamesFrom makes the nth rename and every later one fail: with n = 3, a.txt and
// b.txt land, then c.txt and every rename of the rollback fail, so the record stays
// pending for recovery.
func (r *faultRig) failRenamesFrom(n int) {
	renames := 0
	r.ffs.SetHook(func(o testutil.Op, name string) error {
		if o == testutil.OpRename {
			renames++
			if renames >= n {
				return syscall.EIO
			}
		}
		return nil
	})
}

func (r *faultRig) apply() (uint64, error) {
	var seq uint64
	err := do(r.e, "s", func(c *Call) error {
		_, err := r.e.Apply(c, faultSpecs(), false)
		seq = c.Seq()
		return err
	})
	return seq, err
}

// unchanged checks, by a walk of the workspace, that every file and folder is as
// before and nothing else was left behind (not new/d.txt, nor the folder new/ the
// create made, nor a temp file or a file set aside). The files the call deleted or
// moved, and those it did not touch, are the same inodes with the same links, mode,
// owner, modification time and extended attributes; a replaced file is a new inode.
func (r *faultRig) unchanged(t *testing.T, what string) {
	t.Helper()
	now := testutil.Nodes(t, r.dir)
	for _, p := range faultReplaced {
		if n, ok := now[p]; ok {
			n.Ino, n.Mtime = r.before[p].Ino, r.before[p].Mtime
			now[p] = n
		}
	}
	for _, d := range testutil.SameNodes(r.before, now) {
		t.Errorf("%s: %s", what, d)
	}
}

// landed checks that the call of faultSpecs landed whole, nothing set aside left.
func (r *faultRig) landed(t *testing.T, what string) {
	t.Helper()
	now := testutil.Nodes(t, r.dir)
	want := map[string]string{"a.txt": "alpha\nBETA\n", "b.txt": "ONE\ntwo\n", "c.txt": "new whole file\n",
		"moved/m.txt": "moved\n", "new/d.txt": "created\n", "gone.link": "deleted\n", "old/m.link": "moved\n"}
	for p := range now {
		if _, ok := want[p]; !ok && !now[p].Mode.IsDir() {
			t.Errorf("%s: %s is there", what, p)
		}
	}
	for p, c := range want {
		if got, err := os.ReadFile(filepath.Join(r.dir, p)); err != nil || string(got) != c {
			t.Errorf("%s: %s is %q (%v), want %q", what, p, got, err, c)
		}
	}
	if n := now["gone.link"]; n.Ino != r.before["gone.link"].Ino || n.Links != 1 {
		t.Errorf("%s: gone.link is %v, want the same inode as before with one link", what, n)
	}
	// The move renamed old/m.txt: the same file, still sharing its inode with the
	// hard link old/m.link.
	if n, was := now["moved/m.txt"], r.before["old/m.txt"]; n.Ino != was.Ino || n.Links != 2 || now["old/m.link"].Ino != was.Ino {
		t.Errorf("%s: moved/m.txt is %v, want old/m.txt's inode %d, shared with old/m.link (%v)", what, n, was.Ino, now["old/m.link"])
	}
}

func (r *faultRig) record(t *testing.T, seq uint64) *journal.Record {
	t.Helper()
	var rec *journal.Record
	r.e.View(func(tx *journal.Tx) error {
		rec, _ = tx.Get(seq)
		if p := tx.Pending(); len(p) > 0 {
			t.Errorf("records still pending: %v", p)
		}
		return nil
	})
	if rec == nil {
		t.Fatalf("no record %d", seq)
	}
	return rec
}

// cleanRunOps counts the writes, syncs, renames and mkdirs of a clean run of the
// four-file transaction: the operations the fault tests break one by one.
func cleanRunOps(t *testing.T) (map[testutil.Op]int, []testutil.Op) {
	counts := map[testutil.Op]int{}
	clean := newFaultRig(t)
	clean.ffs.SetHook(func(op testutil.Op, name string) error { counts[op]++; return nil })
	if _, err := clean.apply(); err != nil {
		t.Fatal(err)
	}
	return counts, []testutil.Op{testutil.OpWrite, testutil.OpSync, testutil.OpRename, testutil.OpMkdir}
}

// TestFaultInjection fails the Nth write, sync, rename or mkdir of a four-file
// transaction, for every N the transaction makes: each time the call reports io_error,
// no file is half-written or left changed, and the journal records the call as failed.
func TestFaultInjection(t *testing.T) {
	counts, ops := cleanRunOps(t)
	for _, op := range ops {
		if counts[op] == 0 {
			t.Fatalf("a clean run makes no %s", op)
		}
	}
	runs, landed := 0, 0
	for _, op := range ops {
		for n := 1; n <= counts[op]; n++ {
			cause := error(syscall.ENOSPC)
			if n%2 == 0 {
				cause = syscall.EIO
			}
			what := fmt.Sprintf("%s #%d fails with %v", op, n, cause)
			r := newFaultRig(t)
			seen := 0
			committed, past := false, false
			r.ffs.SetHook(func(o testutil.Op, name string) error {
				committed = committed || o == testutil.OpRemove && strings.Contains(name, vfs.AsidePrefix)
				if o == op {
					seen++
					if seen == n {
						past = committed
						return cause
					}
				}
				return nil
			})
			seq, err := r.apply()
			if past {
				// The sync of a deleted file's removal at the commit point: the call
				// stands, and its record says that the removal may not be durable.
				r.ffs.SetHook(nil)
				rec := r.record(t, seq)
				if err != nil || rec.State != journal.Committed || !strings.Contains(strings.Join(rec.Notes, "\n"), "could not be synced") {
					t.Errorf("%s, past the commit point: got %v, record %s %q", what, err, rec.State, rec.Notes)
				}
				r.landed(t, what)
				runs++
				landed++
				continue
			}
			if errs.KindOf(err) != errs.IOError || !errors.Is(err, cause) {
				t.Errorf("%s: got %v (kind %s), want io_error", what, err, errs.KindOf(err))
			}
			r.ffs.SetHook(nil)
			r.unchanged(t, what)
			if rec := r.record(t, seq); rec.State != journal.Failed || rec.Kind != string(errs.IOError) {
				t.Errorf("%s: journal says %s %s", what, rec.State, rec.Kind)
			}
			runs++
		}
	}
	t.Logf("%d faults injected (writes %d, syncs %d, renames %d, mkdirs %d); %d past the commit point let the call stand", runs,
		counts[testutil.OpWrite], counts[testutil.OpSync], counts[testutil.OpRename], counts[testutil.OpMkdir], landed)
}

// TestRecoveryAfterFailedRollback: when the rollback of a failed commit fails too, the
// record stays pending and the next open of the workspace restores the files.
func TestRecoveryAfterFailedRollback(t *testing.T) {
	r := newFaultRig(t)
	r.failRenamesFrom(3)
	seq, err := r.apply()
	testutil.WantKind(t, err, errs.IOError)
	if got, _ := afero.ReadFile(r.mem, "a.txt"); string(got) == faultFiles["a.txt"] {
		t.Fatal("the test meant a.txt to stay changed after the failed rollback")
	}
	r.ffs.SetHook(nil)
	// A new process opens the workspace: recovery settles the pending record.
	r.e = r.engine(t)
	rec := r.record(t, seq)
	r.unchanged(t, "after recovery")
	if rec.State != journal.RolledBack {
		t.Errorf("state %s, want rolled_back; notes %v", rec.State, rec.Notes)
	}
	if !strings.Contains(strings.Join(rec.Notes, "\n"), "a.txt restored") {
		t.Errorf("notes do not report the restore: %v", rec.Notes)
	}
}

// TestRecoveryLeavesOthersChanges: when a file of a half-done call was changed by
// someone else before recovery ran, recovery leaves it alone, restores the rest, and
// says so in the record.
func TestRecoveryLeavesOthersChanges(t *testing.T) {
	r := newFaultRig(t)
	r.failRenamesFrom(3)
	seq, _ := r.apply()
	r.ffs.SetHook(nil)
	afero.WriteFile(r.mem, "b.txt", []byte("someone else's b\n"), 0o644)
	r.e = r.engine(t)
	rec := r.record(t, seq)
	if got, _ := afero.ReadFile(r.mem, "b.txt"); string(got) != "someone else's b\n" {
		t.Errorf("b.txt was not left alone: %q", got)
	}
	if got, _ := afero.ReadFile(r.mem, "a.txt"); string(got) != faultFiles["a.txt"] {
		t.Errorf("a.txt not restored: %q", got)
	}
	notes := strings.Join(rec.Notes, "\n")
	if rec.State != journal.RolledBack || !strings.Contains(notes, "b.txt was changed by someone else; left alone") {
		t.Errorf("state %s, notes %q", rec.State, notes)
	}
}

// doRecovering runs a call as the tool API does: a panic becomes the call's error.
func doRecovering(e *Engine, session string, fn func(c *Call) error) (seq uint64, err error) {
	c, err := e.Begin(session, "test", nil)
	if err != nil {
		return 0, err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
		c.Finish(err)
		seq = c.Seq()
	}()
	return 0, fn(c)
}

// TestPanicDuringCommit panics at the Nth write, sync, rename or mkdir of a four-file
// transaction, for every N, once or from then on (so that the rollback panics too).
// Each time, the files end unchanged: at once, with the record failed, or after the
// next open's recovery, with the record rolled back. Never a changed file under a
// record that says failed.
func TestPanicDuringCommit(t *testing.T) {
	counts, ops := cleanRunOps(t)
	runs, pendings, landed := 0, 0, 0
	for _, op := range ops {
		for n := 1; n <= counts[op]; n++ {
			for _, sticky := range []bool{false, true} {
				what := fmt.Sprintf("panic at %s #%d (sticky %v)", op, n, sticky)
				r := newFaultRig(t)
				seen := 0
				committed, past := false, false
				r.ffs.SetHook(func(o testutil.Op, name string) error {
					committed = committed || o == testutil.OpRemove && strings.Contains(name, vfs.AsidePrefix)
					if o == op {
						seen++
						if seen == n || (sticky && seen > n) {
							past = past || seen == n && committed
							panic(fmt.Sprintf("injected at %s of %s", o, name))
						}
					}
					return nil
				})
				seq, err := doRecovering(r.e, "s", func(c *Call) error {
					_, err := r.e.Apply(c, faultSpecs(), false)
					return err
				})
				r.ffs.SetHook(nil)
				if past {
					// Past the commit point, in the sync of a deleted file's removal:
					// the call stands.
					if rec := r.record(t, seq); err != nil || rec.State != journal.Committed {
						t.Errorf("%s, past the commit point: got %v, record %s", what, err, rec.State)
					}
					r.landed(t, what)
					runs++
					landed++
					continue
				}
				if err == nil {
					t.Fatalf("%s: no error", what)
				}
				var rec *journal.Record
				r.e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
				if rec == nil {
					t.Fatalf("%s: no record %d", what, seq)
				}
				switch rec.State {
				case journal.Failed:
					r.unchanged(t, what)
				case journal.RolledBack:
					// Left pending, and settled by the recovery that runs when the
					// journal is next opened (here, by the View above).
					pendings++
					r.unchanged(t, what+", after recovery")
				case journal.Pending:
					pendings++
					r.e = r.engine(t) // a new process opens the workspace
					rec = r.record(t, seq)
					r.unchanged(t, what+", after recovery")
					if rec.State != journal.RolledBack {
						t.Errorf("%s: after recovery the record is %s", what, rec.State)
					}
				default:
					t.Errorf("%s: record is %s", what, rec.State)
				}
				runs++
			}
		}
	}
	t.Logf("%d panics injected; %d left the record pending for recovery; %d past the commit point let the call stand", runs, pendings, landed)
	if pendings == 0 {
		t.Error("no panic left a record pending: the sticky cases should")
	}
}

// TestPendingWriteFailsClaimsNoBlob: when the pending record cannot be written, the
// failed record that follows claims no blob that was never stored, and nothing changed.
func TestPendingWriteFailsClaimsNoBlob(t *testing.T) {
	r := newFaultRig(t)
	testHookPending = func() error { return errors.New("disk full") }
	defer func() { testHookPending = nil }()
	seq, err := doRecovering(r.e, "s", func(c *Call) error {
		_, err := r.e.Apply(c, faultSpecs(), false)
		return err
	})
	testutil.WantKind(t, err, errs.IOError)
	testHookPending = nil
	r.unchanged(t, "after a failed pending write")
	rec := r.record(t, seq)
	if rec.State != journal.Failed {
		t.Fatalf("record %s", rec.State)
	}
	claims := 0
	r.e.View(func(tx *journal.Tx) error {
		for _, f := range rec.Files {
			if f.BeforeBlob {
				claims++
				if data, err := tx.Blob(f.Before); data == nil || err != nil {
					t.Errorf("%s: the record claims blob %s, which is not stored: %v", f.Path, f.Before, err)
				}
			}
		}
		if rec.ArgsBlob != "" {
			if data, err := tx.Blob(rec.ArgsBlob); data == nil || err != nil {
				t.Errorf("the record claims args blob %s, which is not stored", rec.ArgsBlob)
			}
		}
		return nil
	})
	t.Logf("%d files of the failed record claim a blob, each stored", claims)
}

// TestRecoveryOfWriteAndCreate: a transaction whose create and whole-file write landed
// before a failure that its rollback could not undo is settled on the next open: the
// written file comes back from its blob, and the created file is removed, with the
// folder the create made.
func TestRecoveryOfWriteAndCreate(t *testing.T) {
	r := newFaultRig(t)
	specs := []Spec{
		{Path: "new/d.txt", Op: journal.OpCreate, Content: []byte("created\n")},
		{Path: "c.txt", Op: journal.OpWrite, Content: []byte("new whole file\n")},
		{Path: "a.txt", Op: journal.OpEdit, Edits: []matcher.Edit{{OldText: "beta", NewText: "BETA"}}},
	}
	renames := 0
	r.ffs.SetHook(func(o testutil.Op, name string) error {
		switch o {
		case testutil.OpRename:
			renames++
			if renames >= 3 { // a.txt, then every rename of the rollback
				return syscall.EIO
			}
		case testutil.OpRemove:
			if !strings.Contains(name, vfs.TempPrefix) {
				return syscall.EIO // the rollback's removal of new/d.txt
			}
		}
		return nil
	})
	seq, err := doRecovering(r.e, "s", func(c *Call) error { _, err := r.e.Apply(c, specs, false); return err })
	testutil.WantKind(t, err, errs.IOError)
	if got, _ := afero.ReadFile(r.mem, "c.txt"); string(got) != "new whole file\n" {
		t.Fatalf("the test meant c.txt to stay written before recovery, it is %q", got)
	}
	if ok, _ := afero.Exists(r.mem, "new/d.txt"); !ok {
		t.Fatal("the test meant new/d.txt to stay created before recovery")
	}
	r.ffs.SetHook(nil)
	r.e = r.engine(t) // a new process opens the workspace
	rec := r.record(t, seq)
	r.unchanged(t, "after recovery")
	notes := strings.Join(rec.Notes, "\n")
	if rec.State != journal.RolledBack || !strings.Contains(notes, "c.txt restored") || !strings.Contains(notes, "new/d.txt removed") ||
		!strings.Contains(notes, "recovery: new/ removed (empty; the call had made it)") {
		t.Errorf("state %s, notes %q", rec.State, notes)
	}
	// The folder the create made goes with it, as an undo would remove it.
	if ok, _ := afero.DirExists(r.mem, "new"); ok {
		t.Error("recovery left the folder new/, which the rolled-back create had made")
	}
}

// TestRecoveryOfDelete: undoing a two-file create removes both files; when the first
// is set aside and the second fails, and so does the rollback's renaming the first
// back, the next open puts it back: the same file, with its own mode.
func TestRecoveryOfDelete(t *testing.T) {
	winetest.NeedPOSIXModes(t, "permission bits (the test checks 0700 is put back)")
	r := newFaultRig(t)
	err := do(r.e, "s", func(c *Call) error {
		_, err := r.e.Apply(c, []Spec{
			{Path: "n1.txt", Op: journal.OpCreate, Content: []byte("one\n")},
			{Path: "n2.txt", Op: journal.OpCreate, Content: []byte("two\n")},
		}, false)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mem.Chmod("n1.txt", 0o700); err != nil { // put back with its own mode
		t.Fatal(err)
	}
	asides := 0
	r.ffs.SetHook(func(o testutil.Op, name string) error {
		switch {
		case o == testutil.OpRename && strings.Contains(name, vfs.AsidePrefix):
			if asides++; asides >= 2 {
				return syscall.EIO // n2.txt stays
			}
		case o == testutil.OpRename && strings.HasSuffix(name, "n1.txt"):
			return syscall.EIO // and the rollback cannot rename n1.txt back
		case o == testutil.OpOpen && strings.Contains(name, vfs.TempPrefix):
			return syscall.EIO // nor make it again
		}
		return nil
	})
	seq, err := doRecovering(r.e, "s", func(c *Call) error { _, err := r.e.Undo(c, UndoOptions{Session: "s"}); return err })
	testutil.WantKind(t, err, errs.IOError)
	if ok, _ := afero.Exists(r.mem, "n1.txt"); ok {
		t.Fatal("the test meant n1.txt to stay removed before recovery")
	}
	r.ffs.SetHook(nil)
	r.e = r.engine(t)
	rec := r.record(t, seq)
	for p, want := range map[string]string{"n1.txt": "one\n", "n2.txt": "two\n"} {
		if got, _ := afero.ReadFile(r.mem, p); string(got) != want {
			t.Errorf("%s after recovery: %q", p, got)
		}
	}
	if rec.State != journal.RolledBack || !strings.Contains(strings.Join(rec.Notes, "\n"), "n1.txt put back") {
		t.Errorf("state %s, notes %q", rec.State, rec.Notes)
	}
	if fi, err := r.mem.Stat("n1.txt"); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("n1.txt put back with mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}

// TestRollbackLeavesAFolderSomeoneElseMade: the folder new/ is missing when the call's
// record is written, then someone else makes it before the create runs, and the create
// fails: at its temp file, or at its folder's sync after the rename. The rollback
// leaves no new/d.txt, and leaves new/, which the call did not make.
func TestRollbackLeavesAFolderSomeoneElseMade(t *testing.T) {
	for _, fail := range []struct {
		op   testutil.Op
		name func(string) bool
	}{
		{testutil.OpOpen, func(n string) bool { return strings.HasPrefix(n, "new/"+vfs.TempPrefix) }},
		{testutil.OpSync, func(n string) bool { return n == "new" }},
	} {
		r := newFaultRig(t)
		made, failed := false, false
		r.ffs.SetHook(func(o testutil.Op, name string) error {
			name = path.Clean(strings.TrimPrefix(name, "/"))
			if o == testutil.OpRename && name == "c.txt" && !made {
				made = true // as c.txt lands, before the create; not again in the rollback
				r.mem.Mkdir("new", 0o755)
			}
			if o == fail.op && fail.name(name) && !failed {
				failed = true // the create's; the rollback's own succeed
				return syscall.EIO
			}
			return nil
		})
		seq, err := r.apply()
		r.ffs.SetHook(nil)
		if !failed || errs.KindOf(err) != errs.IOError {
			t.Fatalf("%s fails: got %v, want io_error", fail.op, err)
		}
		if rec := r.record(t, seq); rec.State != journal.Failed {
			t.Errorf("%s fails: the record is %s", fail.op, rec.State)
		}
		if ok, _ := afero.Exists(r.mem, "new/d.txt"); ok {
			t.Errorf("%s fails: new/d.txt was left behind", fail.op)
		}
		if ok, _ := afero.DirExists(r.mem, "new"); !ok {
			t.Errorf("%s fails: the rollback removed new/, which someone else made", fail.op)
		}
	}
}
