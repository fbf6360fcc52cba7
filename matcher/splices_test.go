package matcher

import (
	"strings"
	"testing"
)

func TestFromSplicesBuildsOutputLinesAndDiff(t *testing.T) {
	orig := []byte("one\ntwo\nthree\n")
	// Insert before line 2 and replace "three": given out of order on purpose.
	res, err := FromSplices(orig, []Splice{
		{Edit: 1, Start: 8, End: 13, Text: []byte("3")},
		{Edit: 0, Start: 4, End: 4, Text: []byte("one and a half\n")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Output), "one\none and a half\ntwo\n3\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
	if res.Splices[0].FirstLine != 2 || res.Splices[1].FirstLine != 3 || res.Splices[1].LastLine != 3 {
		t.Errorf("lines: %+v", res.Splices)
	}
	if len(res.Edits) != 2 {
		t.Errorf("%d reports, want 2", len(res.Edits))
	}
	if d := res.Diff("f"); !strings.Contains(d, "+one and a half") || !strings.Contains(d, "-three") {
		t.Errorf("diff:\n%s", d)
	}
	if _, err := FromSplices(orig, []Splice{{Start: 2, End: 6}, {Start: 5, End: 7}}, nil); err == nil {
		t.Error("overlapping splices accepted")
	}
	if _, err := FromSplices(orig, []Splice{{Start: 10, End: 40}}, nil); err == nil {
		t.Error("a splice past the end accepted")
	}
}
