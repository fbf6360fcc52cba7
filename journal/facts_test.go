package journal

import (
	"path/filepath"
	"testing"
	"time"
)

// Stats reads facts, and records that have none (journals written before facts were
// kept) from the records themselves: both count the same.
func TestStatsFromFactsAndRecords(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	add := func(r *Record) {
		j.Commit(func(tx *Tx) error { r.Seq = 0; return tx.Put(r) })
	}
	now := time.Now()
	add(&Record{Time: now, Session: "a", Tool: "edit_file", State: Failed, Kind: "text_not_found", Message: "not found\nmore",
		Files: []File{{Path: "x.go", Op: OpEdit}}})
	add(&Record{Time: now, Session: "a", Tool: "edit_file", State: Committed,
		Files: []File{{Path: "x.go", Op: OpEdit, Edits: []Edit{{Tier: "typography", Folded: []string{"curly quotes"}, ContextLines: 3, ContextBytes: 40}}}}})
	add(&Record{Time: now, Session: "b", Tool: "read_file", State: Committed, Files: []File{{Path: "y.go", Op: OpRead}}})
	stats := func() *Stats {
		var st *Stats
		j.View(func(tx *Tx) (err error) { st, err = tx.Stats(Query{}); return err })
		return st
	}
	check := func(what string, st *Stats) {
		if st.Calls != 3 || st.Failed != 1 || st.Recovery.Recovered != 1 || len(st.Rescues) != 1 || st.Rescues[0].Fold != "curly quotes" ||
			st.Padding.LinesP50 != 3 || st.ByKind[0].Example.Message != "not found" || st.ByKind[0].Example.Seq != 1 {
			t.Errorf("%s: %+v", what, st)
		}
	}
	check("facts", stats())
	// Drop the facts of records 1 and 3, as an older journal would lack them.
	j.Commit(func(tx *Tx) error {
		tx.b(bFacts).Delete(seqKey(1))
		return tx.b(bFacts).Delete(seqKey(3))
	})
	check("records", stats())
}

// A fact whose key a damaged journal made huge does not send Stats counting up to
// it, one record number at a time (it spun for minutes on such a file).
func TestStatsPastADamagedFactKey(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		j.Commit(func(tx *Tx) error {
			return tx.Put(&Record{Time: time.Now(), Session: "a", Tool: "read_file", State: Committed, Files: []File{{Path: "y.go", Op: OpRead}}})
		})
	}
	// Record 2's fact moved to key 2^41+2, as one flipped bit of the key would.
	j.Commit(func(tx *Tx) error {
		v := append([]byte(nil), tx.b(bFacts).Get(seqKey(2))...)
		tx.b(bFacts).Delete(seqKey(2))
		return tx.b(bFacts).Put(seqKey(1<<41+2), v)
	})
	done := make(chan error, 1)
	go func() {
		done <- j.View(func(tx *Tx) error { _, err := tx.Stats(Query{}); return err })
	}()
	select {
	case <-done:
		j.Release()
	case <-time.After(30 * time.Second):
		t.Fatal("Stats still runs after 30 s") // the journal stays held: Release would wait for it
	}
}
