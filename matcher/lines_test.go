package matcher

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// A file without CR is indexed lazily (newline counts per block, then the full index
// past sparseLookups lookups). Every line start, every offset's line and column, and
// the line count agree with a plain split of the text, with blocks of a few bytes so
// that lines cross them, and before and after the full index is built.
func TestLazyLineIndex(t *testing.T) {
	defer func(b, l int) { blockSize, sparseLookups = b, l }(blockSize, sparseLookups)
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 400 {
		blockSize, sparseLookups = 1+rng.IntN(40), rng.IntN(20)
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString("\ufeff")
		}
		for range rng.IntN(30) {
			b.WriteString(strings.Repeat("x", rng.IntN(12)))
			b.WriteByte('\n')
		}
		if rng.IntN(2) == 0 {
			b.WriteString(strings.Repeat("y", rng.IntN(5)))
		}
		data := []byte(b.String())
		body := strings.TrimPrefix(b.String(), "\ufeff")
		// The oracle: line starts from a plain split.
		var want []int
		for pos := 0; pos < len(body); {
			want = append(want, pos)
			i := strings.IndexByte(body[pos:], '\n')
			if i < 0 {
				break
			}
			pos += i + 1
		}
		d := newDoc(data)
		if d.nlines() != len(want) {
			t.Fatalf("round %d: %d lines, want %d (%q)", round, d.nlines(), len(want), body)
		}
		v := exactView(d)
		for _, i := range rng.Perm(len(want)) {
			if got := d.start(i); got != want[i] {
				t.Fatalf("round %d: start(%d) = %d, want %d (%q)", round, i, got, want[i], body)
			}
		}
		if d.start(len(want)) != len(body) {
			t.Fatalf("round %d: start(nlines) = %d, want %d", round, d.start(len(want)), len(body))
		}
		for p := 0; p <= len(body); p++ {
			line := 0
			for line+1 < len(want) && want[line+1] <= p {
				line++
			}
			wantLine, wantCol := line, p
			if len(want) > 0 {
				wantCol = p - want[line]
			}
			if p == len(body) && strings.HasSuffix(body, "\n") {
				wantLine, wantCol = len(want), 0 // just past the final line break
			}
			if l, c := v.locate(p); l != wantLine || c != wantCol {
				t.Fatalf("round %d: locate(%d) = %d,%d, want %d,%d (%q)", round, p, l, c, wantLine, wantCol, body)
			}
			if want := min(wantLine, max(len(want)-1, 0)); d.lineAt(p) != want {
				t.Fatalf("round %d: lineAt(%d) = %d, want %d (%q)", round, p, d.lineAt(p), want, body)
			}
		}
	}
}
