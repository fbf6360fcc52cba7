package journal

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// The history index is built on first need, kept by every Put, and built again when
// records were added without it (by a vfsctl that predates it).
func TestHistoryIndexKeptAndRebuilt(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	change := func(undo, redo uint64) *Record {
		return &Record{Time: time.Now(), Session: "s", Tool: "edit_file", State: Committed, Undo: undo, Redo: redo,
			Files: []File{{Path: "a.txt", Op: OpEdit, Before: "h0", After: "h1"}}}
	}
	put := func(rs ...*Record) {
		t.Helper()
		if err := j.Update(func(t *Tx) error {
			for _, r := range rs {
				if err := t.Put(r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	read := &Record{Time: time.Now(), Session: "s", Tool: "read_file", State: Committed, Files: []File{{Path: "a.txt", Op: OpRead}}}
	put(change(0, 0), change(1, 0), read, change(0, 2)) // 1 a change, 2 its undo, 3 a read, 4 the redo
	want := func(what string, seq, origin, latest uint64, undo bool) {
		t.Helper()
		j.View(func(tx *Tx) error {
			if !tx.HistoryReady() {
				t.Fatalf("%s: the index is not ready", what)
			}
			h := tx.History()
			c, ok := h.Change(seq)
			if !ok || c.Origin != origin || c.Undo != undo || h.Latest(origin) != latest {
				t.Fatalf("%s: call %d is %+v (%v), latest of %d is %d; want origin %d, undo %v, latest %d", what, seq, c, ok, origin, h.Latest(origin), origin, undo, latest)
			}
			return nil
		})
	}
	j.View(func(tx *Tx) error {
		if tx.HistoryReady() {
			t.Fatal("a journal that never built the index says it has one")
		}
		return nil
	})
	if err := j.Update(func(t *Tx) error { return t.BuildHistory() }); err != nil {
		t.Fatal(err)
	}
	want("built", 2, 1, 4, true)
	j.View(func(tx *Tx) error {
		if _, ok := tx.History().Change(3); ok {
			t.Error("a read is in the index")
		}
		return nil
	})
	put(change(4, 0)) // 5 undoes the redo
	want("kept", 5, 1, 5, true)
	// Record 6, an undo of nothing new, written as a vfsctl without the index writes it.
	j.Update(func(t *Tx) error {
		r := change(0, 5)
		seq, _ := t.NextSeq()
		r.Seq = seq
		data, _ := json.Marshal(r)
		return t.b(bRecords).Put(seqKey(seq), pack(data))
	})
	j.View(func(tx *Tx) error {
		if tx.HistoryReady() {
			t.Fatal("the index says it is up to date after a record it did not see")
		}
		return nil
	})
	put(change(0, 0)) // 7: a Put does not make the index look up to date again
	j.View(func(tx *Tx) error {
		if tx.HistoryReady() {
			t.Fatal("the index says it is up to date after a record it did not see")
		}
		return nil
	})
	if err := j.Update(func(t *Tx) error { return t.BuildHistory() }); err != nil {
		t.Fatal(err)
	}
	want("rebuilt", 6, 1, 6, false)
	want("rebuilt", 7, 7, 7, false)
}
