package matcher

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// sameResult fails unless a View's plan equals a fresh Apply's on the same content:
// the same output, splices, reports, or the same refusal.
func sameResult(t *testing.T, what string, got *Result, gerr error, want *Result, werr error) {
	t.Helper()
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%s: view error %v, fresh error %v", what, gerr, werr)
	}
	if werr != nil {
		if gerr.Error() != werr.Error() {
			t.Fatalf("%s: view refused with\n%v\nfresh with\n%v", what, gerr, werr)
		}
		return
	}
	if !bytes.Equal(got.Output, want.Output) || !reflect.DeepEqual(got.Splices, want.Splices) || !reflect.DeepEqual(got.Edits, want.Edits) {
		t.Fatalf("%s: view and fresh plans differ:\nview  %+v\nfresh %+v", what, got, want)
	}
	if got.Diff("f") != want.Diff("f") {
		t.Fatalf("%s: diffs differ", what)
	}
}

// viewLines are lines with what the fuzzy tiers fold: typography, trailing blanks,
// tabs, and the line endings a file may mix.
var viewLines = []string{
	"func f() {", "\tx := \"a b\"", "\ty := “quoted”", "    z := 1 – 2  ", "}", "",
	"café\u00a0au lait", "\treturn x", "// a comment …", "a\u200bb", "\t\tnested()",
}

func randomFile(r *rand.Rand, n int) []byte {
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString("\ufeff")
	}
	for i := range n {
		b.WriteString(viewLines[r.IntN(len(viewLines))])
		eol := []string{"\n", "\n", "\n", "\r\n", "\r"}[r.IntN(5)]
		if i == n-1 && r.IntN(3) == 0 {
			eol = ""
		}
		b.WriteString(eol)
	}
	return []byte(b.String())
}

// retype is s as a model that retyped it might send it.
func retype(r *rand.Rand, s string) string {
	switch r.IntN(4) {
	case 0:
		return strings.ReplaceAll(s, "\"", "“")
	case 1:
		return strings.Replace(s, " ", "\u00a0", 1)
	case 2:
		return strings.ReplaceAll(s, "\t", "    ")
	}
	return s
}

// randomEdit picks one to three consecutive lines of data and changes them, as sent
// exactly or drifted.
func randomEdit(r *rand.Rand, data []byte) Edit {
	var lines []string
	EachLine(data, func(_ int, l []byte) bool { lines = append(lines, string(l)); return true })
	if len(lines) == 0 {
		return Edit{OldText: "x", NewText: "y"}
	}
	a := r.IntN(len(lines))
	b := min(len(lines), a+1+r.IntN(3))
	old := strings.Join(lines[a:b], "\n")
	if strings.TrimSpace(old) == "" {
		old = lines[a] + "\n"
	}
	nw := old + " // " + string(rune('a'+r.IntN(26)))
	switch r.IntN(4) {
	case 0:
		nw = "new line\n" + old
	case 1:
		nw = ""
	}
	return Edit{OldText: retype(r, old), NewText: retype(r, nw), ReplaceAll: r.IntN(6) == 0}
}

// TestViewUpdateMatchesFresh edits random files call after call through a View kept
// up to date by Update, and checks every plan against Apply on the content itself (the
// View's cache is what is under test; a fresh Apply folds every line anew).
func TestViewUpdateMatchesFresh(t *testing.T) {
	carried, refolded := 0, 0
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 7))
		data := randomFile(r, 1+r.IntN(40))
		fv := NewView(data)
		for step := range 30 {
			e := []Edit{randomEdit(r, data)}
			if r.IntN(4) == 0 {
				e = append(e, randomEdit(r, data))
			}
			got, gerr := fv.Apply(e, Options{Name: "f"})
			want, werr := Apply(data, e, Options{Name: "f"})
			sameResult(t, fmt.Sprintf("seed %d step %d", seed, step), got, gerr, want, werr)
			if werr != nil {
				continue
			}
			next := want.Output
			if r.IntN(10) == 0 {
				// Written by someone else after the plan: the splices no longer
				// describe the new content, and the View must still be right.
				next = append(append([]byte(nil), next...), "tail()\n"...)
			}
			folded := fv.typo != nil
			fv = fv.Update(got.Splices, next)
			if r.IntN(2) == 0 {
				fv.Prepare()
			}
			if folded && len(next) == len(want.Output) {
				carried++
				if fv.typo == nil {
					refolded++
				}
			}
			data = next
		}
	}
	// The point of Update: the folded lines carry over, rather than fold again.
	if carried == 0 || refolded*10 > carried {
		t.Fatalf("of %d updates of a folded View, %d dropped the folded lines", carried, refolded)
	}
}

