package journal

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// A new journal keeps the history index from its first record; an older one has it
// built on first need. Every Put keeps it, and it is built again when records were
// added without it (by a vfsctl that predates it).
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
	want("kept from the start", 2, 1, 4, true)
	// A journal made before the index: its buckets and mark taken away, as an older
	// vfsctl made it.
	j.Update(func(t *Tx) error {
		t.deleteBucket(bHistory)
		t.deleteBucket(bLatest)
		return t.b(bMeta).Delete(historyUpto)
	})
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

// A history entry of a record with a fact is two bytes, and a change is not written
// down as its own latest; the index that the code before wrote (each entry whole, every
// latest written) reads the same.
func TestHistoryShortForm(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	change := func(undo, redo uint64, session string, paths ...string) *Record {
		r := &Record{Time: time.Now(), Session: session, Tool: "edit_file", State: Committed, Undo: undo, Redo: redo}
		for _, p := range paths {
			r.Files = append(r.Files, File{Path: p, Op: OpEdit, Before: "h0", After: "h1"})
		}
		return r
	}
	// 1 and 2 changes, 3 undoes 1, 4 redoes 3, 5 a change of two files.
	recs := []*Record{change(0, 0, "s", "a"), change(0, 0, "t", "b"), change(1, 0, "s", "a"), change(0, 3, "u", "a"), change(0, 0, "s", "a", "b")}
	if err := j.Update(func(t *Tx) error {
		if err := t.BuildHistory(); err != nil {
			return err
		}
		for _, r := range recs {
			if err := t.Put(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	type view struct {
		Changes []Change
		Latest  []uint64
		Newest  []uint64
	}
	read := func() (v view) {
		j.View(func(tx *Tx) error {
			h := tx.History()
			for seq := uint64(1); seq <= 6; seq++ {
				c, _ := h.Change(seq)
				v.Changes = append(v.Changes, c)
				v.Latest = append(v.Latest, h.Latest(seq))
			}
			h.Newest(func(c Change) bool { v.Newest = append(v.Newest, c.Seq); return true })
			return nil
		})
		return v
	}
	now := read()
	want := view{
		Latest: []uint64{4, 2, 0, 0, 5, 0},
		Newest: []uint64{5, 4, 3, 2, 1},
	}
	for i, r := range recs {
		want.Changes = append(want.Changes, Change{Seq: r.Seq, Origin: r.Seq, Undo: r.Undo != 0, Redo: r.Redo != 0, Session: r.Session, Paths: r.Paths()})
		if i == 2 || i == 3 {
			want.Changes[i].Origin = 1
		}
	}
	want.Changes = append(want.Changes, Change{})
	if !reflect.DeepEqual(now, want) {
		t.Fatalf("the index reads\n%+v\nwant\n%+v", now, want)
	}
	j.Update(func(tx *Tx) error {
		tx.b(bHistory).ForEach(func(k, v []byte) error {
			if len(v) > 2 {
				t.Errorf("history entry %x is %d bytes", k, len(v))
			}
			return nil
		})
		if n := tx.b(bLatest).Stats().KeyN; n != 1 {
			t.Errorf("%d latest entries, want 1 (call 1's)", n)
		}
		// As the code before wrote them.
		for _, c := range now.Changes[:5] {
			tx.b(bHistory).Put(seqKey(c.Seq), encodeChange(c))
			if c.Origin == c.Seq && c.Seq != 1 {
				tx.b(bLatest).Put(seqKey(c.Seq), seqKey(c.Seq))
			}
		}
		return nil
	})
	if was := read(); !reflect.DeepEqual(was, now) {
		t.Errorf("the index in the long form reads\n%+v\nnot\n%+v", was, now)
	}
}
