package txn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// giveAway makes the file at p look like someone else's program: owned by another
// user (when the test runs as root), with the given mode (setuid where it says so),
// an extended attribute and a modification time in the past. The owner goes first: a
// chown clears the setuid bit.
func giveAway(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if os.Geteuid() == 0 {
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := setTestXattr(p); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

// asideSpecs deletes bin/tool, moves src/x.txt to dst/y.txt, and then edits failing,
// which the test makes fail when its turn comes.
func asideSpecs(failing string) []Spec {
	return []Spec{
		{Path: "bin/tool", Op: journal.OpDelete},
		{Path: "src/x.txt", Op: journal.OpDelete},
		{Path: "dst/y.txt", Op: journal.OpCreate, From: "src/x.txt"},
		{Path: failing, Op: journal.OpEdit, Edits: []matcher.Edit{{OldText: "alpha", NewText: "ALPHA"}}},
	}
}

// asideWorkspace is a workspace on disk where bin/tool is a setuid program of another
// user with a second hard link, bin/tool.link, and src/x.txt another user's file.
func asideWorkspace(t *testing.T) (*Engine, string) {
	e, dir := diskEngine(t, map[string]string{
		"bin/tool": "#!/bin/sh\necho tool\n", "src/x.txt": "moved\n", "a.txt": "alpha\n", "imm/f.txt": "alpha\n",
	})
	if err := os.Link(filepath.Join(dir, "bin/tool"), filepath.Join(dir, "bin/tool.link")); err != nil {
		t.Fatal(err)
	}
	giveAway(t, filepath.Join(dir, "bin/tool"), 0o755|os.ModeSetuid)
	giveAway(t, filepath.Join(dir, "src/x.txt"), 0o640)
	return e, dir
}

// TestRefusedCallKeepsDeletedAndMovedFiles: a call that deletes a file and moves
// another, then fails on a later change, leaves both as they were: the same inode,
// with its links, mode (setuid included), owner, modification time and extended
// attributes, not a copy re-created from the journal. The later change fails as
// another process changes its file meanwhile, or (where the filesystem and the user
// allow chattr) as its folder is immutable.
func TestRefusedCallKeepsDeletedAndMovedFiles(t *testing.T) {
	for _, how := range []string{"changed meanwhile", "immutable folder"} {
		t.Run(how, func(t *testing.T) {
			e, dir := asideWorkspace(t)
			failing, want := "a.txt", errs.Conflict
			if how == "immutable folder" {
				failing, want = "imm/f.txt", errs.PermissionDenied
				imm := filepath.Join(dir, "imm")
				if out, err := exec.Command("chattr", "+i", imm).CombinedOutput(); err != nil {
					t.Skipf("chattr +i: %v %s", err, out)
				}
				t.Cleanup(func() { exec.Command("chattr", "-i", imm).Run() })
			} else {
				testHookHash = func(ch *Change) {
					if ch.Path == "a.txt" {
						os.WriteFile(filepath.Join(dir, "a.txt"), []byte("someone else's\n"), 0o644)
					}
				}
				t.Cleanup(func() { testHookHash = nil })
			}
			before := testutil.Nodes(t, dir)
			delete(before, "a.txt") // the other process changes it
			var seq uint64
			err := do(e, "s", func(c *Call) error {
				_, err := e.Apply(c, asideSpecs(failing), false)
				seq = c.Seq()
				return err
			})
			testutil.WantKind(t, err, want)
			after := testutil.Nodes(t, dir)
			delete(after, "a.txt")
			for _, d := range testutil.SameNodes(before, after) {
				t.Error(d)
			}
			if after["bin/tool"].Ino != after["bin/tool.link"].Ino {
				t.Errorf("bin/tool and its hard link bin/tool.link are two files now: %v, %v", after["bin/tool"], after["bin/tool.link"])
			}
			var rec *journal.Record
			e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
			if rec == nil || rec.State != journal.Failed {
				t.Errorf("the record is %v, want failed", rec)
			}
		})
	}
}

// killAtChange makes the process kill itself with SIGKILL at its kill-th change to
// the disk through ffs (reads do not count); the count so far is at the pointer.
func killAtChange(ffs *testutil.FaultFs, kill int) *int {
	steps := 0
	ffs.SetHook(func(o testutil.Op, name string) error {
		if o == testutil.OpOpen && !strings.Contains(name, vfs.TempPrefix) {
			return nil // a read
		}
		if steps++; steps == kill {
			killSelf()
			select {}
		}
		return nil
	})
	return &steps
}

// killChild makes the call of faultSpecs in the workspace dir, with the journal at
// jpath, as session s (which has read c.txt), and kills itself with SIGKILL at its nth
// change to the disk (a write, sync, rename, mkdir, removal or change of mode, or the
// creation of a temp file). With n 0 it makes the whole call and prints how many
// changes that took.
func killChild(dir, jpath, n string) {
	kill, _ := strconv.Atoi(n)
	ffs := &testutil.FaultFs{Fs: afero.NewBasePathFs(afero.NewOsFs(), dir)}
	e, err := Open(vfs.New(ffs, vfs.Options{}), Options{JournalPath: jpath, Durability: Durability(os.Getenv("VFSCTL_DURABILITY")),
		CheckpointInterval: -1})
	if err != nil {
		fmt.Println("err", err)
		os.Exit(3)
	}
	steps := killAtChange(ffs, kill)
	err = do(e, "s", func(c *Call) error { _, err := e.Apply(c, faultSpecs(), false); return err })
	fmt.Println("steps", *steps, err)
}

// killAt runs killChild over r's workspace, to be killed at its nth change (0: never),
// and returns what it printed.
func killAt(t *testing.T, r *faultRig, n int) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VFSCTL_CHILD=killstep", "VFSCTL_DIR="+r.dir, "VFSCTL_JOURNAL="+r.journal,
		"VFSCTL_N="+strconv.Itoa(n), "VFSCTL_DURABILITY="+string(faultDurability))
	out, err := cmd.Output()
	killed := killedSelf(err)
	if n > 0 && !killed || n == 0 && err != nil {
		t.Fatalf("the child killed at change %d: %v, %s", n, err, out)
	}
	return string(out)
}

