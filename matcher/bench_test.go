package matcher

import (
	"fmt"
	"strings"
	"testing"
)

// sourceFile makes a Go-like file of n lines (about 75 bytes a line, so 20,000 lines is
// about 1.5 MB), every line unique.
func sourceFile(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() >= 0 && i < n; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "func handler%06d(w http.ResponseWriter, r *http.Request) error {\n", i)
		case 1:
			fmt.Fprintf(&b, "\tlog.Printf(\"request %%s served by handler %06d\", r.URL.Path)\n", i)
		case 2:
			fmt.Fprintf(&b, "\tif err := check(r, %06d); err != nil { return fmt.Errorf(\"x: %%w\", err) }\n", i)
		case 3:
			fmt.Fprintf(&b, "\treturn render(w, templates[%06d], map[string]any{\"id\": %d})\n", i, i)
		default:
			fmt.Fprintf(&b, "\treturn nil // end of handler %06d; the routes live in routes.go and main.go\n", i)
		}
	}
	return []byte(b.String())
}

func benchEdit(b *testing.B, n int, fuzzy bool) {
	data := sourceFile(n)
	mid := (n / 2) / 5 * 5
	old := fmt.Sprintf("\tlog.Printf(\"request %%s served by handler %06d\", r.URL.Path)", mid+1)
	nw := fmt.Sprintf("\tlog.Printf(\"request %%s handled by %06d\", r.URL.Path)", mid+1)
	if fuzzy {
		old, nw = curly(old), curly(nw)
	}
	edits := []Edit{{OldText: old, NewText: nw}}
	want := TierExact
	if fuzzy {
		want = TierTypography
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Apply(data, edits, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Edits[0].Tier != want {
			b.Fatalf("tier %s", res.Edits[0].Tier)
		}
	}
}

func BenchmarkEdit(b *testing.B) {
	for _, n := range []int{2000, 20000, 200000} {
		b.Run(fmt.Sprintf("exact/lines=%d", n), func(b *testing.B) { benchEdit(b, n, false) })
		b.Run(fmt.Sprintf("fuzzy/lines=%d", n), func(b *testing.B) { benchEdit(b, n, true) })
	}
}

// BenchmarkViewUpdate is what keeping a View costs a caller that edits the same large
// file call after call (txn does it after each commit, in the background): the View
// of the next content derived from the last one (folded, as a fuzzy edit leaves it)
// and prepared, beside the exact plan of the same edit.
func BenchmarkViewUpdate(b *testing.B) {
	const n = 20000
	data := sourceFile(n)
	mid := (n / 2) / 5 * 5
	a := fmt.Sprintf("\tlog.Printf(\"request %%s served by handler %06d\", r.URL.Path)", mid+1)
	e := fmt.Sprintf("\tlog.Printf(\"request %%s handled by %06d\", r.URL.Path)", mid+1)
	fwd, err := Apply(data, []Edit{{OldText: a, NewText: e}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	back, err := Apply(fwd.Output, []Edit{{OldText: e, NewText: a}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("update", func(b *testing.B) {
		fv := NewView(data)
		if _, err := fv.Apply([]Edit{{OldText: curly(a), NewText: curly(e)}}, Options{}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			r := fwd
			if i%2 == 1 {
				r = back
			}
			fv = fv.Update(r.Splices, r.Output)
			fv.Prepare()
			if fv.typo == nil {
				b.Fatal("the folded view was not carried over")
			}
		}
	})
	b.Run("exact", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Apply(data, []Edit{{OldText: a, NewText: e}}, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
