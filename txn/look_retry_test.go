package txn

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// A look's journal transaction that the journal runs again, alone, because the batch
// it shared failed, records each change and note once: the outside record of a
// checkpoint, and a command's record. The batch fails once, at the end of the look's
// own work, with another write in it, as when a call committing at the same moment
// fails.
func TestLookRunAgainRecordsEachNoteOnce(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no permission bits beyond read-only: the note counted is of a chmod 600")
	}
	for _, how := range []string{"checkpoint", "exec"} {
		t.Run(how, func(t *testing.T) {
			e, dir := diskEngineWith(t, map[string]string{"f.txt": "f\n", "g.txt": "g\n"}, Options{NoSync: true})
			defer e.Close()
			if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
				t.Fatal(err)
			}
			runs := 0
			testHookLookWritten = func() error {
				if runs++; runs == 1 {
					return errors.New("injected: the batch fails once")
				}
				return nil
			}
			defer func() { testHookLookWritten = nil }()
			// Another write in the batch: the failed batch is run again, request by
			// request.
			testHookLookCommits = func() { e.j.Defer(func(*journal.Tx) error { return nil }) }
			defer func() { testHookLookCommits = nil }()
			change := func() {
				must(t, os.Chmod(filepath.Join(dir, "f.txt"), 0o600))
				must(t, os.WriteFile(filepath.Join(dir, "g.txt"), []byte("G\n"), 0o644))
			}
			var look *Look
			var err error
			switch how {
			case "checkpoint":
				change()
				look, err = e.CheckpointOutside(LookOptions{})
			default:
				var x *Exec
				if x, err = e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sh", "-c", "chmod 600 f.txt && echo G > g.txt"}, Cwd: "."}, LookOptions{}); err != nil {
					t.Fatal(err)
				}
				change() // the command
				look, err = x.End("exit 0")
			}
			if err != nil {
				t.Fatal(err)
			}
			seq := look.Seq
			if runs != 2 {
				t.Fatalf("the look's transaction ran %d times, want 2 (the test's failure did not force the run again)", runs)
			}
			var rec *journal.Record
			e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
			if rec == nil {
				t.Fatalf("no record %d", seq)
			}
			modes := 0
			for _, n := range rec.Notes {
				if strings.HasPrefix(n, "f.txt: mode ") {
					modes++
				}
			}
			if modes != 1 || len(rec.Files) != 2 {
				t.Errorf("record %d: %d notes of f.txt's mode, want 1; %d files, want 2; notes %q", seq, modes, len(rec.Files), rec.Notes)
			}
		})
	}
}