// TestKillAtEachStepOfDeleteAndMove kills a process (SIGKILL) at each change to the
// disk of the call of faultSpecs, which deletes gone.txt (a setuid program of another
// user, with a second hard link) and moves old/m.txt, then opens the workspace again.
// Recovery settles the call as it settles any other: rolled back, the deleted and the
// moved file are back as the same inodes, links, mode, owner, times and extended
// attributes, and nothing is left behind, no file set aside included; rolled forward,
// the call's changes are all there, and nothing set aside is left either. In both
// durability modes.
func TestKillAtEachStepOfDeleteAndMove(t *testing.T) {
	modes := []Durability{DurableFile, DurableJournal}
	if !full() {
		modes = modes[:1]
	}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			faultDurability = mode
			defer func() { faultDurability = "" }()
			var total int
			if _, err := fmt.Sscanf(killAt(t, newFaultRig(t), 0), "steps %d <nil>", &total); err != nil || total == 0 {
				t.Fatalf("a clean run: %v", err)
			}
			counts := map[journal.State]int{}
			for n := 1; n <= total; n++ {
				what := fmt.Sprintf("killed at change %d of %d", n, total)
				r := newFaultRig(t)
				killAt(t, r, n)
				r.e = r.engine(t) // the next process: its first use recovers
				var rec *journal.Record
				err := r.e.View(func(tx *journal.Tx) error {
					if p := tx.Pending(); len(p) > 0 {
						t.Errorf("%s: calls %v still pending", what, p)
					}
					if last := tx.Last(); last > 1 { // call 1 is the rig's read
						rec, _ = tx.Get(last)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("%s: recovery: %v", what, err)
				}
				switch {
				case rec == nil: // killed before its pending record
					counts["none"]++
					r.unchanged(t, what)
				case rec.State == journal.RolledBack:
					counts[rec.State]++
					r.unchanged(t, what)
				case rec.State == journal.Committed:
					counts[rec.State]++
					r.landed(t, what)
				default:
					t.Errorf("%s: the call is %s after recovery", what, rec.State)
				}
			}
			t.Logf("%d kills: %v", total, counts)
		})
	}
}
