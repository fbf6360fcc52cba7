package txn

import (
	"fmt"
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
			// After a restart: in the same boot, recovery leaves such a file alone
			// anyway (TestSameBootLeavesWhatChangedSince).
			b, err := afterRestart(func() (*Engine, error) { return open(), nil })
			if err != nil {
				t.Fatal(err)
			}
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

// After a journal-durable process is killed (not a power loss: the machine did not
// restart), a file its calls wrote and someone then put back, emptied or deleted is
// left as found: the page cache kept what the calls wrote, so the change is someone
// else's. After a restart the same file is rebuilt, as a power loss may have lost it.
func TestSameBootLeavesWhatChangedSince(t *testing.T) {
	for _, c := range []struct {
		name string
		do   func(afero.Fs)
		want string // a.txt afterwards in the same boot; "" for absent
	}{
		{"put back", func(m afero.Fs) { afero.WriteFile(m, "a.txt", []byte("alpha\nbeta\n"), 0o644) }, "alpha\nbeta\n"},
		{"emptied", func(m afero.Fs) { afero.WriteFile(m, "a.txt", nil, 0o644) }, ""},
		{"deleted", func(m afero.Fs) { m.Remove("a.txt") }, "-"},
	} {
		for _, restarted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/restarted=%v", c.name, restarted), func(t *testing.T) {
				mem := afero.NewMemMapFs()
				for p, s := range faultFiles {
					afero.WriteFile(mem, p, []byte(s), 0o644)
				}
				jpath := t.TempDir() + "/journal.db"
				open := func() (*Engine, error) {
					return Open(vfs.New(mem, vfs.Options{}), Options{JournalPath: jpath, Durability: DurableJournal,
						CheckpointEvery: 1000, CheckpointInterval: -1})
				}
				a, err := open() // never closed: killed after its reply
				if err != nil {
					t.Fatal(err)
				}
				if err := do(a, "s", func(cc *Call) error {
					_, err := a.Edit(cc, "a.txt", []matcher.Edit{{OldText: "beta", NewText: "BETA"}}, false)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				c.do(mem)
				var b *Engine
				if restarted {
					b, err = afterRestart(open)
				} else {
					b, err = open()
				}
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				if err := read(b, "s2", "b.txt"); err != nil {
					t.Fatal(err)
				}
				got, rerr := afero.ReadFile(mem, "a.txt")
				want := c.want
				if restarted {
					want = "alpha\nBETA\n" // rebuilt from the journal
				}
				switch {
				case want == "-" && rerr == nil:
					t.Errorf("a.txt was brought back: %q", got)
				case want != "-" && (rerr != nil || string(got) != want):
					t.Errorf("a.txt = %q (%v), want %q", got, rerr, want)
				}
			})
		}
	}
}
