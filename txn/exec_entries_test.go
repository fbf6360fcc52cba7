package txn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
)

// entryState is what stands at p: a folder with its bits, a symlink with its target,
// a file, or nothing.
func entryState(t *testing.T, dir, p string) string {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(dir, p))
	switch {
	case err != nil:
		return "none"
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(filepath.Join(dir, p))
		return "symlink " + target
	case fi.IsDir():
		return "dir " + fi.Mode().Perm().String()
	}
	return "file"
}

// The folders and symlinks a command makes, removes, retargets or gives other bits
// are recorded, and undoing the command puts each back (a removed folder with its
// bits); redoing it does the command's work again. A symlink that someone retargeted
// since refuses the undo, naming it, and nothing is written.
func TestExecFoldersAndSymlinksAreUndone(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "keep/k.txt": "k\n"}, Options{NoSync: true})
	defer e.Close()
	os.Mkdir(filepath.Join(dir, "gone"), 0o700)
	os.Symlink("a.txt", filepath.Join(dir, "old"))
	os.Chmod(filepath.Join(dir, "keep"), 0o755)
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	paths := []string{"empty", "link", "gone", "old", "keep"}
	state := func() map[string]string {
		m := map[string]string{}
		for _, p := range paths {
			m[p] = entryState(t, dir, p)
		}
		return m
	}
	before := state()
	look := runExec(t, e, dir, "s", "mkdir empty && ln -s a.txt link && rmdir gone && ln -sfn b.txt old && chmod 0700 keep")
	if len(look.Entries) != 5 {
		t.Fatalf("the exec's entries: %+v, want 5", look.Entries)
	}
	after := state()
	var undo uint64
	if err := do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: look.Seq})
		undo = c.Seq()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := state(); !same(got, before) {
		t.Fatalf("after the undo:\n got  %v\n want %v", got, before)
	}
	if next, err := e.CheckpointOutside(LookOptions{}); err != nil || next.Seq != 0 {
		t.Errorf("the look after the undo recorded %+v (%v), want nothing: the undo's work is no outside change", next, err)
	}
	var redo uint64
	if err := do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: undo, Redo: true})
		redo = c.Seq()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := state(); !same(got, after) {
		t.Fatalf("after the redo:\n got  %v\n want %v", got, after)
	}
	// Someone retargets the command's symlink: the undo refuses, naming the call that
	// left it (the redo), and writes nothing.
	os.Remove(filepath.Join(dir, "link"))
	os.Symlink("b.txt", filepath.Join(dir, "link"))
	now := state()
	err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Seq: look.Seq}); return err })
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("link is no longer as call %d left it (a symlink to a.txt): it is a symlink to b.txt now", redo)) {
		t.Fatalf("undo past a retargeted symlink: %v", err)
	}
	if got := state(); !same(got, now) {
		t.Fatalf("the refused undo changed the tree:\n got  %v\n want %v", got, now)
	}
	var rec *journal.Record
	e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(look.Seq); return nil })
	if rec == nil || len(rec.Entries) != 5 {
		t.Errorf("the record's entries: %+v", rec)
	}
}

// A rewind of a turn whose command's change another session then changed again on
// the same line, or whose symlink someone retargeted, is refused, naming the path,
// and writes nothing: not the file, not the command's folder and symlink.
func TestRewindPastAnOverlapWritesNothing(t *testing.T) {
	for _, tc := range []struct{ name, want string }{{"line", "f.txt"}, {"symlink", "link is no longer as the calls rewound left it"}} {
		t.Run(tc.name, func(t *testing.T) {
			winetest.NeedPOSIXShell(t)
			e, dir := diskEngineWith(t, map[string]string{"f.txt": "one\ntwo\nthree\n"}, Options{NoSync: true})
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			x, err := e.BeginExec("agent", "t1", ExecArgs{Argv: []string{"sh"}}, LookOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", "sed -i 1s/.*/sed/ f.txt && ln -s f.txt link && mkdir e")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s %v", out, err)
			}
			if _, err := x.End("exit 0"); err != nil {
				t.Fatal(err)
			}
			if tc.name == "line" {
				if err := edit(e, "other", "f.txt", "sed\n", "other\n"); err != nil {
					t.Fatal(err)
				}
			} else {
				os.Remove(filepath.Join(dir, "link"))
				os.Symlink("elsewhere", filepath.Join(dir, "link"))
			}
			now := tree(t, dir)
			err = do(e, "op", func(c *Call) error {
				_, err := e.Rewind(c, RewindOptions{Session: "agent", Turn: "t1"})
				return err
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("rewind past the overlap: %v, want a refusal naming %q", err, tc.want)
			}
			if got := tree(t, dir); !same(got, now) {
				t.Fatalf("the refused rewind changed the tree:\n got  %v\n want %v", got, now)
			}
		})
	}
}
