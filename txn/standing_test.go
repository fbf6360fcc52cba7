package txn

import (
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// A file the journal-durable mode wrote without fsync, found by the next process's
// recovery as a folder or read-only, is left as found with a note: it used to fail
// recovery, and so every command and call of the workspace, until it was moved.
func TestRollForwardLeavesWhatStandsInTheWay(t *testing.T) {
	for _, c := range []struct {
		name  string
		block func(afero.Fs)
		note  string
	}{
		{"folder", func(m afero.Fs) { m.Remove("a.txt"); m.Mkdir("a.txt", 0o755) }, "left as found"},
		{"read-only", func(m afero.Fs) { afero.WriteFile(m, "a.txt", []byte("alpha\nbeta\n"), 0o444); m.Chmod("a.txt", 0o444) }, "could not be rebuilt from the journal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := afero.NewMemMapFs()
			for p, s := range faultFiles {
				afero.WriteFile(mem, p, []byte(s), 0o644)
			}
			jpath := t.TempDir() + "/journal.db"
			open := func() *Engine {
				e, err := Open(vfs.New(mem, vfs.Options{}), Options{JournalPath: jpath, Durability: DurableJournal,
					CheckpointEvery: 1000, CheckpointInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
			a := open() // never closed: as a process killed after its reply
			var seq uint64
			if err := do(a, "s", func(cc *Call) error {
				_, err := a.Edit(cc, "a.txt", []matcher.Edit{{OldText: "beta", NewText: "BETA"}}, false)
				seq = cc.Seq()
				return err
			}); err != nil {
				t.Fatal(err)
			}
			c.block(mem)
			b := open()
			defer b.Close()
			if err := read(b, "s2", "b.txt"); err != nil {
				t.Fatalf("a read of another file after recovery: %v", err)
			}
			var rec *journal.Record
			b.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
			if rec == nil || !strings.Contains(strings.Join(rec.Notes, "\n"), c.note) {
				t.Errorf("record %d's notes do not say %q: %+v", seq, c.note, rec)
			}
			if fi, err := mem.Stat("a.txt"); err != nil || c.name == "folder" && !fi.IsDir() {
				t.Errorf("a.txt was not left as found: %v %v", fi, err)
			}
		})
	}
}
