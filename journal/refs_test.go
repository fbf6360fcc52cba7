package journal

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// An undo of a command that made many files refers, for each file, to the
// command's record, which ended at the hash the undo starts from. Each reference was
// found by reading that record's whole hash section again, once per file, when the
// undo's record was stored and again when it was read: an undo of 3,000 files spent
// seconds of CPU there, holding the workspace. The record is read once now.
func TestRecordOfManyFilesReadsTheRecordItRefersToOnce(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	const n = 400
	made := &Record{Time: time.Now(), Session: "s", Tool: "exec", State: Committed}
	undo := &Record{Time: time.Now(), Session: "s", Tool: "undo", State: Pending}
	for i := range n {
		p := fmt.Sprintf("d/f%d", i)
		h := Hash([]byte(p))
		made.Files = append(made.Files, File{Path: p, Op: OpCreate, After: h, AfterMode: 0o644})
		undo.Files = append(undo.Files, File{Path: p, Op: OpDelete, Before: h, BeforeMode: 0o644})
	}
	if err := j.Commit(func(t *Tx) error { return t.Put(made) }); err != nil {
		t.Fatal(err)
	}
	before := hashSectionsRead.Load()
	if err := j.Commit(func(t *Tx) error { return t.Put(undo) }); err != nil {
		t.Fatal(err)
	}
	undo.State = Committed
	if err := j.Commit(func(t *Tx) error { return t.Put(undo) }); err != nil {
		t.Fatal(err)
	}
	var got *Record
	if err := j.View(func(t *Tx) (err error) { got, err = t.Get(undo.Seq); return err }); err != nil {
		t.Fatal(err)
	}
	reads := hashSectionsRead.Load() - before
	// Each file's before hash is what the test gave it, whether kept whole or as a
	// reference to the record that made it.
	for i, f := range got.Files {
		if f.Before != undo.Files[i].Before {
			t.Fatalf("file %d (%s): before hash %q, want %q", i, f.Path, f.Before, undo.Files[i].Before)
		}
	}
	// Two puts and a read of a record that refers to one other: a few reads of hash
	// sections each, not one per file.
	if reads > 10 {
		t.Errorf("storing and reading an undo of %d files read %d hash sections; want a few", n, reads)
	}
}
