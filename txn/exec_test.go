package txn

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// runExec runs a shell script in dir as an exec of session s.
func runExec(t *testing.T, e *Engine, dir, s, script string) *Look {
	t.Helper()
	x, err := e.BeginExec(s, "t1", ExecArgs{Argv: []string{"sh", "-c", script}, Cwd: "."}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	return look
}

// A file changed by hand before a command is journaled as outside, not as the
// command's; undoing the command's change of a text file reverts only its lines, so a
// later call's change on other lines of the same file stays.
func TestExecRecordsOutsideApartAndUndoesByLines(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n", "hand.txt": "mine\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hand.txt"), []byte("mine, edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	look := runExec(t, e, dir, "s", "sed -i 's/four/FOUR/' f.txt")
	if len(look.Files) != 1 || look.Files[0].Path != "f.txt" || look.Files[0].Op != journal.OpEdit {
		t.Fatalf("the exec's files: %+v, want f.txt edited only", look.Files)
	}
	var outside *journal.Record
	e.View(func(tx *journal.Tx) error {
		outside, _ = tx.Get(look.Seq - 1)
		return nil
	})
	if outside == nil || outside.Tool != ToolOutside || outside.OriginOf() != OriginOutside || len(outside.Files) != 1 || outside.Files[0].Path != "hand.txt" {
		t.Fatalf("the record before the exec: %+v, want hand.txt as outside", outside)
	}
	// Another session edits line 1 after the command.
	if err := edit(e, "other", "f.txt", "one\n", "ONE\n"); err != nil {
		t.Fatal(err)
	}
	if err := do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: look.Seq})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
	if string(got) != "ONE\ntwo\nthree\nfour\nfive\n" {
		t.Errorf("after undoing the exec: %q, want the other session's line 1 kept and line 4 back", got)
	}
	hand, _ := os.ReadFile(filepath.Join(dir, "hand.txt"))
	if string(hand) != "mine, edited by hand\n" {
		t.Errorf("hand.txt: %q", hand)
	}
}
