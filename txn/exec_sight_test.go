package txn

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// recordOf is record seq as the journal holds it.
func recordOf(t *testing.T, e *Engine, seq uint64) *journal.Record {
	t.Helper()
	var r *journal.Record
	e.View(func(tx *journal.Tx) error { r, _ = tx.Get(seq); return nil })
	if r == nil {
		t.Fatalf("no record %d", seq)
	}
	return r
}

func undoSeq(e *Engine, seq uint64) error {
	return do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{Seq: seq})
		return err
	})
}

// An exec that changes .gitignore: a file it stops ignoring was the user's, not made
// by the command, and one it starts ignoring is still there, not deleted. The undo of
// the exec removes only what the command made and is not refused; the user's files
// are kept (and one it removed comes back), whether the exec ended, vfsctl stopped while it ran (recovery records it),
// or the .gitignore was changed by hand (an outside record).
func TestExecThatChangesGitignore(t *testing.T) {
	files := map[string]string{
		".gitignore":      "secret.txt\nbuild/\n",
		"secret.txt":      "the user's, ignored\n",
		"build/out.o":     "the user's build\n",
		"notes.txt":       "the user's notes\n",
		"sub/.gitignore":  "",
		"sub/private.txt": "the user's, seen\n",
	}
	// secret.txt and build/out.o come into sight, sub/private.txt goes out of it;
	// notes.txt goes out of sight removed, a delete.
	script := "echo notes.txt > .gitignore && rm notes.txt && echo made > made.txt && echo private.txt > sub/.gitignore"
	// The oracle: the user's files as the test wrote them, and what the command made.
	check := func(t *testing.T, e *Engine, dir string, seq uint64) {
		t.Helper()
		r := recordOf(t, e, seq)
		var paths []string
		for _, f := range r.Files {
			paths = append(paths, f.Path+":"+string(f.Op))
		}
		slices.Sort(paths)
		want := []string{".gitignore:edit", "made.txt:create", "notes.txt:delete", "sub/.gitignore:edit"}
		if !slices.Equal(paths, want) {
			t.Errorf("the record's files: %v, want %v", paths, want)
		}
		if err := undoSeq(e, seq); err != nil {
			t.Fatalf("undo of the exec: %v", err)
		}
		for p, want := range files {
			if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(got) != want {
				t.Errorf("%s after the undo: %q, %v; want %q", p, got, err, want)
			}
		}
		if _, err := os.Lstat(filepath.Join(dir, "made.txt")); !os.IsNotExist(err) {
			t.Errorf("made.txt after the undo: %v, want it removed", err)
		}
		// The next look after the undo (the rules are back) records nothing.
		look, err := e.CheckpointOutside(LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if look.Seq != 0 {
			t.Errorf("the look after the undo journaled %+v", look.Files)
		}
	}
	t.Run("ended", func(t *testing.T) {
		e, dir := diskEngineWith(t, files, Options{NoSync: true})
		defer e.Close()
		look := runExec(t, e, dir, "s", script)
		check(t, e, dir, look.Seq)
	})
	t.Run("stopped", func(t *testing.T) {
		e, dir := diskEngineWith(t, files, Options{NoSync: true})
		x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sh", "-c", script}, Cwd: "."}, LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		runScript(t, dir, script)
		e.Close()
		e2 := diskEngineOn(t, dir, Options{NoSync: true})
		defer e2.Close()
		check(t, e2, dir, x.Seq())
	})
	t.Run("outside", func(t *testing.T) {
		e, dir := diskEngineWith(t, files, Options{NoSync: true})
		defer e.Close()
		if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
			t.Fatal(err)
		}
		runScript(t, dir, script)
		look, err := e.CheckpointOutside(LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		check(t, e, dir, look.Seq)
	})
}

func runScript(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
}
