package txn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
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

// moveSpecs move old/m.txt into a folder that does not exist yet.
func moveSpecs() []Spec {
	return []Spec{
		{Path: "old/m.txt", Op: journal.OpDelete},
		{Path: "sub/new/m.txt", Op: journal.OpCreate, From: "old/m.txt"},
	}
}

// moveWorkspace is a workspace on disk where old/m.txt has a second hard link,
// old/m.link; it returns the file's inode.
func moveWorkspace(t *testing.T) (string, uint64) {
	t.Helper()
	dir := testutil.Workspace(t, map[string]string{"old/m.txt": "moved\n", "a.txt": "alpha\n"})
	if err := os.Link(filepath.Join(dir, "old/m.txt"), filepath.Join(dir, "old/m.link")); err != nil {
		t.Fatal(err)
	}
	return dir, testutil.Nodes(t, dir)["old/m.txt"].Ino
}

// wantFileAt checks that the moved file is at p and only there: the inode ino, still
// shared with old/m.link, with its content; the other path absent, and no file set
// aside or temp file left anywhere.
func wantFileAt(t *testing.T, dir, p string, ino uint64, what string) {
	t.Helper()
	nodes := testutil.Nodes(t, dir)
	n, ok := nodes[p]
	if !ok || n.Ino != ino || n.Links != 2 || nodes["old/m.link"].Ino != ino {
		t.Errorf("%s: %s is %v (there: %v), want inode %d with 2 links, shared with old/m.link (%v)", what, p, n, ok, ino, nodes["old/m.link"])
	}
	if b, _ := os.ReadFile(filepath.Join(dir, p)); string(b) != "moved\n" {
		t.Errorf("%s: %s holds %q", what, p, b)
	}
	for _, q := range []string{"old/m.txt", "sub/new/m.txt"} {
		if _, there := nodes[q]; q != p && there {
			t.Errorf("%s: %s is there too", what, q)
		}
	}
	for q := range nodes {
		if strings.Contains(q, vfs.AsidePrefix) || strings.Contains(q, vfs.TempPrefix) {
			t.Errorf("%s: %s left behind", what, q)
		}
	}
}

