package txn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/vfs"
)

// A pending record crafted by someone who can write the workspace (or that arrived
// with it) must not make recovery write where a call could not: into .git directly,
// through a folder that is a symlink into .git, or a file put back there by a
// "deletion" to roll back. Each record also names a plain file at its prior content,
// so recovery would roll back, restoring the crafted prior content.
func TestRecoveryObeysTheRulesOfACall(t *testing.T) {
	winetest.NeedSymlinks(t) // the attack goes through a symlink to .git
	benign := "[core]\n\tbare = false\n"
	evil := "[core]\n\tfsmonitor = touch /tmp/pwned\n"
	hook := "#!/bin/sh\ntouch /tmp/pwned\n"
	dir := testutil.Workspace(t, map[string]string{
		".git/config": benign,
		"x.txt":       "x\n",
		"y.txt":       "y\n",
		"z.txt":       "z\n",
	})
	if err := os.Symlink(".git", filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	// The workspace's own journal, made by a harmless call, as vfsctl makes it.
	fsys, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() }) // a folder held open cannot be removed on Windows
	e, err := Open(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.Begin("s", "read_file", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Read(c, "x.txt")
	if err := c.Finish(err); err != nil {
		t.Fatal(err)
	}
	// Then records written into it by someone else.
	j := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	at := func(p, content string) journal.File {
		return journal.File{Path: p, Op: journal.OpEdit, Before: journal.Hash([]byte(content)), After: journal.Hash([]byte(content + "more\n"))}
	}
	err = j.Update(func(tx *journal.Tx) error {
		for _, data := range []string{evil, hook} {
			if _, err := tx.PutBlob([]byte(data)); err != nil {
				return err
			}
		}
		recs := []*journal.Record{
			{Tool: "apply_changes", Files: []journal.File{{Path: ".git/config", Op: journal.OpWrite, Before: journal.Hash([]byte(evil)), After: journal.Hash([]byte(benign))}, at("x.txt", "x\n")}},
			{Tool: "apply_changes", Files: []journal.File{{Path: "a/config", Op: journal.OpWrite, Before: journal.Hash([]byte(evil)), After: journal.Hash([]byte(benign))}, at("y.txt", "y\n")}},
			{Tool: "apply_changes", Files: []journal.File{{Path: "a/hooks/pre-commit", Op: journal.OpDelete, Before: journal.Hash([]byte(hook))}, at("z.txt", "z\n")}},
			{Tool: "apply_changes", Files: []journal.File{{Path: "../outside.txt", Op: journal.OpDelete, Before: journal.Hash([]byte(hook))}, at("z.txt", "z\n")}},
		}
		for _, r := range recs {
			r.Time, r.Session, r.State = time.Now(), "attacker", journal.Pending
			if err := tx.Put(r); err != nil {
				return err
			}
		}
		return nil
	})
	j.Release()
	if err != nil {
		t.Fatal(err)
	}

	// The next command (an operator's log) opens the journal and recovers.
	e2, err := Open(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	err = e2.View(func(tx *journal.Tx) error {
		if p := tx.Pending(); len(p) != 0 {
			t.Errorf("records still pending: %v", p)
		}
		for seq := uint64(1); seq <= tx.Last(); seq++ {
			if r, _ := tx.Get(seq); r != nil {
				notes = append(notes, r.Notes...)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, ".git/config")); got != benign {
		t.Errorf(".git/config was written by recovery: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git/hooks/pre-commit")); err == nil {
		t.Error("recovery put a hook in .git/hooks")
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(dir), "outside.txt")); err == nil {
		t.Error("recovery wrote outside the workspace")
	}
	for _, p := range []string{"x.txt", "y.txt", "z.txt"} {
		if got := testutil.ReadFile(t, filepath.Join(dir, p)); got != strings.TrimSuffix(p, ".txt")+"\n" {
			t.Errorf("%s is %q", p, got)
		}
	}
	untrusted := 0
	for _, n := range notes {
		if strings.Contains(n, "not a path a call could write") {
			untrusted++
		}
	}
	if untrusted != 4 {
		t.Errorf("%d notes name an untouched path, want 4: %q", untrusted, notes)
	}
}
