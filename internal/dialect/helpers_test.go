package dialect

import (
	"bytes"
	"sort"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
	"github.com/vfsctl/vfsctl/matcher"
)

// applySplices writes splices (sorted, non-overlapping) onto content.
func applySplices(t *testing.T, content []byte, sp []matcher.Splice) []byte {
	t.Helper()
	s := append([]matcher.Splice(nil), sp...)
	sort.SliceStable(s, func(a, b int) bool { return s[a].Start < s[b].Start })
	var out bytes.Buffer
	at := 0
	for _, x := range s {
		if x.Start < at || x.End < x.Start || x.End > len(content) {
			t.Fatalf("bad splice %+v (at %d, len %d)", x, at, len(content))
		}
		out.Write(content[at:x.Start])
		out.Write(x.Text)
		at = x.End
	}
	out.Write(content[at:])
	return out.Bytes()
}

func wantKind(t *testing.T, err error, k errs.Kind) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got success", k)
	}
	if got := errs.KindOf(err); got != k {
		t.Fatalf("want %s, got %s: %v", k, got, err)
	}
}