// A move renames the file: a hard link to it still shares its inode after the move,
// after its undo and after the redo. An undo is refused as a conflict, changing
// nothing, when the old path is taken or the file at the new path changed.
func TestMoveKeepsTheInode(t *testing.T) {
	dir, ino := moveWorkspace(t)
	e := diskEngineOn(t, dir, Options{})
	step := func(_ string, fn func(c *Call) error) error { return do(e, "s", fn) }
	undo := func(c *Call) error { _, err := e.Undo(c, UndoOptions{Session: "s"}); return err }
	if err := step("move", func(c *Call) error { _, err := e.Apply(c, moveSpecs(), false); return err }); err != nil {
		t.Fatal(err)
	}
	wantFileAt(t, dir, "sub/new/m.txt", ino, "after the move")
	if err := step("undo", undo); err != nil {
		t.Fatal(err)
	}
	wantFileAt(t, dir, "old/m.txt", ino, "after the undo")
	if _, err := os.Stat(filepath.Join(dir, "sub")); !os.IsNotExist(err) {
		t.Errorf("after the undo, the folders the move made are still there: %v", err)
	}
	if err := step("redo", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Session: "s", Redo: true}); return err }); err != nil {
		t.Fatal(err)
	}
	wantFileAt(t, dir, "sub/new/m.txt", ino, "after the redo")

	// The old path taken by someone else: the undo would have to overwrite it.
	testutil.WriteFile(t, filepath.Join(dir, "old/m.txt"), "someone else's\n")
	taken := testutil.Nodes(t, dir)
	testutil.WantKind(t, step("undo onto a taken path", undo), errs.Conflict)
	for _, d := range testutil.SameNodes(taken, testutil.Nodes(t, dir)) {
		t.Errorf("a refused undo changed the workspace: %s", d)
	}
	os.Remove(filepath.Join(dir, "old/m.txt"))

	// The file changed in place at its new path (the same inode, other content).
	if err := os.WriteFile(filepath.Join(dir, "sub/new/m.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := testutil.Nodes(t, dir)
	testutil.WantKind(t, step("undo of a changed file", undo), errs.Conflict)
	for _, d := range testutil.SameNodes(changed, testutil.Nodes(t, dir)) {
		t.Errorf("a refused undo changed the workspace: %s", d)
	}
}

// killMoveChild opens the workspace dir (journal at jpath) through a FaultFs and
// moves old/m.txt (what "move") or undoes that move (what "undo"), killing itself
// with SIGKILL at its nth change to the disk; with n 0 it prints how many changes the
// call took.
func killMoveChild(dir, jpath, what, n string) {
	kill, _ := strconv.Atoi(n)
	ffs := &testutil.FaultFs{Fs: afero.NewBasePathFs(afero.NewOsFs(), dir)}
	e, err := Open(vfs.New(ffs, vfs.Options{}), Options{JournalPath: jpath, CheckpointInterval: -1})
	if err != nil {
		fmt.Println("err", err)
		os.Exit(3)
	}
	steps := killAtChange(ffs, kill)
	err = do(e, "s", func(c *Call) error {
		if what == "undo" {
			_, err := e.Undo(c, UndoOptions{Session: "s"})
			return err
		}
		_, err := e.Apply(c, moveSpecs(), false)
		return err
	})
	fmt.Println("steps", *steps, err)
}

// TestKillAtEachStepOfMoveKeepsTheInode kills a process (SIGKILL) at each change to
// the disk of a move, and of the undo of a move, of a file with a second hard link,
// then opens the workspace again. Whether recovery rolls the call back or forward,
// the file is at one of its two paths, the same inode still shared with its link, and
// nothing is left set aside.
func TestKillAtEachStepOfMoveKeepsTheInode(t *testing.T) {
	for _, what := range []string{"move", "undo"} {
		t.Run(what, func(t *testing.T) {
			rig := func() (string, string, uint64) {
				dir, ino := moveWorkspace(t)
				jpath := t.TempDir() + "/journal.db"
				if what == "undo" {
					e, err := Open(vfs.New(afero.NewBasePathFs(afero.NewOsFs(), dir), vfs.Options{}), Options{JournalPath: jpath})
					if err != nil {
						t.Fatal(err)
					}
					if err := do(e, "s", func(c *Call) error { _, err := e.Apply(c, moveSpecs(), false); return err }); err != nil {
						t.Fatal(err)
					}
					e.Close()
				}
				return dir, jpath, ino
			}
			run := func(dir, jpath string, n int) string {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "VFSCTL_CHILD=killmove", "VFSCTL_DIR="+dir, "VFSCTL_JOURNAL="+jpath,
					"VFSCTL_WHAT="+what, "VFSCTL_N="+strconv.Itoa(n))
				out, err := cmd.Output()
				killed := killedSelf(err)
				if n > 0 && !killed || n == 0 && err != nil {
					t.Fatalf("the child killed at change %d: %v, %s", n, err, out)
				}
				return string(out)
			}
			dir, jpath, _ := rig()
			var total int
			if _, err := fmt.Sscanf(run(dir, jpath, 0), "steps %d <nil>", &total); err != nil || total == 0 {
				t.Fatalf("a clean run: %v", err)
			}
			before, after := "old/m.txt", "sub/new/m.txt"
			if what == "undo" {
				before, after = after, before
			}
			counts := map[string]int{}
			for n := 1; n <= total; n++ {
				at := fmt.Sprintf("%s killed at change %d of %d", what, n, total)
				dir, jpath, ino := rig()
				run(dir, jpath, n)
				e, err := Open(vfs.New(afero.NewBasePathFs(afero.NewOsFs(), dir), vfs.Options{}), Options{JournalPath: jpath})
				if err != nil {
					t.Fatalf("%s: recovery: %v", at, err)
				}
				var rec *journal.Record
				e.View(func(tx *journal.Tx) error {
					if p := tx.Pending(); len(p) > 0 {
						t.Errorf("%s: calls %v still pending", at, p)
					}
					rec, _ = tx.Get(tx.Last())
					return nil
				})
				e.Close()
				state := "none"
				if rec != nil && (rec.Undo != 0 || what == "move") {
					state = string(rec.State)
				}
				counts[state]++
				switch state {
				case "none", string(journal.RolledBack):
					wantFileAt(t, dir, before, ino, at)
				case string(journal.Committed):
					wantFileAt(t, dir, after, ino, at)
				default:
					t.Errorf("%s: the call is %s after recovery", at, state)
				}
			}
			t.Logf("%d kills: %v", total, counts)
		})
	}
}

// A call killed after its move renamed the file, rolled back by recovery after
// someone made the old path again: the moved file stays at its new path, the same
// inode, rather than be dropped beside theirs.
func TestRecoveryKeepsAMovedFileWhenItsOldPathIsTaken(t *testing.T) {
	var total int
	if _, err := fmt.Sscanf(killAt(t, newFaultRig(t), 0), "steps %d <nil>", &total); err != nil || total == 0 {
		t.Fatalf("a clean run: %v", err)
	}
	for n := 1; n <= total; n++ {
		r := newFaultRig(t)
		killAt(t, r, n)
		now := testutil.Nodes(t, r.dir)
		_, moved := now["moved/m.txt"]
		_, old := now["old/m.txt"]
		if !moved || old || now["b.txt"].Sum != r.before["b.txt"].Sum {
			continue // not between the move's rename and the end of the call
		}
		testutil.WriteFile(t, filepath.Join(r.dir, "old/m.txt"), "someone else's\n")
		r.e = r.engine(t)
		rec := r.record(t, 2) // its first use: recovery rolls the call back
		if rec.State != journal.RolledBack {
			t.Errorf("killed at change %d: the call is %s, notes %q", n, rec.State, rec.Notes)
		}
		after := testutil.Nodes(t, r.dir)
		if m, was := after["moved/m.txt"], r.before["old/m.txt"]; m.Ino != was.Ino || m.Links != 2 {
			t.Errorf("killed at change %d of %d: moved/m.txt is %v (there: %v), want old/m.txt's inode %d with its link", n, total, m, m.Ino != 0, was.Ino)
		}
		if got := testutil.ReadFile(t, filepath.Join(r.dir, "old/m.txt")); got != "someone else's\n" {
			t.Errorf("killed at change %d: old/m.txt is %q", n, got)
		}
		return
	}
	t.Fatal("no kill fell between the move's rename and the end of the call")
}
