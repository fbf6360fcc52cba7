package txn

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/journal"
)

// A file edited thousands of times keeps its content whole now and then, so that
// rebuilding a past version (the diff vfsctl show renders, an undo) walks back a few
// hundred edits at most, not all of them; and the journal still renders every diff.
func TestLongChainsKeepTheContentNowAndThen(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "line %d of a file edited again and again\n", i)
	}
	b.WriteString("v = 0\n")
	e, _ := diskEngineWith(t, map[string]string{"f.txt": b.String()}, Options{NoSync: true})
	defer e.Close()
	// The spacing of the copies is a property of thousands of content hashes: the
	// full 3,000 edits (.ci/run) check it; the default 500 check that the chain is
	// journaled, kept from its start and rendered again.
	edits, wantKept := 500, 1
	if full() {
		edits, wantKept = 3000, 3
	}
	for i := range edits {
		if err := edit(e, "s", "f.txt", fmt.Sprintf("v = %d\n", i), fmt.Sprintf("v = %d\n", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	var longest, run, kept int
	err := e.View(func(tx *journal.Tx) error {
		var recs []*journal.Record
		for seq := uint64(1); seq <= tx.Last(); seq++ {
			r, err := tx.Get(seq)
			if err != nil {
				return err
			}
			if r == nil || len(r.Files) == 0 || r.Files[0].Op != journal.OpEdit {
				continue
			}
			if r.Files[0].BeforeBlob {
				kept++
				run = 0
			} else if run++; run > longest {
				longest = run
			}
			recs = append(recs, r)
		}
		tx.Diffs(recs[len(recs)-1])
		if d := recs[len(recs)-1].Files[0].Diff; !strings.Contains(d, fmt.Sprintf("+v = %d", edits)) {
			t.Errorf("the last call's diff, rendered again: %q", d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// About one edit in 256 keeps its content: thousands in a row without one would
	// make every show of them walk back that far.
	t.Logf("%d edits: %d kept the content they start from; the longest stretch without: %d", edits, kept, longest)
	if kept < wantKept || longest > 2000 {
		t.Errorf("%d edits: %d kept the content they start from; the longest stretch without: %d", edits, kept, longest)
	}
}
