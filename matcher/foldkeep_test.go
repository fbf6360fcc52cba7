package matcher

import (
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// In a line changed after a typography fold, what the model left in place between its
// changes is written as the file has it: the file's dash, special space, curly quote or
// zero-width character, not the model's ASCII for it.
func TestFoldKeepsUnchangedInChangedLine(t *testing.T) {
	runCases(t, []applyCase{
		{name: "em dash between two changes", file: "a \u2014 b\n",
			edits: []Edit{e("a - b", "A - B")}, want: "A \u2014 B\n", tier: TierTypography},
		{name: "closing curly quote", file: "Use “foo” here.\n",
			edits: []Edit{e(`Use "foo" here.`, `Use "bar" there.`)}, want: "Use “bar” there.\n", tier: TierTypography},
		{name: "closing curly quote, text added", file: "// Greeting “v2”: say hello.\n",
			edits: []Edit{e(`// Greeting "v2": say hello.`, `// Greeting "v3": say hello to all.`)},
			want:  "// Greeting “v3”: say hello to all.\n", tier: TierTypography},
		{name: "nbsp", file: "price:\u00a0100 EUR\n",
			edits: []Edit{e("price: 100 EUR", "Price: 100 USD")}, want: "Price:\u00a0100 USD\n", tier: TierTypography},
		{name: "zero-width space", file: "foo\u200bbar baz\n",
			edits: []Edit{e("foobar baz", "Foobar qux")}, want: "Foo\u200bbar qux\n", tier: TierTypography},
		{name: "zero-width space next to a change", file: "ab\u200bcd ef\n",
			edits: []Edit{e("abcd ef", "aXcd eF")}, want: "aX\u200bcd eF\n", tier: TierTypography},
		{name: "zero-width space inside replaced text goes with it", file: "ab\u200bcd ef\n",
			edits: []Edit{e("abcd ef", "XY ef")}, want: "XY ef\n", tier: TierTypography},
		{name: "dash in a tab-indented CRLF comment", file: "func f() {\r\n\t// a \u2013 b\r\n}\r\n",
			edits: []Edit{e("\t// a - b", "\t// A - B")}, want: "func f() {\r\n\t// A \u2013 B\r\n}\r\n", tier: TierTypography},
		{name: "quotes of two words swapped", file: "x = “a” + “b”\n",
			edits: []Edit{e(`x = "a" + "b"`, `x = "A" + "B"`)}, want: "x = “A” + “B”\n", tier: TierTypography},
		{name: "ellipsis kept whole", file: "wait\u2026 then go\n",
			edits: []Edit{e("wait... then go", "Wait... then stop")}, want: "Wait\u2026 then stop\n", tier: TierTypography},
		{name: "model's own new typography written as sent", file: "a \u2014 b\n",
			edits: []Edit{e("a - b", "A - B\u2013C")}, want: "A \u2014 B\u2013C\n", tier: TierTypography},
	})
}

// Where the model's change could have been made in more than one way, a file's character
// is not put where the model may have moved text, and the report says so.
func TestFoldKeepAmbiguous(t *testing.T) {
	// Which of the two em dashes the model replaced cannot be told.
	res, err := Apply([]byte("a\u2014\u2014b\n"), []Edit{e("a--b", "AX-B")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Output); got != "AX-B\n" {
		t.Errorf("output %q, want %q", got, "AX-B\n")
	}
	if u := res.Edits[0].Unkept; len(u) != 1 || u[0] != 1 {
		t.Errorf("Unkept %v, want [1]", u)
	}
	// The model's " - " between A and B or between B and C: written as sent.
	res, err = Apply([]byte("a \u2014 b\n"), []Edit{e("a - b", "A - B - C")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Output); got != "A - B - C\n" {
		t.Errorf("output %q, want %q", got, "A - B - C\n")
	}
	if u := res.Edits[0].Unkept; len(u) != 1 || u[0] != 1 {
		t.Errorf("Unkept %v, want [1]", u)
	}
	// Unambiguous: nothing to report.
	res, err = Apply([]byte("x\na \u2014 b\n"), []Edit{e("a - b", "A - B")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Edits[0].Unkept) != 0 {
		t.Errorf("Unkept %v, want none", res.Edits[0].Unkept)
	}
}

// A long line changed at both ends is aligned all the same (a paragraph of prose is
// one line). One with changes all along it, too many to align, keeps the old rule (the
// changed middle written from the model's text) and says so.
func TestFoldKeepLongLine(t *testing.T) {
	mid := strings.Repeat("word ", 600)
	file := "a \u2014 " + mid + "b\n"
	res, err := Apply([]byte(file), []Edit{e("a - "+mid+"b", "A - "+mid+"B")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "A \u2014 " + mid + "B\n"; string(res.Output) != want {
		t.Errorf("output %.40q..., want the file's dash", res.Output)
	}
	if u := res.Edits[0].Unkept; len(u) != 0 {
		t.Errorf("Unkept %v, want none", u)
	}

	file = "a \u2014 " + strings.Repeat("abcd ", 600) + "b\n"
	nw := "A - " + strings.Repeat("abXd ", 600) + "B"
	res, err = Apply([]byte(file), []Edit{e("a - "+strings.Repeat("abcd ", 600)+"b", nw)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Output) != nw+"\n" {
		t.Errorf("output %.40q..., want the model's text", res.Output)
	}
	if u := res.Edits[0].Unkept; len(u) != 1 || u[0] != 1 {
		t.Errorf("Unkept %v, want [1]", u)
	}
}

// Property: a line made of segments the model keeps (holding typographic characters)
// and segments it replaces. oldText is the folded line; newText is the folded kept
// segments with each replaced one swapped for new text. The expected line is put
// together from the segments themselves: the kept ones raw, the new texts as sent.
// The folded alphabets are apart (kept: a-m, digits, punctuation, dashes and double
// quotes; replaced: n-z and single quotes; new: upper case), so which characters the
// model kept is never in doubt.
func TestFoldKeepProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(50))
	keptChars := []string{"a", "b", "c", "d", "e", "k", "m", "1", "2", " ", ",", ".", "(", ")",
		"\u2014", "\u2013", "\u2212", "\u201c", "\u201d", "\u00ab", "\u00a0", "\u2009", "\u202f", "\u2026", "\"", "-"}
	replChars := []string{"n", "o", "p", "r", "s", "t", "x", "z", "'", "\u2018", "\u2019"}
	word := func(set []string, n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(set[rng.Intn(len(set))])
		}
		return b.String()
	}
	for c := range 3000 {
		var raw, want, newText strings.Builder
		nseg := 2 + rng.Intn(6)
		keptFirst := rng.Intn(2) == 0
		for s := range nseg {
			if (s%2 == 0) == keptFirst {
				k := word(keptChars, 1+rng.Intn(6))
				if rng.Intn(3) == 0 && len(k) > 1 {
					// A zero-width space inside the kept text.
					at := 1 + rng.Intn(len(k)-1)
					for at < len(k) && k[at]&0xC0 == 0x80 {
						at++
					}
					if at < len(k) {
						k = k[:at] + "\u200b" + k[at:]
					}
				}
				raw.WriteString(k)
				want.WriteString(k)
				newText.WriteString(testFoldLine(k))
				continue
			}
			r := word(replChars, rng.Intn(5))
			n := word([]string{"Q", "W", "X", "Y", "Z"}, rng.Intn(5))
			if r == "" && n == "" {
				n = "Q"
			}
			raw.WriteString(r)
			want.WriteString(n)
			newText.WriteString(n)
		}
		line := "@" + raw.String() + "#"
		exp := "@" + want.String() + "#"
		old := testFoldLine(line)
		nw := "@" + newText.String() + "#"
		file := "first\n" + line + "\nlast\n"
		res, err := Apply([]byte(file), []Edit{e(old, nw)}, Options{})
		if err != nil {
			t.Fatalf("case %d: line %q old %q new %q: %v", c, line, old, nw, err)
		}
		if got, w := string(res.Output), "first\n"+exp+"\nlast\n"; got != w {
			t.Fatalf("case %d: line %q, old %q, new %q:\n got %q\nwant %q", c, line, old, nw, got, w)
		}
		if u := res.Edits[0].Unkept; len(u) != 0 {
			t.Fatalf("case %d: line %q: Unkept %v, though every kept character was kept", c, line, u)
		}
	}
}

// testFoldLine is a line as a model that types ASCII for everything would quote it:
// typographic characters as their ASCII, the ellipsis as three dots, zero-width
// characters gone.
func testFoldLine(s string) string {
	return strings.NewReplacer("\u2014", "-", "\u2013", "-", "\u2212", "-", "\u201c", `"`, "\u201d", `"`,
		"\u00ab", `"`, "\u2018", "'", "\u2019", "'", "\u00a0", " ", "\u2009", " ", "\u202f", " ",
		"\u2026", "...", "\u200b", "").Replace(s)
}

// keptRuns against the definition, computed plainly: character i of f is kept, at j of
// n, when every longest common subsequence of f and n matches i with j. The strings are
// long enough, and close enough, for keptRuns to work in a band narrower than its
// tables.
func TestKeptRunsDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	lcs := func(a, b []rune) int {
		prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
		for i := range a {
			for j := range b {
				if a[i] == b[j] {
					cur[j+1] = prev[j] + 1
				} else {
					cur[j+1] = max(prev[j+1], cur[j])
				}
			}
			prev, cur = cur, prev
		}
		return prev[len(b)]
	}
	alpha := []rune("ab-“é")
	for c := range 100 {
		var f []rune
		for range 20 + rng.Intn(40) {
			f = append(f, alpha[rng.Intn(len(alpha))])
		}
		n := append([]rune{}, f...)
		for range rng.Intn(25) {
			at := rng.Intn(len(n) + 1)
			switch rng.Intn(3) {
			case 0:
				n = append(n[:at], append([]rune{alpha[rng.Intn(len(alpha))]}, n[at:]...)...)
			case 1:
				if at < len(n) {
					n = append(n[:at], n[at+1:]...)
				}
			default:
				if at < len(n) {
					n[at] = alpha[rng.Intn(len(alpha))]
				}
			}
		}
		L := lcs(f, n)
		want := map[[2]int]bool{} // rune index in f -> rune index in n
		for i := range f {
			without := lcs(append(append([]rune{}, f[:i]...), f[i+1:]...), n)
			partner, partners := -1, 0
			for j := range n {
				if f[i] == n[j] && lcs(f[:i], n[:j])+1+lcs(f[i+1:], n[j+1:]) == L {
					partner, partners = j, partners+1
				}
			}
			if without < L && partners == 1 {
				want[[2]int{i, partner}] = true
			}
		}
		fs, ns := string(f), string(n)
		aligned := 0
		runs, _, ok := keptRuns(fs, ns, &aligned)
		if !ok {
			t.Fatalf("case %d: not aligned", c)
		}
		got := map[[2]int]bool{}
		for _, r := range runs {
			i := utf8.RuneCountInString(fs[:r.f])
			j := utf8.RuneCountInString(ns[:r.n])
			for k := range utf8.RuneCountInString(fs[r.f : r.f+r.size]) {
				got[[2]int{i + k, j + k}] = true
			}
		}
		if !maps.Equal(got, want) {
			t.Fatalf("case %d: %q against %q: kept %v, want %v", c, fs, ns, got, want)
		}
	}
}

// Lines a hunk replaces rather than pairs (two old lines become three new ones) are
// written as the model sent them: a file character they may have kept is reported.
func TestFoldKeepReplacedLinesReported(t *testing.T) {
	for _, c := range []struct {
		file, old, new, want string
		unkept               []int
	}{
		{"p\na \u2014 b\nc\n", "a - b\nc", "A - B\nX\nY", "p\nA - B\nX\nY\n", []int{2}},
		{"p\na \u2014 b\nc\n", "a - b\nc", "Z\nX\nY", "p\nZ\nX\nY\n", nil},                    // no dash written
		{"p\na \u2014 b\nc\n", "a - b\nc", "c", "p\nc\n", nil},                                // a line deleted
		{"p\na \u2014 b\nc\n", "p\na - b\nc", "p\na - b\nc\nd", "p\na \u2014 b\nc\nd\n", nil}, // lines paired
	} {
		res, err := Apply([]byte(c.file), []Edit{e(c.old, c.new)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Output) != c.want || !slices.Equal(res.Edits[0].Unkept, c.unkept) {
			t.Errorf("%q to %q: output %q, Unkept %v; want %q, %v", c.old, c.new, res.Output, res.Edits[0].Unkept, c.want, c.unkept)
		}
	}
}

// Text the model moved within a line is written as sent: a file character the
// alignment would carry into it belongs to other text ("x — y" and "p - q" swapped
// must not give "p — q"), and the line is reported as not kept.
func TestFoldKeepMovedTextWrittenAsSent(t *testing.T) {
	for _, c := range []struct{ file, old, new, want string }{
		{"f(\"x \u2014 y\", \"p - q\")\n", `f("x - y", "p - q")`, `f("p - q", "x - y")`, "f(\"p - q\", \"x - y\")\n"},
		{"call(a\u2014b, c\u2013d)\n", "call(a-b, c-d)", "call(c-d, a-b)", "call(c-d, a-b)\n"},
	} {
		res, err := Apply([]byte(c.file), []Edit{e(c.old, c.new)}, Options{})
		if err != nil {
			t.Fatalf("%q: %v", c.file, err)
		}
		if got := string(res.Output); got != c.want {
			t.Errorf("%q: output %q, want %q", c.file, got, c.want)
		}
		if u := res.Edits[0].Unkept; len(u) != 1 || u[0] != 1 {
			t.Errorf("%q: Unkept %v, want [1]", c.file, u)
		}
	}
}
