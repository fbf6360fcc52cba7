package journal

import (
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A diff that the splices give back is kept as the splices only, and Diffs renders
// it, byte for byte, whether it reads the records together or one alone; a diff they
// would not give back is kept whole, as is every diff of a record written before
// (codecHashes); and a diff whose content the journal cannot rebuild says so.
func TestOmittedDiffs(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	v0, v1, v2 := []byte("one\ntwo\nthree\n"), []byte("one\nTWO\nthree\n"), []byte("one\nTWO\nthree\nfour\n")
	// The diffs as the replies of these calls showed them.
	want := []string{
		"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
		"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n one\n TWO\n three\n+four\n",
		"--- a/./a.txt\n+++ b/./a.txt\n@@ -2,3 +2,3 @@\n TWO\n three\n-four\n+FOUR\n",
	}
	edit := func(before, after []byte, start int, old, new, diff string) File {
		f := File{Path: "a.txt", Op: OpEdit, Before: Hash(before), After: Hash(after), BeforeMode: 0o644, AfterMode: 0o644,
			Splices: []Splice{{Start: start, Old: []byte(old), New: []byte(new)}}, Diff: diff}
		f.OmitDiff(before)
		return f
	}
	recs := []*Record{
		{Tool: "create_file", Files: []File{{Path: "a.txt", Op: OpCreate, After: Hash(v0), AfterMode: 0o644, AfterBlob: true,
			Diff: "--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1,3 @@\n+one\n+two\n+three\n"}}},
		{Tool: "edit_file", Files: []File{edit(v0, v1, 4, "two", "TWO", want[0])}},
		{Tool: "edit_file", Files: []File{edit(v1, v2, 8, "three\n", "three\nfour\n", want[1])}},
		{Tool: "edit_file", Files: []File{edit(v2, []byte("one\nTWO\nthree\nFOUR\n"), 14, "four", "FOUR", want[2])}},
	}
	for i, omitted := range []bool{false, true, true, false} {
		if f := recs[i].Files[0]; f.DiffOmitted() != omitted || (f.Diff == "") != omitted {
			t.Errorf("record %d: diff omitted %v, %q", i+1, f.DiffOmitted(), f.Diff)
		}
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, r := range recs {
		r.Time, r.Session, r.State = now.Add(time.Duration(i)*time.Second), "s", Committed
	}
	putChain(t, j, recs, [][]byte{v0}, 0, nil)

	read := func(seqs ...uint64) (out []*Record) {
		j.View(func(tx *Tx) error {
			for _, s := range seqs {
				r, err := tx.Get(s)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, r)
			}
			tx.Diffs(out...)
			return nil
		})
		return out
	}
	all := read(4, 2, 3) // in any order
	for i, r := range all {
		if got := r.Files[0].Diff; got != want[[]int{2, 0, 1}[i]] || r.Files[0].DiffOmitted() {
			t.Errorf("record %d reads the diff %q", r.Seq, got)
		}
	}
	if got := read(3)[0].Files[0].Diff; got != want[1] {
		t.Errorf("record 3 alone reads the diff %q", got)
	}
	if got := read(1)[0].Files[0].Diff; got != recs[0].Files[0].Diff {
		t.Errorf("the create reads the diff %q", got)
	}

	// Record 2 as the code before wrote it: its diff whole.
	old := *recs[1]
	old.Files = []File{recs[1].Files[0]}
	old.Files[0].Diff, old.Files[0].diffOmitted = want[0], false
	j.Update(func(tx *Tx) error { return tx.b(bRecords).Put(seqKey(2), encodeRecord3(t, &old)) })
	if r := read(2)[0]; r.Files[0].Diff != want[0] {
		t.Errorf("record 2 in codecHashes reads the diff %q", r.Files[0].Diff)
	}
	if got := read(3)[0].Files[0].Diff; got != want[1] {
		t.Errorf("record 3 after record 2 in codecHashes reads the diff %q", got)
	}

	// Without the first version, no later one can be rebuilt.
	j.Update(func(tx *Tx) error {
		key, _ := hex.DecodeString(Hash(v0))
		return tx.b(bBlobs).Delete(key)
	})
	if f := read(3)[0].Files[0]; f.Diff != "" || !strings.HasPrefix(f.DiffError, "the journal cannot rebuild a.txt") {
		t.Errorf("record 3 without the first version reads the diff %q, the error %q", f.Diff, f.DiffError)
	}
}

// A file keeps its diffs past omitMax, where rendering one again would rebuild a large
// content edit by edit; below, with LF or CR line breaks, the diff is omitted.
func TestLargeFileKeepsDiff(t *testing.T) {
	const diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-line\n+LINE\n line\n line\n"
	for _, n := range []int{3, omitMax/6 + 1} {
		before := []byte(strings.Repeat("line\r\n", n))
		f := File{Path: "f.txt", Op: OpEdit, Before: Hash(before), Splices: []Splice{{Start: 0, Old: []byte("line"), New: []byte("LINE")}}, Diff: diff}
		f.OmitDiff(before)
		if small := n == 3; f.DiffOmitted() != small || (f.Diff == diff) == small {
			t.Errorf("%d bytes: diff omitted %v, kept %q", len(before), f.DiffOmitted(), f.Diff)
		}
	}
}