// TestViewPrepared: a prepared View plans as the content itself does, Apply after
// Apply (each has its own copy of the prepared doc, which indexes itself as it is
// read), a NUL byte refused as before.
func TestViewPrepared(t *testing.T) {
	defer func(n int) { sparseLookups = n }(sparseLookups)
	sparseLookups = 2 // so that a doc builds its full index partway through
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 9))
		data := randomFile(r, 1+r.IntN(60))
		if seed%8 == 0 {
			data = append(data, 0)
		}
		fv := NewView(data)
		fv.Prepare()
		if _, d, ok := fv.prep(); !ok || (d == nil) != bytes.ContainsAny(data, "\r") {
			t.Fatalf("seed %d: prepared doc %v (ok %v) for content with CR %v", seed, d != nil, ok, bytes.ContainsAny(data, "\r"))
		}
		for step := range 6 {
			e := []Edit{randomEdit(r, data)}
			got, gerr := fv.Apply(e, Options{Name: "f"})
			want, werr := Apply(data, e, Options{Name: "f"})
			sameResult(t, fmt.Sprintf("seed %d step %d", seed, step), got, gerr, want, werr)
		}
	}
}

// TestViewKeepsNoOldContent: an updated View does not read the older content, whose
// buffer its owner may reuse (and which it must not keep alive).
func TestViewKeepsNoOldContent(t *testing.T) {
	data := []byte("a \"x\"\nb\nc\n")
	fv := NewView(data)
	if _, err := fv.Apply([]Edit{{OldText: "a “x”", NewText: "a “y”"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := fv.Apply([]Edit{{OldText: "c", NewText: "C"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nv := fv.Update(res.Splices, res.Output)
	for i := range data {
		data[i] = 'z'
	}
	e := []Edit{{OldText: "b\nC", NewText: "B\nC"}, {OldText: "a “x”", NewText: "a “w”"}}
	got, gerr := nv.Apply(e, Options{})
	want, werr := Apply(res.Output, e, Options{})
	sameResult(t, "after the old content was overwritten", got, gerr, want, werr)
}

// FuzzViewUpdate: a plan on a View updated from a first edit equals a fresh plan on
// the first edit's output.
func FuzzViewUpdate(f *testing.F) {
	f.Add([]byte("a “b”\r\nc\n\td\n"), "c", "C\nD", "a \"b\"", "x")
	f.Add([]byte("x\ny"), "y", "z\n", "x\nz", "w")
	f.Fuzz(func(t *testing.T, file []byte, old1, new1, old2, new2 string) {
		old1, new1 = strings.ToValidUTF8(old1, "\ufffd"), strings.ToValidUTF8(new1, "\ufffd")
		old2, new2 = strings.ToValidUTF8(old2, "\ufffd"), strings.ToValidUTF8(new2, "\ufffd")
		fv := NewView(file)
		first, err := fv.Apply([]Edit{{OldText: old1, NewText: new1}}, Options{})
		want1, werr1 := Apply(file, []Edit{{OldText: old1, NewText: new1}}, Options{})
		sameResult(t, "first", first, err, want1, werr1)
		if err != nil {
			return
		}
		nv := fv.Update(first.Splices, first.Output)
		e := []Edit{{OldText: old2, NewText: new2}}
		got, gerr := nv.Apply(e, Options{})
		want, werr := Apply(first.Output, e, Options{})
		sameResult(t, "second", got, gerr, want, werr)
	})
}

// TestViewUpdateCopiesLittle: deriving the next View of a large folded file costs
// about one copy of its folded text, not a record per line as well (that was twice
// the file's size again, per edit, for a background task of every fuzzy edit).
func TestViewUpdateCopiesLittle(t *testing.T) {
	data := sourceFile(20000)
	a, e := "\tlog.Printf(\"request %s served by handler 010001\", r.URL.Path)", "\tlog.Printf(\"x\")"
	fv := NewView(data)
	if _, err := fv.Apply([]Edit{{OldText: curly(a), NewText: curly(e)}}, Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := Apply(data, []Edit{{OldText: a, NewText: e}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	nv := fv.Update(res.Splices, res.Output)
	runtime.ReadMemStats(&after)
	if nv.typo == nil {
		t.Fatal("the folded view was not carried over")
	}
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(len(data))*5/4; got > limit {
		t.Errorf("Update of a %d-byte file allocated %d bytes; want at most %d", len(data), got, limit)
	}
	back := []Edit{{OldText: curly(e), NewText: curly(a)}}
	got, gerr := nv.Apply(back, Options{})
	want, werr := Apply(res.Output, back, Options{})
	sameResult(t, "after the update", got, gerr, want, werr)
}
