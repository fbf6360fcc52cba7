//go:build !windows

package txn

import (
	"os/exec"
	"testing"
)

// A folder recorded with bits that deny its owner writing (chmod 555) comes back,
// by an undo or a rewind of its removal, with its files and folders in it and those
// bits: they are set once what it holds is back, deepest first. Before, the folder
// was made with them before what it holds, and for a user who is not root (root
// ignores the bits) the undo failed at the first folder or file in it. It runs as
// nobody when the test runs as root.
func TestUndoRemakesAReadOnlyFolderWithItsFiles(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	for _, how := range []string{"undo", "rewind"} {
		e, dir := diskEngineWith(t, map[string]string{"keep.txt": "k\n"}, Options{NoSync: true})
		writableAgain(t, dir)
		if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
			t.Fatal(err)
		}
		execTurn(t, e, dir, "t1", "mkdir -p ro/sub && echo x > ro/f && echo y > ro/sub/g && ln -s f ro/link && chmod 555 ro/sub ro")
		made := tree(t, dir)
		if made["ro/"] != "dir 0555" || made["ro/sub/"] != "dir 0555" || made["ro/link"] != "-> f" {
			t.Fatalf("the first command left %v", made)
		}
		gone := execTurn(t, e, dir, "t2", "chmod 755 ro ro/sub && rm -rf ro")
		if got := tree(t, dir); got["ro/"] != "" {
			t.Fatalf("the second command left %v", got)
		}
		var err error
		if how == "undo" {
			err = undoSeq(e, gone.Seq)
		} else {
			err = rewindTo(e, "s", "t2", false)
		}
		if err != nil {
			t.Fatalf("the %s of the removal: %v", how, err)
		}
		if got := tree(t, dir); !same(got, made) {
			t.Fatalf("after the %s of the removal:\n got  %v\n want %v", how, got, made)
		}
		e.Close()
	}
}

// execTurn runs a shell script in dir as an exec of session s in turn.
func execTurn(t *testing.T, e *Engine, dir, turn, script string) *Look {
	t.Helper()
	x, err := e.BeginExec("s", turn, ExecArgs{Argv: []string{"sh", "-c", script}, Cwd: "."}, LookOptions{})
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
