package journal

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"
)

// Stats counts the models' calls; an operator's calls, refused or not, are counted
// apart by origin. A record without an origin (written before origins were kept) is
// an operator's when its tool is undo or redo, else a model's; so is a version 1 fact.
func TestStatsByOrigin(t *testing.T) {
	j := New(filepath.Join(t.TempDir(), "journal.db"), Options{NoSync: true})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	defer j.Release()
	now := time.Now()
	for _, r := range []*Record{
		{Tool: "edit_file", Origin: OriginModel, State: Failed, Kind: "text_not_found"},
		{Tool: "redo", State: Failed, Kind: "conflict"},                                    // old, with a version 1 fact below
		{Tool: "undo", State: Failed, Kind: "invalid_input"},                               // old: an operator's
		{Tool: "redo", Origin: OriginOperator, State: Committed},                           // new: an operator's
		{Tool: "read_file", Origin: "eval-harness", State: Failed, Kind: "file_not_found"}, // an embedder's
	} {
		r.Time, r.Session = now, "s"
		if err := j.Commit(func(tx *Tx) error { r.Seq = 0; return tx.Put(r) }); err != nil {
			t.Fatal(err)
		}
	}
	// Record 2's fact as version 1 wrote it, without an origin.
	var v1 []byte
	str := func(s string) { v1 = append(binary.AppendUvarint(v1, uint64(len(s))), s...) }
	v1 = binary.AppendVarint([]byte{1}, now.UnixNano())
	str("s")
	str("redo")
	str(string(Failed))
	str("conflict")
	v1 = append(v1, 0, 0, 0) // flags, no paths, no edits
	if err := j.Commit(func(tx *Tx) error { return tx.b(bFacts).Put(seqKey(2), v1) }); err != nil {
		t.Fatal(err)
	}
	var st *Stats
	if err := j.View(func(tx *Tx) (err error) { st, err = tx.Stats(Query{}); return err }); err != nil {
		t.Fatal(err)
	}
	if st.Calls != 2 || st.Failed != 2 || len(st.ByKind) != 2 || st.ByKind[0].Kind != "file_not_found" || st.ByKind[1].Kind != "text_not_found" {
		t.Errorf("model figures: %d calls, %d failed, kinds %+v; want 2 calls, 2 failed (file_not_found, text_not_found)", st.Calls, st.Failed, st.ByKind)
	}
	want := []OriginCount{{"eval-harness", 1, 1}, {"model", 1, 1}, {"operator", 3, 2}}
	if len(st.ByOrigin) != len(want) {
		t.Fatalf("by origin: %+v, want %+v", st.ByOrigin, want)
	}
	for i := range want {
		if st.ByOrigin[i] != want[i] {
			t.Errorf("by origin: %+v, want %+v", st.ByOrigin, want)
		}
	}
	if len(st.OperatorByTool) != 2 || st.OperatorByTool[0].Tool != "redo" || st.OperatorByTool[0].Calls != 2 || st.OperatorByTool[0].Failed != 1 {
		t.Errorf("operator by tool: %+v, want redo 2 calls (1 failed), undo 1", st.OperatorByTool)
	}
}
