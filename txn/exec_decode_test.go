package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// A look after a rewind of many files decodes the rewind's record once, not once per
// path it names: a look holds the journal, and decoding a record of n files n times
// made the next checkpoint after a big rewind take minutes, with every other process
// turned away meanwhile. The same holds for a command's look while a rewind of
// another session commits.
func TestLookDecodesEachRecordOnce(t *testing.T) {
	const n = 300
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("d/f%d", i)] = fmt.Sprintf("%d\n", i)
	}
	e, dir := diskEngineWith(t, files, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	runExec(t, e, dir, "s", "rm -rf d")
	rewind := func() {
		t.Helper()
		if err := do(e, "op", func(c *Call) error {
			_, err := e.Rewind(c, RewindOptions{Session: "s", Turn: "t1"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	rewind()
	if _, err := os.Stat(filepath.Join(dir, "d/f7")); err != nil {
		t.Fatalf("the rewind did not bring d/f7 back: %v", err)
	}
	before := journal.RecordsDecoded()
	look, err := e.CheckpointOutside(LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	decoded := journal.RecordsDecoded() - before
	t.Logf("the look after a rewind of %d files decoded %d records", n, decoded)
	if decoded > n/10 {
		t.Errorf("the look after a rewind of %d files decoded %d records", n, decoded)
	}
	if look.Seq != 0 || len(look.Files) != 0 {
		t.Errorf("the rewind's files were taken for outside changes: record %d, %d files", look.Seq, len(look.Files))
	}

	// The rewind is undone, then a command of another session runs: its looks (the
	// one before it, which finds the undo's changes made by a call, and the one
	// after) decode each record once. (An undo refuses while a command runs.)
	if err := do(e, "op", func(c *Call) error {
		_, err := e.Undo(c, UndoOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	before = journal.RecordsDecoded()
	x, err := e.BeginExec("other", "o1", ExecArgs{Argv: []string{"true"}}, LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	look, err = x.End("exit 0")
	if err != nil {
		t.Fatal(err)
	}
	decoded = journal.RecordsDecoded() - before
	t.Logf("a command's look after an undo of %d files decoded %d records", n, decoded)
	if decoded > n/10 {
		t.Errorf("a command's look after an undo of %d files decoded %d records", n, decoded)
	}
	if len(look.Files) != 0 {
		t.Errorf("the undo's files were taken for the command's: %d files", len(look.Files))
	}
}

// A look follows the files under a .gitignore'd folder that calls changed; finding
// them decodes each record once, not once per path: a command's 300 files there,
// undone and redone, made every look decode its record and the undo's and redo's
// 300 times each (with 2,000 files a look took 50 s, holding the journal).
func TestLookFollowingIgnoredFilesDecodesEachRecordOnce(t *testing.T) {
	const n = 300
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	runExec(t, e, dir, "s", fmt.Sprintf("mkdir gen && i=0; while [ $i -lt %d ]; do echo $i > gen/f$i; i=$((i+1)); done", n))
	for _, redo := range []bool{false, true} {
		if err := do(e, "op", func(c *Call) error { _, err := e.Undo(c, UndoOptions{Redo: redo}); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("gen/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	before := journal.RecordsDecoded()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		t.Fatal(err)
	}
	if decoded := journal.RecordsDecoded() - before; decoded > n/10 {
		t.Errorf("a look past %d followed files decoded %d records", n, decoded)
	}
}
