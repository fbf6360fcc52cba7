package txn

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
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
	if err := unix.Setxattr(p, "user.vfsctl-test", []byte("kept"), 0); err != nil && err != unix.ENOTSUP {
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
