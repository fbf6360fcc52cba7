package matcher

import (
	"fmt"
	"sort"
)

// FromSplices makes a Result of splices that something other than Apply placed (an
// edit dialect's locator, an insertion at a line), so that they are committed,
// journaled and shown like an edit's: the output is the original with the splices
// applied, and reports holds one EditReport per edit the splices name (nil gives each
// an exact-tier report). The splices must lie inside the original, in order, without
// overlapping; FirstLine and LastLine are filled in where they are zero.
func FromSplices(original []byte, splices []Splice, reports []EditReport) (*Result, error) {
	sp := append([]Splice(nil), splices...)
	sort.SliceStable(sp, func(i, j int) bool { return sp[i].Start < sp[j].Start })
	d := newDoc(original)
	out := make([]byte, 0, len(original))
	at, edits := 0, 0
	for i := range sp {
		s := &sp[i]
		if s.Start < at || s.End < s.Start || s.End > len(original) {
			return nil, fmt.Errorf("splice %d [%d, %d) lies outside the file or overlaps another", i, s.Start, s.End)
		}
		if s.FirstLine == 0 {
			s.FirstLine, s.LastLine = lineOf(original, s.Start), lineOf(original, max(s.Start, s.End-1))
		}
		out = append(append(out, original[at:s.Start]...), s.Text...)
		at = s.End
		edits = max(edits, s.Edit+1)
	}
	out = append(out, original[at:]...)
	if reports == nil {
		reports = make([]EditReport, edits)
	}
	return &Result{Output: out, Splices: sp, Edits: reports, doc: d}, nil
}

// lineOf is the 1-based line of original that byte off is on.
func lineOf(original []byte, off int) int {
	n := 1
	for _, c := range original[:min(off, len(original))] {
		if c == '\n' {
			n++
		}
	}
	return n
}
