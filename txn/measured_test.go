package txn

import (
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/journal"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// A committed change keeps what the call measured, although its committed mark was
// still deferred when the call released the journal and the next call's recovery
// settled it.
func TestCommittedRecordKeepsDuration(t *testing.T) {
	e, _ := memWorkspace(t, map[string]string{"a.txt": "one\ntwo\n"})
	var seq uint64
	start := time.Now()
	err := do(e, "s", func(c *Call) error {
		_, err := e.Edit(c, "a.txt", []matcher.Edit{{OldText: "two", NewText: "TWO"}}, false)
		seq = c.Seq()
		return err
	})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// The journal was closed when the call ended; this call opens it again.
	if err := read(e, "s", "a.txt"); err != nil {
		t.Fatal(err)
	}
	var rec *journal.Record
	e.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
	if rec == nil || rec.State != journal.Committed {
		t.Fatalf("record %d: %+v", seq, rec)
	}
	if rec.Duration <= 0 || rec.Duration > elapsed {
		t.Fatalf("record %d says the call took %v; it took more than 0 and at most %v", seq, rec.Duration, elapsed)
	}
}

// The committed mark of a process's last call is still deferred when the call ends:
// Close stores it, so that the next process finds the record as the call measured it.
func TestCloseKeepsLastCallsDuration(t *testing.T) {
	e, dir := diskEngine(t, map[string]string{"a.txt": "one\ntwo\n"})
	var seq uint64
	start := time.Now()
	err := do(e, "s", func(c *Call) error {
		_, err := e.Edit(c, "a.txt", []matcher.Edit{{OldText: "two", NewText: "TWO"}}, false)
		seq = c.Seq()
		return err
	})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Another process opens the workspace.
	fs, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() }) // a folder held open cannot be removed on Windows
	next, err := Open(fs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rec *journal.Record
	next.View(func(tx *journal.Tx) error { rec, _ = tx.Get(seq); return nil })
	if rec == nil || rec.State != journal.Committed {
		t.Fatalf("record %d: %+v", seq, rec)
	}
	if rec.Duration <= 0 || rec.Duration > elapsed {
		t.Fatalf("record %d says the call took %v; it took more than 0 and at most %v", seq, rec.Duration, elapsed)
	}
}
